// TIFF rows through libtiff (see CCodecs.h): the handle, its handlers and I/O, the open and the
// layout checks. The reading of rows is in tiff_rows_read.c.

#include "CCodecs.h"
#include "tiff_rows_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tiffio.h>


static void keep_message(mio_tiff *t, const char *module, const char *fmt, va_list ap) {
    if (t->message[0] != 0) return;
    char text[200];
    vsnprintf(text, sizeof text, fmt, ap);
    if (module != NULL && module[0] != 0) {
        snprintf(t->message, sizeof t->message, "%s: %s", module, text);
    } else {
        snprintf(t->message, sizeof t->message, "%s", text);
    }
}

void mio_tiff_set_message(mio_tiff *t, const char *text) {
    if (t->message[0] == 0) snprintf(t->message, sizeof t->message, "%s", text);
}

// The handle's own handlers (TIFFOpenOptions, libtiff 4.5): nothing goes through libtiff's global
// ones, which ImageMagick's coder sets for itself, and each decode keeps its own reason.
static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    mio_tiff *t = user;
    keep_message(t, module, fmt, ap);
    t->errors += 1;
    return 1;
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    mio_tiff *t = user;
    keep_message(t, module, fmt, ap);
    t->warnings += 1;
    return 1;
}

static tmsize_t on_read(thandle_t handle, void *buffer, tmsize_t length) {
    mio_tiff *t = handle;
    if (length <= 0 || t->offset >= t->size) return 0;
    uint64_t available = t->size - t->offset;
    size_t wanted = (uint64_t)length < available ? (size_t)length : (size_t)available;
    if (t->data != NULL) {
        memcpy(buffer, t->data + t->offset, wanted);
        t->offset += wanted;
        return (tmsize_t)wanted;
    }
    size_t done = 0;
    while (done < wanted) {
        ssize_t got = pread(t->fd, (uint8_t *)buffer + done, wanted - done, (off_t)(t->offset + done));
        if (got <= 0) break;
        done += (size_t)got;
    }
    t->offset += done;
    return (tmsize_t)done;
}

static tmsize_t on_write(thandle_t handle, void *buffer, tmsize_t length) {
    (void)handle;
    (void)buffer;
    (void)length;
    return 0;
}

static toff_t on_seek(thandle_t handle, toff_t offset, int whence) {
    mio_tiff *t = handle;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? t->offset : t->size;
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return (toff_t)-1;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    t->offset = base + offset;
    return t->offset;
}

static int on_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t on_size(thandle_t handle) { return ((mio_tiff *)handle)->size; }

// Bytes in memory are handed to libtiff where they lie (it reads strips and tiles from them
// without a copy); a file descriptor is read with pread, never mapped: mapped pages read would
// count in the process's resident memory.
static int on_map(thandle_t handle, void **base, toff_t *size) {
    mio_tiff *t = handle;
    if (t->data == NULL) return 0;
    *base = (void *)t->data;
    *size = t->size;
    return 1;
}

static void on_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

mio_tiff *mio_tiff_create(void) {
    mio_tiff *t = calloc(1, sizeof *t);
    if (t != NULL) t->fd = -1;
    return t;
}

void mio_tiff_destroy(mio_tiff *t) {
    if (t == NULL) return;
    mio_tiff_end_rgba(t);
    if (t->tif != NULL) TIFFClose(t->tif);
    free(t->scanline);
    for (int p = 0; p < MIO_TIFF_MAX_PLANES; p++) free(t->chunks[p]);
    free(t);
}

int mio_tiff_open(mio_tiff *t, const uint8_t *data, int fd, size_t size, size_t max_single_alloc, mio_tiff_info *info) {
    memset(info, 0, sizeof *info);
    t->data = data;
    t->fd = fd;
    t->size = size;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) {
        mio_tiff_set_message(t, "out of memory");
        return -1;
    }
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_single_alloc);
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, t);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, t);
    // "r" maps the bytes in memory (on_map); "m" keeps a file descriptor unmapped.
    t->tif = TIFFClientOpenExt("MagickIO", data != NULL ? "r" : "rm", t, on_read, on_write, on_seek, on_close, on_size,
                               on_map, on_unmap, options);
    TIFFOpenOptionsFree(options);
    if (t->tif == NULL) {
        mio_tiff_set_message(t, "libtiff could not read the first directory");
        return -1;
    }
    TIFF *tif = t->tif;
    uint32_t width = 0, height = 0;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height)) {
        mio_tiff_set_message(t, "no image size");
        return -1;
    }
    uint16_t bits = 1, samples = 1, format = 1, planar = 1, compression = 1, photometric = 0;
    if (!TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits) || !TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples) ||
        !TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format) || !TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar) ||
        !TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression)) {
        mio_tiff_set_message(t, "the directory's layout could not be read");
        return -1;
    }
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) {
        mio_tiff_set_message(t, "no PhotometricInterpretation");
        return -1;
    }
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count > 0 && extra != NULL) {
        info->extra_samples = extra_count;
        info->first_extra = extra[0];
    }
    info->width = width;
    info->height = height;
    info->bits = bits;
    info->samples = samples;
    info->sample_format = format;
    info->planar = planar == PLANARCONFIG_SEPARATE;
    info->compression = compression;
    info->photometric = photometric;
    info->tiled = TIFFIsTiled(tif) != 0;
    if (info->tiled) {
        uint32_t tile_width = 0, tile_length = 0;
        if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tile_width) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &tile_length)) {
            mio_tiff_set_message(t, "a tiled page without a tile size");
            return -1;
        }
        info->tile_width = tile_width;
        info->tile_length = tile_length;
    } else {
        uint32_t rows = 0;
        if (!TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows)) rows = height;
        info->rows_per_strip = rows;
    }
    return 0;
}

static int allocate(mio_tiff *t, uint8_t **buffer, uint64_t bytes) {
    if (bytes == 0 || bytes > (uint64_t)SIZE_MAX / 2) {
        mio_tiff_set_message(t, "a strip or tile size out of range");
        return -1;
    }
    *buffer = malloc((size_t)bytes);
    if (*buffer == NULL) {
        mio_tiff_set_message(t, "out of memory");
        return -1;
    }
    return 0;
}

int mio_tiff_start(mio_tiff *t, mio_tiff_info *info) {
    TIFF *tif = t->tif;
    const uint32_t width = info->width;
    const int bits = info->bits, samples = info->samples;
    if (width == 0 || info->height == 0 || samples < 1 || samples > MIO_TIFF_MAX_PLANES) {
        mio_tiff_set_message(t, "a page of no size or too many samples");
        return -1;
    }
    if (mio_tiff_uses_rgba(info) || mio_tiff_misread_samples(info)) {
        // ImageMagick misreads these layouts: libtiff's errors in the directory it read past (an
        // unknown tag's type, as in old-style JPEG files) are no reason to leave this path.
        t->errors_let_pass = t->errors;
        t->message[0] = 0;
    }
    if (mio_tiff_uses_rgba(info)) return mio_tiff_start_rgba(t, info);
    // The layouts taken (the Swift side checks them first, from the header): unsigned 1 to 16
    // bits, and the samples tiff_rows_samples.c converts.
    int grey = info->photometric == PHOTOMETRIC_MINISWHITE || info->photometric == PHOTOMETRIC_MINISBLACK;
    int palette = info->photometric == PHOTOMETRIC_PALETTE;
    int rgb = info->photometric == PHOTOMETRIC_RGB || info->photometric == PHOTOMETRIC_YCBCR;
    int low = bits == 1 || bits == 2 || bits == 4;
    int converted = mio_tiff_misread_samples(info);
    int wide = converted ? mio_tiff_takes_samples(info) && info->photometric != PHOTOMETRIC_YCBCR
        : info->sample_format == SAMPLEFORMAT_UINT && (bits == 8 || bits == 16);
    int taken = (grey && ((samples == 1 && (wide || (low && !converted))) || (samples == 2 && wide)))
        || (palette && !converted && samples == 1 && (low || bits == 8))
        || (rgb && (samples == 3 || samples == 4) && wide);
    if (!taken) {
        mio_tiff_set_message(t, "a layout this path does not take");
        return -1;
    }
    if (info->compression == COMPRESSION_JPEG && info->photometric == PHOTOMETRIC_YCBCR) {
        // libjpeg converts to RGB, as libtiff's RGBA interface (ImageMagick's reader for JPEG)
        // has it do.
        if (!TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB)) {
            mio_tiff_set_message(t, "libtiff could not set the JPEG colour mode");
            return -1;
        }
    } else if (info->photometric == PHOTOMETRIC_YCBCR) {
        mio_tiff_set_message(t, "YCbCr without JPEG");
        return -1;
    }
    if (info->photometric == PHOTOMETRIC_PALETTE) {
        if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &t->colormap[0], &t->colormap[1], &t->colormap[2]) || t->colormap[0] == NULL) {
            mio_tiff_set_message(t, "a palette page without a colour map");
            return -1;
        }
        size_t entries = (size_t)1 << bits;
        t->colormap_8bit = 1;
        for (size_t i = 0; i < entries; i++) {
            if (t->colormap[0][i] >= 256 || t->colormap[1][i] >= 256 || t->colormap[2][i] >= 256) {
                t->colormap_8bit = 0;
                break;
            }
        }
    }
    // The rows this path hands out: RGB, or RGBA with an extra sample; 8 bits a sample from up to
    // 8 stored, 16 from 16 and from a colour map.
    int colour = info->photometric == PHOTOMETRIC_MINISWHITE || info->photometric == PHOTOMETRIC_MINISBLACK
        || info->photometric == PHOTOMETRIC_PALETTE ? 1 : 3;
    // Alpha by the header's rule (TIFFIndex.Directory.hasAlpha, ImageMagick's): an ExtraSamples
    // tag, or a fourth sample of RGB; any other sample beyond the colours is dropped.
    info->output_channels = samples > colour && (info->extra_samples > 0 || (samples == 4 && colour == 3)) ? 4 : 3;
    info->output_bytes = bits == 16 || info->photometric == PHOTOMETRIC_PALETTE ? 2 : 1;
    if (converted) info->output_bytes = bits == 8 ? 1 : 2;  // signed 8-bit to 8, the others to 16
    t->samples_converted = converted;
    info->grey = colour == 1 && info->photometric != PHOTOMETRIC_PALETTE;
    info->row_bytes = (size_t)width * (size_t)info->output_channels * (size_t)info->output_bytes;

    uint64_t stored_bits = (uint64_t)width * (uint64_t)bits * (uint64_t)samples;
    t->scanline_bytes = (size_t)((stored_bits + 7) / 8);
    t->planes = info->planar && samples > 1 ? samples : 1;
    if (info->planar && samples > 1 && (bits < 8 || bits % 8 != 0)) {
        mio_tiff_set_message(t, "separate planes of samples of less than a byte");
        return -1;
    }
    if (allocate(t, &t->scanline, t->scanline_bytes) != 0) return -1;
    if (info->tiled) {
        t->mode = MODE_TILES;
        uint64_t tile = TIFFTileSize64(tif);
        uint64_t across = ((uint64_t)width + info->tile_width - 1) / info->tile_width;
        uint64_t tile_row = TIFFTileRowSize64(tif);
        uint64_t expected_row = ((uint64_t)info->tile_width * (uint64_t)bits * (uint64_t)(t->planes > 1 ? 1 : samples) + 7) / 8;
        // A tile's rows must start on a byte in the assembled row (TIFF's tile widths are
        // multiples of 16).
        int whole_bytes = ((uint64_t)info->tile_width * (uint64_t)bits * (uint64_t)(t->planes > 1 ? 1 : samples)) % 8 == 0;
        if (tile == 0 || !whole_bytes || tile_row != expected_row || tile != tile_row * info->tile_length) {
            mio_tiff_set_message(t, "a tile size libtiff does not agree with");
            return -1;
        }
        t->tile_bytes = (size_t)tile;
        t->chunk_bytes = (size_t)(tile * across);
    } else if (t->planes > 1) {
        t->mode = MODE_PLANAR_STRIPS;
        uint32_t rows = info->rows_per_strip < info->height ? info->rows_per_strip : info->height;
        t->chunk_bytes = (size_t)((uint64_t)rows * width * (uint64_t)(bits / 8));
        if (TIFFStripSize64(tif) != (uint64_t)t->chunk_bytes) {
            mio_tiff_set_message(t, "a strip size libtiff does not agree with");
            return -1;
        }
    } else {
        // One strip row at a time: libtiff decodes a strip as it goes, holding its compressed
        // bytes (none in memory: they are read where they lie) and the codec's state.
        t->mode = MODE_SCANLINES;
        if (TIFFScanlineSize64(tif) != (uint64_t)t->scanline_bytes) {
            mio_tiff_set_message(t, "a scanline size libtiff does not agree with");
            return -1;
        }
    }
    for (int p = 0; p < (t->mode == MODE_SCANLINES ? 0 : t->planes); p++) {
        if (allocate(t, &t->chunks[p], t->chunk_bytes) != 0) return -1;
    }
    t->layout = *info;
    return t->errors > t->errors_let_pass ? -1 : 0;
}
