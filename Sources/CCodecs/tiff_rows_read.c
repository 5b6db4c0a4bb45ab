// TIFF rows through libtiff (see CCodecs.h): reading the first page's rows, a strip row, a strip
// of each plane or a row of tiles at a time, and turning them into RGB(A). The handle and its
// open are in tiff_rows.c.

#include "CCodecs.h"
#include "tiff_rows_internal.h"

#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

// Makes the chunks hold `row`: the strip of each plane, or the row of tiles, it lies in.
static int fill_chunks(mio_tiff *t, uint32_t row) {
    TIFF *tif = t->tif;
    const mio_tiff_info *info = &t->layout;
    if (t->chunk_rows > 0 && row >= t->chunk_row && row - t->chunk_row < t->chunk_rows) return 0;
    if (t->mode == MODE_PLANAR_STRIPS) {
        uint32_t per = info->rows_per_strip < info->height ? info->rows_per_strip : info->height;
        uint32_t first = row / per * per;
        uint32_t rows = info->height - first < per ? info->height - first : per;
        size_t needed = (size_t)rows * info->width * (size_t)(info->bits / 8);
        for (int p = 0; p < t->planes; p++) {
            tmsize_t got = TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, row, (uint16_t)p), t->chunks[p], (tmsize_t)t->chunk_bytes);
            if (got < 0 || (size_t)got < needed) {
                mio_tiff_set_message(t, "a strip could not be read");
                return -1;
            }
        }
        t->chunk_row = first;
        t->chunk_rows = rows;
        return 0;
    }
    uint32_t first = row / info->tile_length * info->tile_length;
    uint32_t across = (info->width + info->tile_width - 1) / info->tile_width;
    for (int p = 0; p < t->planes; p++) {
        for (uint32_t column = 0; column < across; column++) {
            uint32_t tile = TIFFComputeTile(tif, column * info->tile_width, first, 0, (uint16_t)p);
            tmsize_t got = TIFFReadEncodedTile(tif, tile, t->chunks[p] + (size_t)column * t->tile_bytes, (tmsize_t)t->tile_bytes);
            if (got != (tmsize_t)t->tile_bytes) {
                mio_tiff_set_message(t, "a tile could not be read");
                return -1;
            }
        }
    }
    t->chunk_row = first;
    t->chunk_rows = info->height - first < info->tile_length ? info->height - first : info->tile_length;
    return 0;
}

// The stored samples of `row`, interleaved, into t->scanline.
static int read_stored(mio_tiff *t, uint32_t row) {
    const mio_tiff_info *info = &t->layout;
    if (t->mode == MODE_SCANLINES) {
        if (TIFFReadScanline(t->tif, t->scanline, row, 0) != 1) {
            mio_tiff_set_message(t, "a row could not be read");
            return -1;
        }
        return 0;
    }
    if (fill_chunks(t, row) != 0) return -1;
    size_t in_chunk = row - t->chunk_row;
    size_t bytes = (size_t)info->bits / 8;  // planes: whole bytes a sample
    if (t->mode == MODE_PLANAR_STRIPS) {
        size_t plane_row = (size_t)info->width * bytes;
        for (int p = 0; p < t->planes; p++) {
            const uint8_t *from = t->chunks[p] + in_chunk * plane_row;
            uint8_t *to = t->scanline + (size_t)p * bytes;
            size_t step = (size_t)t->planes * bytes;
            for (uint32_t x = 0; x < info->width; x++, from += bytes, to += step) memcpy(to, from, bytes);
        }
        return 0;
    }
    uint32_t across = (info->width + info->tile_width - 1) / info->tile_width;
    if (t->planes == 1) {
        size_t tile_row = t->tile_bytes / info->tile_length;
        for (uint32_t column = 0; column < across; column++) {
            size_t at = (size_t)column * tile_row;
            size_t length = t->scanline_bytes - at < tile_row ? t->scanline_bytes - at : tile_row;
            memcpy(t->scanline + at, t->chunks[0] + (size_t)column * t->tile_bytes + in_chunk * tile_row, length);
        }
        return 0;
    }
    size_t tile_row = (size_t)info->tile_width * bytes;
    for (int p = 0; p < t->planes; p++) {
        for (uint32_t x = 0; x < info->width; x++) {
            uint32_t column = x / info->tile_width;
            const uint8_t *from = t->chunks[p] + (size_t)column * t->tile_bytes + in_chunk * tile_row
                + (size_t)(x - column * info->tile_width) * bytes;
            memcpy(t->scanline + ((size_t)x * (size_t)t->planes + (size_t)p) * bytes, from, bytes);
        }
    }
    return 0;
}

// Sample `x` of a row of `bits` (1, 2, 4, 8) per sample, packed from the high bit.
static inline unsigned packed(const uint8_t *row, size_t index, int bits) {
    size_t bit = index * (size_t)bits;
    return (unsigned)(row[bit >> 3] >> (8 - bits - (int)(bit & 7))) & ((1u << bits) - 1);
}

int mio_tiff_read_row(mio_tiff *t, uint8_t *out) {
    const mio_tiff_info *info = &t->layout;
    if (t->row >= info->height) {
        mio_tiff_set_message(t, "no rows left");
        return -1;
    }
    if (t->mode == MODE_RGBA) {
        if (mio_tiff_read_rgba_row(t, t->row, out) != 0) return -1;
        t->row += 1;
        return t->errors > t->errors_let_pass ? -1 : 0;
    }
    if (read_stored(t, t->row) != 0) return -1;
    t->row += 1;
    if (t->errors > t->errors_let_pass) return -1;
    const uint8_t *in = t->scanline;
    if (t->samples_converted) {
        mio_tiff_convert_samples(t, in, out);
        return 0;
    }
    const uint32_t width = info->width;
    const int bits = info->bits, samples = info->samples, channels = info->output_channels;
    if (info->photometric == PHOTOMETRIC_PALETTE) {
        uint16_t *to = (uint16_t *)out;
        unsigned scale = t->colormap_8bit ? 257 : 1;
        for (uint32_t x = 0; x < width; x++, to += 3) {
            unsigned index = bits == 8 ? in[x] : packed(in, x, bits);
            to[0] = (uint16_t)(t->colormap[0][index] * scale);
            to[1] = (uint16_t)(t->colormap[1][index] * scale);
            to[2] = (uint16_t)(t->colormap[2][index] * scale);
        }
        return 0;
    }
    if (info->grey) {
        int white = info->photometric == PHOTOMETRIC_MINISWHITE;
        if (bits == 16) {
            const uint16_t *from = (const uint16_t *)in;
            uint16_t *to = (uint16_t *)out;
            for (uint32_t x = 0; x < width; x++, from += samples, to += channels) {
                uint16_t v = white ? (uint16_t)(65535 - from[0]) : from[0];
                to[0] = to[1] = to[2] = v;
                if (channels == 4) to[3] = from[1];
            }
        } else if (bits == 8) {
            const uint8_t *from = in;
            uint8_t *to = out;
            for (uint32_t x = 0; x < width; x++, from += samples, to += channels) {
                uint8_t v = white ? (uint8_t)(255 - from[0]) : from[0];
                to[0] = to[1] = to[2] = v;
                if (channels == 4) to[3] = from[1];
            }
        } else {
            // 1, 2 or 4 bits, one sample: 255/(2^bits - 1) is whole (255, 85, 17).
            unsigned top = (1u << bits) - 1, step = 255 / top;
            uint8_t *to = out;
            for (uint32_t x = 0; x < width; x++, to += 3) {
                unsigned v = packed(in, x, bits);
                if (white) v = top - v;
                to[0] = to[1] = to[2] = (uint8_t)(v * step);
            }
        }
        return 0;
    }
    // RGB or RGBA, 8 or 16 bits, interleaved: as stored.
    memcpy(out, in, info->row_bytes);
    return 0;
}

int mio_tiff_seek_row(mio_tiff *t, uint32_t row) {
    const mio_tiff_info *info = &t->layout;
    uint32_t per = info->rows_per_strip < info->height ? info->rows_per_strip : info->height;
    if (t->mode != MODE_SCANLINES || row >= info->height || per == 0 || row % per != 0) {
        mio_tiff_set_message(t, "a row that does not start a strip");
        return -1;
    }
    t->row = row;
    return 0;
}

const uint8_t *mio_tiff_icc(mio_tiff *t, size_t *length) {
    *length = 0;
    uint32_t count = 0;
    void *profile = NULL;
    if (t->tif == NULL || !TIFFGetField(t->tif, TIFFTAG_ICCPROFILE, &count, &profile) || profile == NULL) return NULL;
    *length = count;
    return profile;
}

const char *mio_tiff_message(const mio_tiff *t) { return t->message; }
int mio_tiff_warnings(const mio_tiff *t) { return t->warnings; }
int mio_tiff_errors(const mio_tiff *t) { return t->errors; }
