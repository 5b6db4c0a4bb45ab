// The TIFF row reader's state, shared by tiff_rows.c (open) and tiff_rows_read.c (rows); not
// part of the module's interface (CCodecs.h).

#ifndef MIO_TIFF_ROWS_INTERNAL_H
#define MIO_TIFF_ROWS_INTERNAL_H

#include "CCodecs.h"
#include <tiffio.h>

enum { MODE_SCANLINES = 0, MODE_PLANAR_STRIPS = 1, MODE_TILES = 2 };

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
};

// Keeps `text` as the reason, unless libtiff already gave one.
void mio_tiff_set_message(mio_tiff *t, const char *text);

#endif
