// GIF frames written through giflib, each only where it changed (see CAnimation.h).

#include "CAnimation.h"

#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mio_gif_writer {
    GifFileType *gif;
    uint32_t width, height;
    uint32_t *shown;              // what the viewer shows after the last frame: 0 transparent, else 0xFF<<24 | rgb
    uint32_t *next;               // this frame, in the same form
    uint8_t *red, *green, *blue, *quantized;  // the painted pixels, for the quantizer
    GifPixelType *line;
    uint8_t *bytes;
    size_t length, capacity;
    int write_failed;
    int closed;
    char message[256];
};

static void keep_message(mio_gif_writer *writer, const char *text) {
    if (writer->message[0] == 0) snprintf(writer->message, sizeof writer->message, "%s", text);
}

static int keep_error(mio_gif_writer *writer, const char *what) {
    const char *reason = writer->gif != NULL ? GifErrorString(writer->gif->Error) : NULL;
    char text[200];
    snprintf(text, sizeof text, "giflib: %s: %s", what, reason != NULL ? reason : "failed");
    keep_message(writer, text);
    return -1;
}

static int write_output(GifFileType *file, const GifByteType *data, int length) {
    mio_gif_writer *writer = file->UserData;
    if (length <= 0) return 0;
    if (writer->length + (size_t)length > writer->capacity) {
        size_t capacity = writer->capacity > 0 ? writer->capacity * 2 : 4096;
        while (capacity < writer->length + (size_t)length) capacity *= 2;
        uint8_t *grown = realloc(writer->bytes, capacity);
        if (grown == NULL) {
            writer->write_failed = 1;
            return 0;
        }
        writer->bytes = grown;
        writer->capacity = capacity;
    }
    memcpy(writer->bytes + writer->length, data, (size_t)length);
    writer->length += (size_t)length;
    return length;
}

static uint32_t pixel_at(const uint8_t *rgba, size_t i) {
    const uint8_t *p = rgba + i * 4;
    return p[3] < 128 ? 0 : 0xFF000000u | (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

mio_gif_writer *mio_gif_writer_create(uint32_t width, uint32_t height, int loop_count) {
    if (width == 0 || height == 0 || width > 65535 || height > 65535) return NULL;
    mio_gif_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) return NULL;
    size_t pixels = (size_t)width * height;
    writer->width = width;
    writer->height = height;
    writer->shown = calloc(pixels, sizeof(uint32_t));
    writer->next = malloc(pixels * sizeof(uint32_t));
    writer->red = malloc(pixels);
    writer->green = malloc(pixels);
    writer->blue = malloc(pixels);
    writer->quantized = malloc(pixels);
    writer->line = malloc(width);
    int error = 0;
    if (writer->shown != NULL && writer->next != NULL && writer->red != NULL && writer->green != NULL
        && writer->blue != NULL && writer->quantized != NULL && writer->line != NULL) {
        writer->gif = EGifOpen(writer, write_output, &error);
    }
    int ok = writer->gif != NULL;
    if (ok) {
        EGifSetGifVersion(writer->gif, true);
        ok = EGifPutScreenDesc(writer->gif, (int)width, (int)height, 8, 0, NULL) == GIF_OK;
    }
    // loop_count is how many times the animation plays (0 forever); the NETSCAPE2.0 extension
    // counts the repetitions after the first, and a GIF without it plays once.
    if (ok && loop_count != 1) {
        int repeats = loop_count <= 0 ? 0 : loop_count - 1;
        uint8_t loop[3] = {1, (uint8_t)(repeats & 0xFF), (uint8_t)((repeats >> 8) & 0xFF)};
        ok = EGifPutExtensionLeader(writer->gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK
            && EGifPutExtensionBlock(writer->gif, 11, "NETSCAPE2.0") == GIF_OK
            && EGifPutExtensionBlock(writer->gif, 3, loop) == GIF_OK
            && EGifPutExtensionTrailer(writer->gif) == GIF_OK;
    }
    if (!ok || writer->write_failed) {
        mio_gif_writer_destroy(writer);
        return NULL;
    }
    return writer;
}

void mio_gif_writer_destroy(mio_gif_writer *writer) {
    if (writer == NULL) return;
    if (writer->gif != NULL && !writer->closed) {
        int error = 0;
        EGifCloseFile(writer->gif, &error);  // frees the file; the bytes are thrown away with the writer
    }
    free(writer->shown);
    free(writer->next);
    free(writer->red);
    free(writer->green);
    free(writer->blue);
    free(writer->quantized);
    free(writer->line);
    free(writer->bytes);
    free(writer);
}

const char *mio_gif_writer_message(const mio_gif_writer *writer) { return writer->message; }

// The exact colours of the `count` painted pixels when there are at most 255 of them: their
// palette in `colors`, each pixel's index in `quantized`. Returns the number of colours, or -1.
static int exact_palette(mio_gif_writer *writer, size_t count, GifColorType *colors) {
    enum { SLOTS = 1024 };
    uint32_t keys[SLOTS];
    int16_t values[SLOTS];
    memset(values, -1, sizeof values);
    int used = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t key = (uint32_t)writer->red[i] << 16 | (uint32_t)writer->green[i] << 8 | writer->blue[i];
        size_t slot = (key * 2654435761u) >> 22;
        while (values[slot] >= 0 && keys[slot] != key) slot = (slot + 1) & (SLOTS - 1);
        if (values[slot] < 0) {
            if (used == 255) return -1;
            keys[slot] = key;
            values[slot] = (int16_t)used;
            colors[used].Red = writer->red[i];
            colors[used].Green = writer->green[i];
            colors[used].Blue = writer->blue[i];
            used++;
        }
        writer->quantized[i] = (uint8_t)values[slot];
    }
    return used;
}

// The palette index nearest to (r, g, b); `hint` a good first guess (squared distances).
static int nearest(const GifColorType *colors, int count, int r, int g, int b, int hint) {
    int best = hint, dr = r - colors[hint].Red, dg = g - colors[hint].Green, db = b - colors[hint].Blue;
    int best_distance = dr * dr + dg * dg + db * db;
    for (int i = 0; i < count && best_distance > 0; i++) {
        dr = r - colors[i].Red;
        int distance = dr * dr;
        if (distance >= best_distance) continue;
        dg = g - colors[i].Green;
        db = b - colors[i].Blue;
        distance += dg * dg + db * db;
        if (distance < best_distance) best_distance = distance, best = i;
    }
    return best;
}

// Refines giflib's median cut, which works on 5 bits a channel: each colour moved to the mean of
// the pixels nearest to it at 8 bits, then every pixel mapped to its nearest colour (one step of
// k-means; on two photo animations it took the frames from 29-30 dB to 35-38 dB PSNR).
static void refine_palette(mio_gif_writer *writer, size_t count, GifColorType *colors, int used) {
    uint32_t sums[256][4];
    memset(sums, 0, sizeof sums);
    for (size_t i = 0; i < count; i++) {
        int index = nearest(colors, used, writer->red[i], writer->green[i], writer->blue[i], writer->quantized[i] < used ? writer->quantized[i] : 0);
        writer->quantized[i] = (uint8_t)index;
        sums[index][0] += writer->red[i], sums[index][1] += writer->green[i], sums[index][2] += writer->blue[i], sums[index][3] += 1;
    }
    for (int c = 0; c < used; c++) {
        if (sums[c][3] == 0) continue;
        colors[c].Red = (GifByteType)((sums[c][0] + sums[c][3] / 2) / sums[c][3]);
        colors[c].Green = (GifByteType)((sums[c][1] + sums[c][3] / 2) / sums[c][3]);
        colors[c].Blue = (GifByteType)((sums[c][2] + sums[c][3] / 2) / sums[c][3]);
    }
    for (size_t i = 0; i < count; i++) {
        writer->quantized[i] = (uint8_t)nearest(colors, used, writer->red[i], writer->green[i], writer->blue[i], writer->quantized[i]);
    }
}

int mio_gif_writer_add(mio_gif_writer *writer, const uint8_t *rgba, const uint8_t *next_rgba, int delay_centiseconds) {
    if (writer->closed) return -1;
    size_t pixels = (size_t)writer->width * writer->height;
    uint32_t left = writer->width, top = writer->height, right = 0, bottom = 0;
    // The pixels the next frame shows transparent where this one paints: this frame's rectangle
    // covers them, and is disposed to the background (cleared) after it.
    uint32_t clear_left = writer->width, clear_top = writer->height, clear_right = 0, clear_bottom = 0;
    for (uint32_t y = 0; y < writer->height; y++) {
        for (uint32_t x = 0; x < writer->width; x++) {
            size_t i = (size_t)y * writer->width + x;
            uint32_t value = pixel_at(rgba, i);
            writer->next[i] = value;
            if (value != writer->shown[i]) {
                if (x < left) left = x;
                if (x >= right) right = x + 1;
                if (y < top) top = y;
                if (y >= bottom) bottom = y + 1;
            }
            if (next_rgba != NULL && value != 0 && pixel_at(next_rgba, i) == 0) {
                if (x < clear_left) clear_left = x;
                if (x >= clear_right) clear_right = x + 1;
                if (y < clear_top) clear_top = y;
                if (y >= clear_bottom) clear_bottom = y + 1;
            }
        }
    }
    int clear_after = clear_right > 0;
    if (clear_after) {
        if (clear_left < left) left = clear_left;
        if (clear_top < top) top = clear_top;
        if (clear_right > right) right = clear_right;
        if (clear_bottom > bottom) bottom = clear_bottom;
    } else if (right == 0) {
        left = 0, top = 0, right = 1, bottom = 1;  // nothing changed: one transparent pixel
    }
    // The painted pixels: changed and not transparent (a pixel that turns transparent was cleared
    // by the previous frame's disposal, so it is unchanged here).
    size_t count = 0;
    for (uint32_t y = top; y < bottom; y++) {
        for (uint32_t x = left; x < right; x++) {
            size_t i = (size_t)y * writer->width + x;
            uint32_t value = writer->next[i];
            if (value == 0 || value == writer->shown[i]) continue;
            writer->red[count] = (uint8_t)(value >> 16);
            writer->green[count] = (uint8_t)(value >> 8);
            writer->blue[count] = (uint8_t)value;
            count++;
        }
    }
    GifColorType colors[256];
    memset(colors, 0, sizeof colors);
    int used = count > 0 ? exact_palette(writer, count, colors) : 0;
    if (used < 0) {
        int size = 255;
        if (GifQuantizeBuffer((unsigned)count, 1, &size, writer->red, writer->green, writer->blue,
                              writer->quantized, colors) == GIF_ERROR) {
            keep_message(writer, "giflib: the colours could not be quantized");
            return -1;
        }
        used = size;
        if (used > 0) refine_palette(writer, count, colors, used);
    }
    int transparent = used;  // the index after the colours
    int mapSize = 2;
    while (mapSize < used + 1) mapSize *= 2;
    ColorMapObject *map = GifMakeMapObject(mapSize, colors);
    if (map == NULL) {
        keep_message(writer, "giflib: out of memory for a colour map");
        return -1;
    }
    GraphicsControlBlock control = {clear_after ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT, false,
                                    delay_centiseconds, transparent};
    GifByteType extension[4];
    EGifGCBToExtension(&control, extension);
    int status = EGifPutExtension(writer->gif, GRAPHICS_EXT_FUNC_CODE, 4, extension) == GIF_OK
        ? EGifPutImageDesc(writer->gif, (int)left, (int)top, (int)(right - left), (int)(bottom - top), false, map) : GIF_ERROR;
    GifFreeMapObject(map);
    if (status != GIF_OK) return keep_error(writer, "frame header");
    size_t painted = 0;
    for (uint32_t y = top; y < bottom; y++) {
        for (uint32_t x = left; x < right; x++) {
            size_t i = (size_t)y * writer->width + x;
            uint32_t value = writer->next[i];
            writer->line[x - left] = (value == 0 || value == writer->shown[i])
                ? (GifPixelType)transparent : writer->quantized[painted++];
        }
        if (EGifPutLine(writer->gif, writer->line, (int)(right - left)) != GIF_OK) return keep_error(writer, "image data");
    }
    memcpy(writer->shown, writer->next, pixels * sizeof(uint32_t));
    if (clear_after) {
        for (uint32_t y = top; y < bottom; y++) {
            memset(writer->shown + (size_t)y * writer->width + left, 0, (size_t)(right - left) * sizeof(uint32_t));
        }
    }
    if (writer->write_failed) {
        keep_message(writer, "out of memory for the output");
        return -1;
    }
    return 0;
}

int mio_gif_writer_finish(mio_gif_writer *writer, const uint8_t **bytes, size_t *length) {
    if (writer->closed) return -1;
    int error = 0;
    writer->closed = 1;
    if (EGifCloseFile(writer->gif, &error) != GIF_OK) {
        const char *reason = GifErrorString(error);
        char text[200];
        snprintf(text, sizeof text, "giflib: closing: %s", reason != NULL ? reason : "failed");
        keep_message(writer, text);
        return -1;
    }
    if (writer->write_failed) {
        keep_message(writer, "out of memory for the output");
        return -1;
    }
    *bytes = writer->bytes;
    *length = writer->length;
    return 0;
}
