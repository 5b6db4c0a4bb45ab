// The TIFF row reader's state, shared by tiff_rows.c (open) and tiff_rows_read.c (rows); not
// part of the module's interface (CCodecs.h).

#ifndef MIO_TIFF_ROWS_INTERNAL_H
#define MIO_TIFF_ROWS_INTERNAL_H

#include "CCodecs.h"
#include <tiffio.h>

enum { MODE_SCANLINES = 0, MODE_PLANAR_STRIPS = 1, MODE_TILES = 2, MODE_RGBA = 3 };

struct mio_tiff {
    TIFF *tif;
    const uint8_t *data;
    int fd;
    uint64_t size;
    uint64_t offset;
    char message[256];
    int warnings;
    int errors;
    mio_tiff_info layout;
    int mode;
    int planes;                   // buffers: the samples (separate planes) or 1
    size_t scanline_bytes;        // one row of the stored samples, interleaved
    uint8_t *scanline;
    uint8_t *chunks[MIO_TIFF_MAX_PLANES];  // a strip (per plane) or a row of tiles (per plane)
    size_t chunk_bytes;           // each of them
    size_t tile_bytes;            // tiles: one tile of one plane (or of all samples, contiguous)
    uint32_t chunk_row;           // the first row the chunks hold
    uint32_t chunk_rows;          // the rows they hold (0: none yet)
    uint16_t *colormap[3];        // palette: libtiff's, 16 bits a value
    int colormap_8bit;            // every value under 256: an 8-bit colour map (as ImageMagick and libtiff take it)
    uint32_t row;
    int errors_let_pass;          // libtiff's errors in the directory of a layout ImageMagick misreads
    int samples_converted;        // mio_tiff_convert_samples makes the rows (tiff_rows_samples.c)
    TIFFRGBAImage rgba;           // MODE_RGBA: libtiff's RGBA interface (tiff_rows_rgba.c)
    int rgba_begun;
    uint32_t *band;               // MODE_RGBA: a strip or a row of tiles, RGBA (chunk_row, chunk_rows)
    uint32_t band_rows;
};

// Keeps `text` as the reason, unless libtiff already gave one.
void mio_tiff_set_message(mio_tiff *t, const char *text);

// tiff_rows_rgba.c: YCbCr other than new-style JPEG, and old-style JPEG, through libtiff's RGBA
// interface a band (a strip or a row of tiles) at a time.
int mio_tiff_uses_rgba(const mio_tiff_info *info);
int mio_tiff_start_rgba(mio_tiff *t, mio_tiff_info *info);
int mio_tiff_read_rgba_row(mio_tiff *t, uint32_t row, uint8_t *out);
void mio_tiff_end_rgba(mio_tiff *t);

// tiff_rows_samples.c: signed, 24-bit and floating-point samples.
int mio_tiff_misread_samples(const mio_tiff_info *info);
int mio_tiff_takes_samples(const mio_tiff_info *info);
void mio_tiff_convert_samples(const mio_tiff *t, const uint8_t *in, uint8_t *out);

#endif
