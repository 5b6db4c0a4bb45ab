// TIFF rows through libtiff's RGBA interface (TIFFRGBAImageBegin/Get): YCbCr stored other than as
// new-style JPEG (subsampled or not, any compression) and old-style JPEG (Compression 6), which
// libtiff converts to RGB (its YCbCr routines honour the subsampling, the coefficients and the
// reference black and white; its OJPEG codec rebuilds the JPEG stream). A band of rows at a time:
// one strip (RowsPerStrip rows), or one row of tiles, as 8-bit RGBA, 4 bytes a pixel, from one
// decoded strip or tile as stored.

#include "CCodecs.h"
#include "tiff_rows_internal.h"

#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

int mio_tiff_uses_rgba(const mio_tiff_info *info) {
    return (info->photometric == PHOTOMETRIC_YCBCR && info->compression != COMPRESSION_JPEG)
        || info->compression == COMPRESSION_OJPEG;
}

int mio_tiff_start_rgba(mio_tiff *t, mio_tiff_info *info) {
    TIFF *tif = t->tif;
    // Three 8-bit samples: libtiff's YCbCr routines take no alpha, nor any other depth.
    if (info->bits != 8 || info->samples != 3 || info->extra_samples != 0
        || (info->photometric != PHOTOMETRIC_YCBCR && info->photometric != PHOTOMETRIC_RGB)) {
        mio_tiff_set_message(t, "YCbCr or old-style JPEG of other than three 8-bit samples");
        return -1;
    }
    char reason[1024] = {0};
    if (!TIFFRGBAImageOK(tif, reason) || !TIFFRGBAImageBegin(&t->rgba, tif, 1, reason)) {
        mio_tiff_set_message(t, reason[0] != 0 ? reason : "libtiff's RGBA interface does not take this page");
        return -1;
    }
    t->rgba_begun = 1;
    if (!t->rgba.isContig || t->rgba.put.contig == NULL) {
        mio_tiff_set_message(t, "YCbCr in separate planes");
        return -1;
    }
    // The rows as stored: the orientation is the pipeline's to apply, so libtiff flips nothing.
    t->rgba.req_orientation = t->rgba.orientation;
    uint32_t band = info->tiled ? info->tile_length : info->rows_per_strip;
    if (band == 0 || band > info->height) band = info->height;
    uint64_t bytes = (uint64_t)info->width * band * 4;
    if (bytes == 0 || bytes > (uint64_t)SIZE_MAX / 2 || (t->band = malloc((size_t)bytes)) == NULL) {
        mio_tiff_set_message(t, "out of memory for a band of RGBA rows");
        return -1;
    }
    t->band_rows = band;
    // One strip or tile as stored (subsampled), read into a buffer of our own.
    uint64_t chunk = info->tiled ? TIFFTileSize64(tif) : TIFFStripSize64(tif);
    if (chunk == 0 || chunk > (uint64_t)SIZE_MAX / 2 || (t->chunks[0] = malloc((size_t)chunk)) == NULL) {
        mio_tiff_set_message(t, "out of memory for a strip or tile");
        return -1;
    }
    t->chunk_bytes = (size_t)chunk;
    t->mode = MODE_RGBA;
    info->output_channels = 3;
    info->output_bytes = 1;
    info->grey = 0;
    info->row_bytes = (size_t)info->width * 3;
    t->layout = *info;
    return t->errors > t->errors_let_pass ? -1 : 0;
}

// Reads the band of rows `first`... into t->band: each strip or tile read into t->chunks[0] by
// TIFFReadEncodedStrip/Tile (not TIFFRGBAImageGet, whose buffer libtiff 4.5 allocates and then
// refuses for an uncompressed tile read through a descriptor: "Invalid tile byte count"), then
// converted by the RGBA interface's own routine (`put.contig`), as TIFFRGBAImageGet does.
static int fill_band(mio_tiff *t, uint32_t first, uint32_t rows) {
    TIFF *tif = t->tif;
    const mio_tiff_info *info = &t->layout;
    const uint32_t width = info->width;
    if (!info->tiled) {
        if (TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, first, 0), t->chunks[0], (tmsize_t)t->chunk_bytes) < 0) return -1;
        t->rgba.put.contig(&t->rgba, t->band, 0, 0, width, rows, 0, 0, t->chunks[0]);
        return 0;
    }
    const uint32_t tile_width = info->tile_width;
    for (uint32_t x = 0; x < width; x += tile_width) {
        if (TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x, first, 0, 0), t->chunks[0], (tmsize_t)t->chunk_bytes) < 0) return -1;
        uint32_t columns = width - x < tile_width ? width - x : tile_width;
        // After each row: the tile's columns left unread (`fromskew`), the band's left unwritten.
        t->rgba.put.contig(&t->rgba, t->band + x, x, 0, columns, rows, (int32_t)(tile_width - columns), (int32_t)(width - columns),
                           t->chunks[0]);
    }
    return 0;
}

int mio_tiff_read_rgba_row(mio_tiff *t, uint32_t row, uint8_t *out) {
    const mio_tiff_info *info = &t->layout;
    if (t->chunk_rows == 0 || row < t->chunk_row || row - t->chunk_row >= t->chunk_rows) {
        uint32_t first = row / t->band_rows * t->band_rows;
        uint32_t rows = info->height - first < t->band_rows ? info->height - first : t->band_rows;
        if (fill_band(t, first, rows) != 0) {
            mio_tiff_set_message(t, "a strip or tile could not be read");
            return -1;
        }
        t->chunk_row = first;
        t->chunk_rows = rows;
    }
    // ABGR packed (TIFFGetR: the low byte), alpha dropped: these layouts have none.
    const uint32_t *from = t->band + (size_t)(row - t->chunk_row) * info->width;
    for (uint32_t x = 0; x < info->width; x++, out += 3) {
        out[0] = (uint8_t)TIFFGetR(from[x]);
        out[1] = (uint8_t)TIFFGetG(from[x]);
        out[2] = (uint8_t)TIFFGetB(from[x]);
    }
    return 0;
}

void mio_tiff_end_rgba(mio_tiff *t) {
    if (t->rgba_begun) TIFFRGBAImageEnd(&t->rgba);
    t->rgba_begun = 0;
    free(t->band);
    t->band = NULL;
}
