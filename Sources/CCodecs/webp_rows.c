// WebP rows through libwebp's incremental decoder (see CCodecs.h).

#include "CCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <webp/decode.h>

// How much of the file each step hands the decoder: enough that the calls cost nothing next to
// the decoding, small enough that rows reach the resampler as the data is decoded.
#define MIO_WEBP_STEP (256 << 10)

struct mio_webp {
    const uint8_t *data;
    int fd;
    size_t size;
    size_t fed;                   // bytes handed to the decoder so far
    uint8_t *copy;                // fd input: the file, read into it a step at a time
    WebPDecoderConfig config;
    WebPIDecoder *idec;
    VP8StatusCode status;
    int channels;
    int rows_ready;               // rows the decoder has finished
    int rows_read;
    uint8_t *icc;
    size_t icc_length;
    char message[256];
};

static void keep_message(mio_webp *webp, const char *text) {
    if (webp->message[0] == 0) snprintf(webp->message, sizeof webp->message, "%s", text);
}

static const char *status_text(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OK: return "ok";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "not enough data";
    }
    return "unknown status";
}

// Copies `length` bytes at `offset` from the input: 0 when all of them are there.
static int fetch(mio_webp *webp, size_t offset, uint8_t *out, size_t length) {
    if (offset > webp->size || length > webp->size - offset) return -1;
    if (webp->data != NULL) {
        memcpy(out, webp->data + offset, length);
        return 0;
    }
    size_t done = 0;
    while (done < length) {
        ssize_t got = pread(webp->fd, out + done, length - done, (off_t)(offset + done));
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return 0;
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

mio_webp *mio_webp_create(void) {
    mio_webp *webp = calloc(1, sizeof *webp);
    if (webp == NULL) return NULL;
    if (!WebPInitDecoderConfig(&webp->config)) {
        free(webp);
        return NULL;
    }
    return webp;
}

void mio_webp_destroy(mio_webp *webp) {
    if (webp == NULL) return;
    if (webp->idec != NULL) WebPIDelete(webp->idec);
    WebPFreeDecBuffer(&webp->config.output);
    free(webp->copy);
    free(webp->icc);
    free(webp);
}

// The chunks before the image data: VP8X's flags and an ICCP chunk (kept when at most
// `icc_limit` bytes). Stops at the first image chunk (VP8, VP8L, ALPH) or ANIM.
static int walk_chunks(mio_webp *webp, size_t icc_limit, mio_webp_info *info) {
    uint8_t head[12];
    if (fetch(webp, 0, head, 12) != 0 || memcmp(head, "RIFF", 4) != 0 || memcmp(head + 8, "WEBP", 4) != 0) {
        keep_message(webp, "not a RIFF WebP file");
        return -1;
    }
    size_t offset = 12;
    for (int count = 0; count < 64; count++) {
        uint8_t chunk[8];
        if (fetch(webp, offset, chunk, 8) != 0) {
            keep_message(webp, "the file ends before the image data");
            return -1;
        }
        uint32_t length = le32(chunk + 4);
        if (memcmp(chunk, "VP8 ", 4) == 0 || memcmp(chunk, "VP8L", 4) == 0 || memcmp(chunk, "ALPH", 4) == 0) {
            info->data_offset = offset;
            return 0;
        }
        if (memcmp(chunk, "ANIM", 4) == 0 || memcmp(chunk, "ANMF", 4) == 0) {
            info->has_animation = 1;
            return 0;
        }
        if (memcmp(chunk, "ICCP", 4) == 0 && webp->icc == NULL) {
            if (length > icc_limit) {
                keep_message(webp, "an ICC profile over the limit");
                return -1;
            }
            webp->icc = malloc(length > 0 ? length : 1);
            if (webp->icc == NULL || fetch(webp, offset + 8, webp->icc, length) != 0) {
                keep_message(webp, "the ICC profile could not be read");
                return -1;
            }
            webp->icc_length = length;
        }
        offset += 8 + (size_t)length + (length & 1);
    }
    keep_message(webp, "too many chunks before the image data");
    return -1;
}

int mio_webp_open(mio_webp *webp, const uint8_t *data, int fd, size_t size, size_t icc_limit, mio_webp_info *info) {
    memset(info, 0, sizeof *info);
    webp->data = data;
    webp->fd = fd;
    webp->size = size;
    if (walk_chunks(webp, icc_limit, info) != 0) return -1;
    if (info->has_animation) return 0;
    // The features need the headers up to the bitstream's own (an ALPH chunk before VP8 included).
    size_t prefix = info->data_offset + 64;
    if (prefix > size) prefix = size;
    uint8_t *head = NULL;
    if (data != NULL) {
        head = (uint8_t *)data;
    } else {
        head = malloc(prefix);
        if (head == NULL || fetch(webp, 0, head, prefix) != 0) {
            free(head);
            keep_message(webp, "the header could not be read");
            return -1;
        }
    }
    WebPBitstreamFeatures *features = &webp->config.input;
    VP8StatusCode status = WebPGetFeatures(head, data != NULL ? size : prefix, features);
    if (status == VP8_STATUS_NOT_ENOUGH_DATA && data == NULL && info->data_offset > 0) {
        // An ALPH chunk before the VP8 one: VP8's header lies past it.
        uint8_t chunk[8];
        if (fetch(webp, info->data_offset, chunk, 8) == 0 && memcmp(chunk, "ALPH", 4) == 0) {
            size_t alpha = 8 + (size_t)le32(chunk + 4);
            alpha += alpha & 1;
            size_t longer = info->data_offset + alpha + 64;
            if (longer > size) longer = size;
            uint8_t *more = realloc(head, longer);
            if (more != NULL) {
                head = more;
                if (fetch(webp, 0, head, longer) == 0) status = WebPGetFeatures(head, longer, features);
            }
        }
    }
    if (data == NULL) free(head);
    if (status != VP8_STATUS_OK) {
        keep_message(webp, status_text(status));
        return -1;
    }
    info->width = (uint32_t)features->width;
    info->height = (uint32_t)features->height;
    info->has_alpha = features->has_alpha;
    info->has_animation = features->has_animation;
    info->format = features->format;
    return 0;
}

int mio_webp_start(mio_webp *webp, uint32_t width, uint32_t height, int threads, mio_webp_info *info) {
    WebPDecoderConfig *config = &webp->config;
    config->options.use_threads = threads ? 1 : 0;
    webp->channels = info->has_alpha ? 4 : 3;
    config->output.colorspace = info->has_alpha ? MODE_RGBA : MODE_RGB;
    if (width != info->width || height != info->height) {
        config->options.use_scaling = 1;
        config->options.scaled_width = (int)width;
        config->options.scaled_height = (int)height;
    }
    webp->idec = WebPIDecode(NULL, 0, config);
    if (webp->idec == NULL) {
        keep_message(webp, "libwebp could not start");
        return -1;
    }
    if (webp->data == NULL) {
        // One buffer of the file's size, filled as the decode goes: libwebp's own appending
        // buffer would grow by a copy at every step (twice the data at each, and quadratic).
        webp->copy = malloc(webp->size > 0 ? webp->size : 1);
        if (webp->copy == NULL) {
            keep_message(webp, "out of memory");
            return -1;
        }
    }
    webp->status = VP8_STATUS_SUSPENDED;
    info->output_width = width;
    info->output_height = height;
    info->output_channels = webp->channels;
    return 0;
}

// Hands the decoder the next step of the file and notes the rows it has finished. 0 while the
// decode goes on or is done; -1 on an error or when the file ends first.
static int step(mio_webp *webp) {
    if (webp->status == VP8_STATUS_OK) return 0;
    if (webp->fed >= webp->size) {
        keep_message(webp, "not enough data: the file ends before the image does");
        return -1;
    }
    size_t length = webp->size - webp->fed;
    if (length > MIO_WEBP_STEP) length = MIO_WEBP_STEP;
    if (webp->data == NULL && fetch(webp, webp->fed, webp->copy + webp->fed, length) != 0) {
        keep_message(webp, "the file could not be read");
        return -1;
    }
    webp->fed += length;
    // The data mapped, not copied: libwebp reads it where it lies, each call seeing more of it.
    webp->status = WebPIUpdate(webp->idec, webp->data != NULL ? webp->data : webp->copy, webp->fed);
    if (webp->status != VP8_STATUS_OK && webp->status != VP8_STATUS_SUSPENDED) {
        keep_message(webp, status_text(webp->status));
        return -1;
    }
    int last_y = 0, width = 0, height = 0, stride = 0;
    if (WebPIDecGetRGB(webp->idec, &last_y, &width, &height, &stride) != NULL) {
        webp->rows_ready = last_y;
    }
    return 0;
}

int mio_webp_read_row(mio_webp *webp, uint8_t *row) {
    int height = (int)webp->config.output.height;
    if (webp->rows_read >= height && height > 0) {
        keep_message(webp, "no rows left");
        return -1;
    }
    while (webp->rows_read >= webp->rows_ready) {
        if (webp->status == VP8_STATUS_OK) {
            keep_message(webp, "the decoder finished short of the image");
            return -1;
        }
        if (step(webp) != 0) return -1;
    }
    const WebPRGBABuffer *rgba = &webp->config.output.u.RGBA;
    memcpy(row, rgba->rgba + (size_t)webp->rows_read * (size_t)rgba->stride,
           (size_t)webp->config.output.width * (size_t)webp->channels);
    webp->rows_read += 1;
    return 0;
}

int mio_webp_finish(mio_webp *webp) {
    while (webp->status != VP8_STATUS_OK) {
        if (step(webp) != 0) return -1;
    }
    return 0;
}

const uint8_t *mio_webp_icc(const mio_webp *webp, size_t *length) {
    *length = webp->icc_length;
    return webp->icc;
}

const char *mio_webp_message(const mio_webp *webp) { return webp->message; }
