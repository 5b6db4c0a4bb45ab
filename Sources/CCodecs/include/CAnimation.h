#ifndef CANIMATION_H
#define CANIMATION_H

// Animations, one frame at a time: GIF through giflib (DGifOpen over a read callback, EGifOpen
// over a write callback), WebP through libwebp's WebPAnimDecoder (libwebpdemux) and
// WebPAnimEncoder (libwebpmux). Neither library uses setjmp; C here because giflib's input and
// output are callbacks, and so that each library's failures become one status and one message.
// Frames are handed over as canvases of straight (not premultiplied) RGBA, 4 bytes a pixel,
// owned by the decoder and valid until its next call.

#include <stddef.h>
#include <stdint.h>

// ---- GIF frames (giflib) ---------------------------------------------------------------------

typedef struct mio_gif mio_gif;

// Opens the GIF in `data` (kept, not copied) or, when `data` is NULL, in the file `fd` (read with
// pread from offset 0), to be composited on a canvas of `width` x `height` (frames reaching past
// it are clipped). NULL when out of memory; otherwise check mio_gif_failed.
mio_gif *mio_gif_open(const uint8_t *data, int fd, size_t size, uint32_t width, uint32_t height);
int mio_gif_failed(const mio_gif *gif);
void mio_gif_close(mio_gif *gif);
// Decodes the next frame onto the canvas, after the previous frame's disposal (none; background:
// its rectangle cleared to transparent, as browsers do; previous: the canvas restored), and points
// `canvas` at it. 1: a frame; 0: no more frames (the trailer, or the end of the data between
// frames); -1: an error (mio_gif_message).
int mio_gif_next(mio_gif *gif, const uint8_t **canvas, int *delay_centiseconds);
// The NETSCAPE2.0 extension's count seen so far (repetitions after the first play; 0 forever;
// read with the frames), or -1 when none.
int mio_gif_loop_count(const mio_gif *gif);
const char *mio_gif_message(const mio_gif *gif);

// ---- GIF writer (giflib) ---------------------------------------------------------------------

typedef struct mio_gif_writer mio_gif_writer;

// A GIF89a of `width` x `height` that plays `loop_count` times (0 forever): a NETSCAPE2.0
// extension counting the repetitions after the first play (`loop_count` - 1; 0 forever), none
// when it is 1 (a GIF without one plays once). NULL when out of memory or giflib fails (nothing to report).
mio_gif_writer *mio_gif_writer_create(uint32_t width, uint32_t height, int loop_count);
void mio_gif_writer_destroy(mio_gif_writer *writer);
// Adds a frame (RGBA, width * height * 4; alpha below 128 is transparent), `next_rgba` the frame
// after it (NULL for the last). Only the rectangle that changed since the previous frame is
// written, its unchanged pixels transparent; a frame of at most 255 colours keeps them exactly,
// others are quantized (giflib's median cut). When the next frame shows pixels transparent that
// this one paints, this one's rectangle covers them too and is disposed to the background (cleared)
// after it. 0 on success.
int mio_gif_writer_add(mio_gif_writer *writer, const uint8_t *rgba, const uint8_t *next_rgba, int delay_centiseconds);
// Ends the file and hands over its bytes (owned by the writer). 0 on success.
int mio_gif_writer_finish(mio_gif_writer *writer, const uint8_t **bytes, size_t *length);
const char *mio_gif_writer_message(const mio_gif_writer *writer);

// ---- WebP animation (libwebpdemux, libwebpmux) -----------------------------------------------

typedef struct mio_webp_anim mio_webp_anim;

typedef struct {
    uint32_t canvas_width, canvas_height;
    uint32_t loop_count;          // 0: forever
    uint32_t frame_count;
} mio_webp_anim_info;

// Opens the animation in `data` (kept, not copied: libwebp's demuxer needs the whole file).
// NULL when libwebp refuses it (or is out of memory).
mio_webp_anim *mio_webp_anim_open(const uint8_t *data, size_t size, mio_webp_anim_info *info);
void mio_webp_anim_close(mio_webp_anim *anim);
// The next frame composited on the canvas (blend and dispose as the file says), and the time at
// which it ends in milliseconds. 1: a frame; 0: no more; -1: a decoding error.
int mio_webp_anim_next(mio_webp_anim *anim, const uint8_t **canvas, int *end_milliseconds);

typedef struct mio_webp_anim_writer mio_webp_anim_writer;

// An animated WebP of `width` x `height`, lossy at `quality` (0...100) with its alpha lossless;
// libwebp chooses key frames and sub-frame rectangles itself (kmin/kmax defaults). NULL on failure.
mio_webp_anim_writer *mio_webp_anim_writer_create(uint32_t width, uint32_t height, int loop_count, float quality);
void mio_webp_anim_writer_destroy(mio_webp_anim_writer *writer);
// Adds a frame (RGBA) shown from `start_milliseconds`. 0 on success.
int mio_webp_anim_writer_add(mio_webp_anim_writer *writer, const uint8_t *rgba, int start_milliseconds);
// Ends the animation at `end_milliseconds` and hands over its bytes (owned by the writer).
int mio_webp_anim_writer_finish(mio_webp_anim_writer *writer, int end_milliseconds, const uint8_t **bytes, size_t *length);
const char *mio_webp_anim_writer_message(const mio_webp_anim_writer *writer);

#endif
