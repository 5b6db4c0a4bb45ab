// Animated WebP through libwebp's WebPAnimDecoder and WebPAnimEncoder (see CAnimation.h).

#include "CAnimation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

struct mio_webp_anim {
    WebPAnimDecoder *decoder;
};

mio_webp_anim *mio_webp_anim_open(const uint8_t *data, size_t size, mio_webp_anim_info *info) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return NULL;
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData input = {data, size};
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&input, &options);
    if (decoder == NULL) return NULL;
    WebPAnimInfo anim;
    if (!WebPAnimDecoderGetInfo(decoder, &anim)) {
        WebPAnimDecoderDelete(decoder);
        return NULL;
    }
    mio_webp_anim *result = calloc(1, sizeof *result);
    if (result == NULL) {
        WebPAnimDecoderDelete(decoder);
        return NULL;
    }
    result->decoder = decoder;
    info->canvas_width = anim.canvas_width;
    info->canvas_height = anim.canvas_height;
    info->loop_count = anim.loop_count;
    info->frame_count = anim.frame_count;
    return result;
}

void mio_webp_anim_close(mio_webp_anim *anim) {
    if (anim == NULL) return;
    WebPAnimDecoderDelete(anim->decoder);
    free(anim);
}

int mio_webp_anim_next(mio_webp_anim *anim, const uint8_t **canvas, int *end_milliseconds) {
    if (!WebPAnimDecoderHasMoreFrames(anim->decoder)) return 0;
    uint8_t *buffer = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(anim->decoder, &buffer, &timestamp)) return -1;
    *canvas = buffer;
    *end_milliseconds = timestamp;
    return 1;
}

struct mio_webp_anim_writer {
    WebPAnimEncoder *encoder;
    WebPConfig config;
    uint32_t width, height;
    WebPData output;
    char message[256];
};

static void keep_message(mio_webp_anim_writer *writer, const char *text) {
    if (writer->message[0] == 0) snprintf(writer->message, sizeof writer->message, "libwebp: %s", text);
}

mio_webp_anim_writer *mio_webp_anim_writer_create(uint32_t width, uint32_t height, int loop_count, float quality) {
    mio_webp_anim_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) return NULL;
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&writer->config)) {
        free(writer);
        return NULL;
    }
    options.anim_params.loop_count = loop_count;
    options.allow_mixed = 0;
    writer->config.quality = quality;
    writer->config.method = 4;
    writer->width = width;
    writer->height = height;
    WebPDataInit(&writer->output);
    if (!WebPValidateConfig(&writer->config)) {
        free(writer);
        return NULL;
    }
    writer->encoder = WebPAnimEncoderNew((int)width, (int)height, &options);
    if (writer->encoder == NULL) {
        free(writer);
        return NULL;
    }
    return writer;
}

void mio_webp_anim_writer_destroy(mio_webp_anim_writer *writer) {
    if (writer == NULL) return;
    WebPAnimEncoderDelete(writer->encoder);
    WebPDataClear(&writer->output);
    free(writer);
}

const char *mio_webp_anim_writer_message(const mio_webp_anim_writer *writer) { return writer->message; }

int mio_webp_anim_writer_add(mio_webp_anim_writer *writer, const uint8_t *rgba, int start_milliseconds) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        keep_message(writer, "picture version mismatch");
        return -1;
    }
    picture.use_argb = 1;
    picture.width = (int)writer->width;
    picture.height = (int)writer->height;
    if (!WebPPictureImportRGBA(&picture, rgba, (int)writer->width * 4)) {
        keep_message(writer, "out of memory for a frame");
        return -1;
    }
    int ok = WebPAnimEncoderAdd(writer->encoder, &picture, start_milliseconds, &writer->config);
    WebPPictureFree(&picture);
    if (!ok) {
        const char *reason = WebPAnimEncoderGetError(writer->encoder);
        keep_message(writer, reason != NULL ? reason : "a frame could not be encoded");
        return -1;
    }
    return 0;
}

int mio_webp_anim_writer_finish(mio_webp_anim_writer *writer, int end_milliseconds, const uint8_t **bytes, size_t *length) {
    if (!WebPAnimEncoderAdd(writer->encoder, NULL, end_milliseconds, NULL)
        || !WebPAnimEncoderAssemble(writer->encoder, &writer->output)) {
        const char *reason = WebPAnimEncoderGetError(writer->encoder);
        keep_message(writer, reason != NULL ? reason : "the animation could not be assembled");
        return -1;
    }
    *bytes = writer->output.bytes;
    *length = writer->output.size;
    return 0;
}
