// GIF frames through giflib, composited one at a time (see CAnimation.h).

#include "CAnimation.h"

#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mio_gif {
    const uint8_t *data;
    int fd;
    size_t size;
    size_t offset;                // bytes handed to giflib so far
    GifFileType *gif;
    uint32_t width, height;       // the canvas
    uint8_t *canvas;              // RGBA
    uint8_t *saved;               // the canvas before a frame disposed to "previous"
    GifPixelType *line;
    size_t line_capacity;
    int frames;
    int loop_count;
    // The previous frame's disposal and rectangle on the canvas (clipped), applied before the next.
    int dispose;
    uint32_t left, top, right, bottom;
    char message[256];
};

static void keep_message(mio_gif *gif, const char *text) {
    if (gif->message[0] == 0) snprintf(gif->message, sizeof gif->message, "%s", text);
}

static void keep_error(mio_gif *gif, const char *what) {
    int code = gif->gif != NULL ? gif->gif->Error : 0;
    const char *reason = GifErrorString(code);
    char text[200];
    snprintf(text, sizeof text, "giflib: %s: %s", what, reason != NULL ? reason : "unknown error");
    keep_message(gif, text);
}

static int read_input(GifFileType *file, GifByteType *out, int length) {
    mio_gif *gif = file->UserData;
    if (length <= 0) return 0;
    size_t wanted = (size_t)length;
    if (gif->offset >= gif->size) return 0;
    if (wanted > gif->size - gif->offset) wanted = gif->size - gif->offset;
    if (gif->data != NULL) {
        memcpy(out, gif->data + gif->offset, wanted);
        gif->offset += wanted;
        return (int)wanted;
    }
    size_t done = 0;
    while (done < wanted) {
        ssize_t got = pread(gif->fd, out + done, wanted - done, (off_t)(gif->offset + done));
        if (got <= 0) break;
        done += (size_t)got;
    }
    gif->offset += done;
    return (int)done;
}

mio_gif *mio_gif_open(const uint8_t *data, int fd, size_t size, uint32_t width, uint32_t height) {
    mio_gif *gif = calloc(1, sizeof *gif);
    if (gif == NULL) return NULL;
    gif->data = data;
    gif->fd = fd;
    gif->size = size;
    gif->width = width;
    gif->height = height;
    gif->loop_count = -1;
    if (width == 0 || height == 0 || (size_t)width > SIZE_MAX / 4 / height) {
        keep_message(gif, "the canvas has no pixels or too many");
        return gif;
    }
    gif->canvas = calloc((size_t)width * height, 4);
    if (gif->canvas == NULL) {
        keep_message(gif, "out of memory for the canvas");
        return gif;
    }
    int error = 0;
    gif->gif = DGifOpen(gif, read_input, &error);
    if (gif->gif == NULL) {
        const char *reason = GifErrorString(error);
        char text[200];
        snprintf(text, sizeof text, "giflib: %s", reason != NULL ? reason : "cannot open");
        keep_message(gif, text);
    }
    return gif;
}

int mio_gif_failed(const mio_gif *gif) {
    return gif->gif == NULL || gif->canvas == NULL;
}

void mio_gif_close(mio_gif *gif) {
    if (gif == NULL) return;
    if (gif->gif != NULL) {
        int error = 0;
        DGifCloseFile(gif->gif, &error);  // frees the file whatever it returns; nothing left to report
    }
    free(gif->canvas);
    free(gif->saved);
    free(gif->line);
    free(gif);
}

int mio_gif_loop_count(const mio_gif *gif) { return gif->loop_count; }

const char *mio_gif_message(const mio_gif *gif) { return gif->message; }

// Applies the previous frame's disposal to the canvas.
static void dispose_previous(mio_gif *gif) {
    if (gif->dispose == DISPOSE_BACKGROUND) {
        for (uint32_t y = gif->top; y < gif->bottom; y++) {
            memset(gif->canvas + ((size_t)y * gif->width + gif->left) * 4, 0, (size_t)(gif->right - gif->left) * 4);
        }
    } else if (gif->dispose == DISPOSE_PREVIOUS && gif->saved != NULL) {
        memcpy(gif->canvas, gif->saved, (size_t)gif->width * gif->height * 4);
    }
    gif->dispose = DISPOSAL_UNSPECIFIED;
}

// Reads an extension's sub-blocks: a graphic control block into `control`, a NETSCAPE2.0 loop count.
static int read_extension(mio_gif *gif, GraphicsControlBlock *control) {
    int code = 0;
    GifByteType *block = NULL;
    if (DGifGetExtension(gif->gif, &code, &block) == GIF_ERROR) {
        keep_error(gif, "extension");
        return -1;
    }
    int netscape = 0;
    if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL && block[0] >= 4) {
        if (DGifExtensionToGCB(4, block + 1, control) == GIF_ERROR) {
            keep_message(gif, "giflib: a graphic control extension it cannot read");
            return -1;
        }
    } else if (code == APPLICATION_EXT_FUNC_CODE && block != NULL && block[0] >= 11 && memcmp(block + 1, "NETSCAPE2.0", 11) == 0) {
        netscape = 1;
    }
    while (block != NULL) {
        if (DGifGetExtensionNext(gif->gif, &block) == GIF_ERROR) {
            keep_error(gif, "extension");
            return -1;
        }
        if (netscape && block != NULL && block[0] >= 3 && block[1] == 1) {
            gif->loop_count = block[2] | block[3] << 8;
            netscape = 0;
        }
    }
    return 0;
}

// Decodes the image whose descriptor was just read onto the canvas.
static int read_image(mio_gif *gif, const GraphicsControlBlock *control) {
    GifFileType *file = gif->gif;
    const GifImageDesc *image = &file->Image;
    const ColorMapObject *map = image->ColorMap != NULL ? image->ColorMap : file->SColorMap;
    size_t width = (size_t)(image->Width > 0 ? image->Width : 0);
    size_t height = (size_t)(image->Height > 0 ? image->Height : 0);
    if (width == 0 || height == 0) {
        keep_message(gif, "a GIF frame has no pixels");
        return -1;
    }
    if (width > gif->line_capacity) {
        free(gif->line);
        gif->line = malloc(width);
        if (gif->line == NULL) {
            gif->line_capacity = 0;
            keep_message(gif, "out of memory for a row");
            return -1;
        }
        gif->line_capacity = width;
    }
    if (control->DisposalMode == DISPOSE_PREVIOUS) {
        if (gif->saved == NULL) gif->saved = malloc((size_t)gif->width * gif->height * 4);
        if (gif->saved == NULL) {
            keep_message(gif, "out of memory for the saved canvas");
            return -1;
        }
        memcpy(gif->saved, gif->canvas, (size_t)gif->width * gif->height * 4);
    }
    size_t left = (size_t)(image->Left > 0 ? image->Left : 0), top = (size_t)(image->Top > 0 ? image->Top : 0);
    // Interlaced rows come in four passes: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
    static const size_t starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    int passes = image->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        size_t start = image->Interlace ? starts[pass] : 0, step = image->Interlace ? steps[pass] : 1;
        for (size_t row = start; row < height; row += step) {
            if (DGifGetLine(file, gif->line, (int)width) == GIF_ERROR) {
                keep_error(gif, "image data");
                return -1;
            }
            size_t y = top + row;
            if (y >= gif->height) continue;
            uint8_t *out = gif->canvas + (y * gif->width) * 4;
            for (size_t x = 0; x < width && left + x < gif->width; x++) {
                int index = gif->line[x];
                if (index == control->TransparentColor) continue;
                uint8_t *pixel = out + (left + x) * 4;
                if (map != NULL && index < map->ColorCount) {
                    pixel[0] = map->Colors[index].Red;
                    pixel[1] = map->Colors[index].Green;
                    pixel[2] = map->Colors[index].Blue;
                } else {
                    // No colour table, or an index past it: black, as browsers show it.
                    pixel[0] = pixel[1] = pixel[2] = 0;
                }
                pixel[3] = 255;
            }
        }
    }
    gif->dispose = control->DisposalMode;
    gif->left = (uint32_t)(left < gif->width ? left : gif->width);
    gif->top = (uint32_t)(top < gif->height ? top : gif->height);
    gif->right = (uint32_t)(left + width < gif->width ? left + width : gif->width);
    gif->bottom = (uint32_t)(top + height < gif->height ? top + height : gif->height);
    return 0;
}

int mio_gif_next(mio_gif *gif, const uint8_t **canvas, int *delay_centiseconds) {
    if (mio_gif_failed(gif)) return -1;
    dispose_previous(gif);
    GraphicsControlBlock control = {DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
    for (;;) {
        GifRecordType type = UNDEFINED_RECORD_TYPE;
        if (DGifGetRecordType(gif->gif, &type) == GIF_ERROR) {
            // The data ends, or a byte starts no block, between frames: as a viewer, show what came.
            if (gif->frames > 0) return 0;
            keep_error(gif, "record");
            return -1;
        }
        switch (type) {
        case EXTENSION_RECORD_TYPE:
            if (read_extension(gif, &control) != 0) return -1;
            break;
        case IMAGE_DESC_RECORD_TYPE:
            if (DGifGetImageDesc(gif->gif) == GIF_ERROR) {
                keep_error(gif, "image descriptor");
                return -1;
            }
            if (read_image(gif, &control) != 0) return -1;
            gif->frames++;
            *canvas = gif->canvas;
            *delay_centiseconds = control.DelayTime;
            return 1;
        case TERMINATE_RECORD_TYPE:
            return 0;
        default:
            if (gif->frames > 0) return 0;
            keep_message(gif, "giflib: an unknown record");
            return -1;
        }
    }
}
