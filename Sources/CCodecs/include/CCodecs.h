#ifndef CCODECS_H
#define CCODECS_H

// MagickIO's own read paths for thumbnails: rows straight from libjpeg-turbo, libpng, libwebp
// and libtiff, the libraries ImageMagick itself reads JPEG, PNG, WebP and TIFF with; and its JPEG
// writer (libjpeg-turbo, as ImageMagick's coder calls it; it allocates the JPEG it returns, and
// keeps no warning). Each call catches the
// library's errors (setjmp inside the call, never across Swift frames) and returns a status; the
// message of the first error or warning is kept for the caller. Nothing here allocates more than
// the library's own state, its row buffers and, for a progressive JPEG, libjpeg's coefficient
// buffer, which `memory_limit` bounds (for WebP, see its section).

#include <stddef.h>
#include <stdint.h>

// ---- JPEG ------------------------------------------------------------------------------------

typedef struct mio_jpeg mio_jpeg;

typedef enum {
    MIO_JPEG_OTHER = 0,
    MIO_JPEG_GRAY = 1,
    MIO_JPEG_YCBCR = 2,
    MIO_JPEG_RGB = 3,
    MIO_JPEG_CMYK = 4,
    MIO_JPEG_YCCK = 5,
} mio_jpeg_colorspace;

typedef struct {
    uint32_t width, height;       // as stored
    int components;
    mio_jpeg_colorspace colorspace;
    int progressive;
    int adobe;                    // an Adobe APP14 marker was seen
    int arithmetic;               // arithmetic-coded
    uint32_t output_width, output_height;  // after mio_jpeg_start: the scaled size
    int output_components;        // after mio_jpeg_start: 3 (RGB) or 1 (grey)
} mio_jpeg_info;

// A polled callback: returns nonzero to stop (checked at libjpeg's progress points, including
// within a progressive JPEG's scans).
typedef int (*mio_stop_callback)(void *context);

// The reads from a file descriptor, 256 KiB: libjpeg-turbo's fast Huffman decoder runs only while
// at least 512 bytes a block of an MCU are in the buffer, so the last few KiB of each read decode
// at about half the speed (64 KiB reads cost a 12 MP photo's decode about 1.5 ms of 40).
#define MIO_JPEG_READ_SIZE 262144

// NULL only when out of memory. The decode stops with an error once its scans have covered more
// than `max_block_scans` 8x8 blocks (each scan counts the blocks of its components); 0: no limit.
mio_jpeg *mio_jpeg_create(size_t memory_limit, long long max_block_scans, mio_stop_callback stop, void *context);
void mio_jpeg_destroy(mio_jpeg *jpeg);
// Reads the header from `data` (kept, not copied: it must outlive the decoder) or, when `data`
// is NULL, from the file descriptor `fd` (read with pread from offset 0, MIO_JPEG_READ_SIZE bytes
// at a time into a buffer of that size or the file's, so that a big file is never held whole).
// 0 on success.
int mio_jpeg_open(mio_jpeg *jpeg, const uint8_t *data, int fd, size_t size, mio_jpeg_info *info);
// The buffer mio_jpeg_open allocates to read a file of `size` bytes from a descriptor: the file's
// size (at least 2), up to MIO_JPEG_READ_SIZE.
size_t mio_jpeg_read_buffer_bytes(size_t size);
// Starts decompression at scale_num/8 to RGB (or grey when `grey`), ISLOW DCT, fancy
// upsampling; fills the output fields of `info`. 0 on success.
int mio_jpeg_start(mio_jpeg *jpeg, int scale_num, int grey, mio_jpeg_info *info);
// Reads up to `count` rows, `stride` bytes apart, into `rows`. The rows read, or -1 on error.
int mio_jpeg_read(mio_jpeg *jpeg, uint8_t *rows, size_t stride, int count);
// Finishes decompression (reads the rest of the file, whose warnings count too). 0 on success.
int mio_jpeg_finish(mio_jpeg *jpeg);
// The embedded ICC profile (APP2 markers, assembled), owned by the decoder, or NULL.
const uint8_t *mio_jpeg_icc(mio_jpeg *jpeg, size_t *length);
// The first error's or warning's message, or "".
const char *mio_jpeg_message(const mio_jpeg *jpeg);
int mio_jpeg_warnings(const mio_jpeg *jpeg);
int mio_jpeg_stopped(const mio_jpeg *jpeg);
// Nonzero when the decode stopped at `max_block_scans`.
int mio_jpeg_limited(const mio_jpeg *jpeg);

// ---- JPEG writer (jpeg_write.c) --------------------------------------------------------------

// A baseline JPEG of `height` rows of `width` 8-bit pixels (`components` 3, RGB, or 1, grey),
// compressed as ImageMagick's JPEG coder compresses the same rows when no jpeg:* option is set:
// libjpeg's defaults, jpeg_set_quality(`quality`), the integer fast DCT up to quality 90 and the
// slow one above, the sampling factors `sampling` gives (horizontal and vertical for the first
// three components, the rest 1x1) or else libjpeg's, but all 1x1 from quality 90 up, Huffman
// tables optimised, a JFIF header whose density is `x_density` by `y_density` in `density_unit`
// (0 none, 1 inch, 2 cm) when both are nonzero (libjpeg's 1:1 otherwise). 0 and `*output`
// (free() it) of `*length` bytes, or -1 with libjpeg's reason in `message`.
int mio_jpeg_write(const uint8_t *rows, uint32_t width, uint32_t height, int components, int quality,
                   const int *sampling, uint16_t x_density, uint16_t y_density, int density_unit, uint8_t **output,
                   size_t *length, char *message, size_t message_size);

// The 8-bit samples ImageMagick's JPEG coder reads of `count` 16-bit quanta, every `stride`th
// from the first (ScaleQuantumToChar: the nearest, `(q + 128) / 257`), into `bytes`; returns 1
// when every quantum read is one of the 8-bit levels (a multiple of 257), else 0.
int mio_quanta_to_bytes(const uint16_t *quanta, size_t count, size_t stride, uint8_t *bytes);

// Whether each of the `pixels` RGB pixels of 16-bit quanta has red, green and blue equal (1) or not (0).
int mio_quanta_are_grey(const uint16_t *quanta, size_t pixels);

// ---- PNG -------------------------------------------------------------------------------------

typedef struct mio_png mio_png;

typedef struct {
    uint32_t width, height;
    int bit_depth;                // as stored: 1, 2, 4, 8, 16
    int color_type;               // PNG_COLOR_TYPE_*
    int interlaced;
    int has_trns;
    int has_gama;
    double gamma;                 // file gamma (gAMA), when has_gama
    int has_srgb;                 // an sRGB chunk
    int has_chrm;
    int has_offs;                 // an oFFs chunk (ImageMagick makes it a page offset)
    int channels;                 // after the transforms: 3 (RGB) or 4 (RGBA)
    int bytes_per_sample;         // after the transforms: 1 or 2 (native-endian 16-bit)
    size_t row_bytes;             // after the transforms
} mio_png_info;

// `chunk_limit`: the most one chunk may decompress to; `max_width`, `max_height`: the sides
// libpng accepts (png_set_user_limits). Text, EXIF, sPLT and tIME chunks are skipped unread.
mio_png *mio_png_create(size_t chunk_limit, uint32_t max_width, uint32_t max_height);
void mio_png_destroy(mio_png *png);
// Reads the signature and every chunk up to the first IDAT, from `data` or, when it is NULL,
// from `fd` (as mio_jpeg_open). 0 on success.
int mio_png_open(mio_png *png, const uint8_t *data, int fd, size_t size, mio_png_info *info);
// Sets the transforms (palette and tRNS to RGBA, 16-bit kept native) and fills the output
// fields of `info`. 0 on success.
int mio_png_start(mio_png *png, mio_png_info *info);
// Reads one row of `info.row_bytes`. 0 on success.
int mio_png_read_row(mio_png *png, uint8_t *row);
// Reads the chunks after the image data (CRCs and the zlib stream's end checked). 0 on success.
int mio_png_finish(mio_png *png);
const uint8_t *mio_png_icc(mio_png *png, size_t *length);
const char *mio_png_message(const mio_png *png);
int mio_png_warnings(const mio_png *png);
// The file offset libpng has read to: after mio_png_open, the first IDAT's data.
size_t mio_png_offset(const mio_png *png);

// ---- PNG image data through ISA-L (png_inflate.c) --------------------------------------------

typedef struct mio_pngfast mio_pngfast;

// The rows of an 8-bit, non-interlaced RGB (`channels` 3) or RGBA (4) PNG whose chunks before the
// image data libpng has read (mio_png_open): from `offset` (mio_png_offset), the first IDAT's
// data, in `data` or `fd` of `size` bytes. `chunk_limit` as mio_png_create's. NULL when it cannot
// start. Reads the file in pieces of at most 64 KiB; holds 17 rows (49 once it lends them) and
// ISA-L's state.
mio_pngfast *mio_pngfast_create(const uint8_t *data, int fd, size_t size, size_t offset, uint32_t width,
                                uint32_t height, int channels, size_t chunk_limit);
void mio_pngfast_destroy(mio_pngfast *png);
// What a mio_pngfast holds whatever the picture's width: ISA-L's inflate state (about 85 KiB)
// and the buffer a descriptor is read through.
size_t mio_pngfast_state_bytes(void);
// For `data` that is a file mapped at a page boundary (mmap): every `window` bytes read (a
// multiple of the page size), the pages before them are let go (MADV_DONTNEED), so that the
// file's pages the process holds stay within about `window` however long the file is.
void mio_pngfast_release_behind(mio_pngfast *png, size_t window);
// The bytes of `data` let go so far (tests).
size_t mio_pngfast_released(const mio_pngfast *png);
// Inflates and unfilters the next row into `row` (width * channels bytes). 0 on success.
int mio_pngfast_read_row(mio_pngfast *png, uint8_t *row);
// Before the first row: keep three batches of 16 rows, not one, so that a row given by
// mio_pngfast_next_row stays where it is while mio_pngfast_rows_kept more are given after it.
// 0 on success; -1 after the first row, when asked twice, or where memory for the batches is
// wanting (then the decoder goes on with one batch, or has failed if even that is wanting).
int mio_pngfast_lend_rows(mio_pngfast *png);
size_t mio_pngfast_rows_kept(const mio_pngfast *png);
// Inflates and unfilters the next row where it was inflated, and gives it (width * channels
// bytes, read-only): no copy. NULL on failure (mio_pngfast_message).
const uint8_t *mio_pngfast_next_row(mio_pngfast *png);
// After the last row: the zlib stream's end and Adler-32, then every chunk to IEND. 0 on success.
int mio_pngfast_finish(mio_pngfast *png);
const char *mio_pngfast_message(const mio_pngfast *png);

// ---- zlib ------------------------------------------------------------------------------------

// Inflates the zlib stream `in` into `out`, stopping when `out_capacity` bytes are out: the text of
// a PNG zTXt/iTXt chunk, read without letting a small chunk claim gigabytes. Returns the bytes
// written (out_capacity when the stream holds more), or -1 when the stream is not valid zlib
// before that.
long mio_inflate_bounded(const uint8_t *in, size_t in_length, uint8_t *out, size_t out_capacity);

// Counts the bytes a zlib stream (PNG's zTXt, iTXt, iCCP) inflates to, without keeping them.
typedef struct mio_inflate mio_inflate;

// NULL only when out of memory.
mio_inflate *mio_inflate_create(void);
void mio_inflate_destroy(mio_inflate *inflater);
// Feeds the next `length` bytes of the stream. `total` becomes the bytes inflated so far; past
// `cap` the count stops there (so it may end a little above `cap`). Returns 0 while the stream
// wants more input, 1 at its end, 2 once past `cap`, -1 when the stream is damaged; once
// nonzero, later calls only repeat it.
int mio_inflate_count(mio_inflate *inflater, const uint8_t *data, size_t length, uint64_t cap, uint64_t *total);

// ---- WebP ------------------------------------------------------------------------------------

// libwebp's incremental decoder, fed a step of the file at a time (pread from `fd`, or the
// bytes in memory read where they lie), at a scaled size libwebp's own rescaler makes as it
// decodes: the only picture held is the scaled RGB(A) output, the decoder's state and, read
// from a descriptor, the file (read into one buffer a step at a time). No longjmp: libwebp
// returns statuses.

typedef struct mio_webp mio_webp;

typedef struct {
    uint32_t width, height;       // the bitstream's
    int has_alpha;
    int has_animation;            // an ANIM or ANMF chunk: not decoded here
    int format;                   // 0 mixed or unknown, 1 lossy, 2 lossless
    size_t data_offset;           // the first image chunk (VP8, VP8L or ALPH)
    uint32_t output_width, output_height;  // after mio_webp_start
    int output_channels;          // after mio_webp_start: 3 (RGB) or 4 (RGBA, straight alpha)
} mio_webp_info;

// NULL only when out of memory.
mio_webp *mio_webp_create(void);
void mio_webp_destroy(mio_webp *webp);
// Walks the chunks before the image data (keeps an ICCP profile of at most `icc_limit` bytes)
// and reads the bitstream's features, from `data` or, when it is NULL, from `fd` (as
// mio_jpeg_open). An animation stops the walk with has_animation set. 0 on success.
int mio_webp_open(mio_webp *webp, const uint8_t *data, int fd, size_t size, size_t icc_limit, mio_webp_info *info);
// Starts the incremental decoder, scaled to `width` x `height` when that differs from the
// bitstream's size, to RGB (or RGBA with alpha); `threads`: a lossy bitstream's loop filter runs on
// a second thread (libwebp's use_threads; the pixels are the same). 0 on success.
int mio_webp_start(mio_webp *webp, uint32_t width, uint32_t height, int threads, mio_webp_info *info);
// Reads the next row, output_width * output_channels bytes, decoding more of the file as
// needed. 0 on success; -1 on a bitstream error or when the file ends first.
int mio_webp_read_row(mio_webp *webp, uint8_t *row);
// Decodes what is left of the file after the rows read. 0 when the bitstream ends complete.
int mio_webp_finish(mio_webp *webp);
// The ICCP chunk's profile, owned by the decoder, or NULL.
const uint8_t *mio_webp_icc(const mio_webp *webp, size_t *length);
const char *mio_webp_message(const mio_webp *webp);

// ---- TIFF ------------------------------------------------------------------------------------

// The first page of a TIFF through libtiff (TIFFClientOpenExt, libtiff 4.5), one row at a time:
// strips a row at a time (TIFFReadScanline: libtiff holds a strip's compressed bytes and its
// codec's state), separate planes a strip of each at a time, tiles a row of tiles (of each plane)
// at a time; YCbCr other than new-style JPEG, and old-style JPEG, through libtiff's RGBA interface
// a strip or a row of tiles at a time. Errors and warnings go to the handle's own handlers (thread safe), whose first
// message is kept; libtiff refuses any single allocation over `max_single_alloc`. No longjmp.

#define MIO_TIFF_MAX_PLANES 4

typedef struct mio_tiff mio_tiff;

typedef struct {
    uint32_t width, height;
    int bits, samples, sample_format, planar, compression, photometric;
    int extra_samples;            // the ExtraSamples tag's count
    int first_extra;              // its first value: 0 unspecified, 1 associated, 2 unassociated alpha
    int tiled;
    uint32_t rows_per_strip;      // strips (RowsPerStrip, or the whole page)
    uint32_t tile_width, tile_length;
    int output_channels;          // after mio_tiff_start: 3 (RGB) or 4 (RGBA)
    int output_bytes;             // after mio_tiff_start: 1, or 2 (native-endian 16-bit)
    int grey;                     // after mio_tiff_start: the rows are grey (R = G = B)
    size_t row_bytes;             // after mio_tiff_start
} mio_tiff_info;

// NULL only when out of memory.
mio_tiff *mio_tiff_create(void);
void mio_tiff_destroy(mio_tiff *tiff);
// Reads the first directory from `data` (mapped where it lies, not copied) or, when it is NULL,
// from `fd` (pread). 0 on success.
int mio_tiff_open(mio_tiff *tiff, const uint8_t *data, int fd, size_t size, size_t max_single_alloc, mio_tiff_info *info);
// Checks the layout (grey of 1, 2, 4, 8 or 16 bits with or without alpha; palette of up to 8
// bits; RGB(A) of 8 or 16 bits; JPEG's YCbCr converted to RGB by libjpeg; grey or RGB(A) of
// signed 8 or 16, unsigned 24, or 16-, 32- or 64-bit floating-point samples; three 8-bit samples
// of YCbCr or old-style JPEG, through the RGBA interface) and sets up the buffers; fills the
// output fields of `info`. 0 on success.
int mio_tiff_start(mio_tiff *tiff, mio_tiff_info *info);
// Reads the next row as RGB(A), `info.row_bytes` bytes: grey replicated (min-is-white inverted,
// fewer than 8 bits scaled to 8), a palette's colours at 16 bits, alpha as stored; signed, 24-bit
// and floating-point samples as tiff_rows_samples.c says (8 bits from signed 8, else 16). 0 on success;
// -1 on an error, and when libtiff reported one while reading the row.
int mio_tiff_read_row(mio_tiff *tiff, uint8_t *row);
// Makes `row` the next row mio_tiff_read_row reads: the first row of a strip of a contiguous
// page read a strip row at a time (libtiff starts that strip afresh), so that two handles on one
// file can decode strips apart. 0 on success; -1 for any other row or layout.
int mio_tiff_seek_row(mio_tiff *tiff, uint32_t row);
// The ICC profile (TIFFTAG_ICCPROFILE), owned by libtiff, or NULL.
const uint8_t *mio_tiff_icc(mio_tiff *tiff, size_t *length);
const char *mio_tiff_message(const mio_tiff *tiff);
int mio_tiff_warnings(const mio_tiff *tiff);
int mio_tiff_errors(const mio_tiff *tiff);
// Animations: GIF (giflib) and animated WebP (libwebpdemux, libwebpmux), in and out.
#include "CAnimation.h"

#endif
