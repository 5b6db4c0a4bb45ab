// A JPEG written through libjpeg-turbo as ImageMagick's coder writes it (see CCodecs.h).

#include "CCodecs.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
#include <jerror.h>

struct writer {
    struct jpeg_compress_struct cinfo;  // first: the hooks cast back to this
    struct jpeg_error_mgr error;
    struct jpeg_destination_mgr destination;
    jmp_buf jump;
    char *message;
    size_t message_size;
    // The output, grown by doubling; owned here until handed over (jpeg_mem_dest's buffer would
    // be freed under its caller's pointer when it grows, and leak on an error).
    uint8_t *bytes;
    size_t capacity;
};

static void start_destination(j_compress_ptr cinfo) {
    struct writer *writer = (struct writer *)cinfo;
    writer->destination.next_output_byte = writer->bytes;
    writer->destination.free_in_buffer = writer->capacity;
}

static boolean grow_destination(j_compress_ptr cinfo) {
    struct writer *writer = (struct writer *)cinfo;
    // libjpeg calls this with the buffer full.
    if (writer->capacity > SIZE_MAX / 2) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    uint8_t *grown = realloc(writer->bytes, writer->capacity * 2);
    if (grown == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    writer->bytes = grown;
    writer->destination.next_output_byte = grown + writer->capacity;
    writer->destination.free_in_buffer = writer->capacity;
    writer->capacity *= 2;
    return TRUE;
}

static void end_destination(j_compress_ptr cinfo) {
    (void)cinfo;
}

static void on_error(j_common_ptr cinfo) {
    struct writer *writer = (struct writer *)cinfo;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    if (writer->message_size > 0) snprintf(writer->message, writer->message_size, "%s", text);
    longjmp(writer->jump, 1);
}

static void on_message(j_common_ptr cinfo, int level) {
    (void)cinfo;  // a compressor's warnings and traces say nothing about the rows given
    (void)level;
}

int mio_jpeg_write(const uint8_t *rows, uint32_t width, uint32_t height, int components, int quality,
                   const int *sampling, uint16_t x_density, uint16_t y_density, int density_unit, uint8_t **output,
                   size_t *length, char *message, size_t message_size) {
    *output = NULL;
    *length = 0;
    if (message_size > 0) message[0] = 0;
    if (width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION ||
        (components != 1 && components != 3)) {
        if (message_size > 0) snprintf(message, message_size, "a JPEG cannot hold %ux%u pixels of %d samples", width, height, components);
        return -1;
    }
    // On the heap, zeroed: nothing the error path reads lives in a register across the longjmp,
    // and jpeg_destroy_compress finds no state when jpeg_create_compress failed.
    struct writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        if (message_size > 0) snprintf(message, message_size, "no memory for libjpeg-turbo's state");
        return -1;
    }
    writer->message = message;
    writer->message_size = message_size;
    // A tenth of the raw rows, at least 16 KiB: most thumbnails fit without growing.
    writer->capacity = (size_t)width * height * (size_t)components / 10 + 16384;
    writer->bytes = malloc(writer->capacity);
    if (writer->bytes == NULL) {
        if (message_size > 0) snprintf(message, message_size, "no memory for the JPEG's %zu bytes", writer->capacity);
        free(writer);
        return -1;
    }
    writer->cinfo.err = jpeg_std_error(&writer->error);
    writer->error.error_exit = on_error;
    writer->error.emit_message = on_message;
    if (setjmp(writer->jump) != 0) {
        jpeg_destroy_compress(&writer->cinfo);
        free(writer->bytes);
        free(writer);
        return -1;
    }
    jpeg_create_compress(&writer->cinfo);
    writer->destination.init_destination = start_destination;
    writer->destination.empty_output_buffer = grow_destination;
    writer->destination.term_destination = end_destination;
    writer->cinfo.dest = &writer->destination;
    writer->cinfo.image_width = width;
    writer->cinfo.image_height = height;
    writer->cinfo.input_components = components;
    writer->cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&writer->cinfo);
    if (x_density != 0 && y_density != 0) {
        writer->cinfo.write_JFIF_header = TRUE;
        writer->cinfo.X_density = x_density;
        writer->cinfo.Y_density = y_density;
        if (density_unit == 1 || density_unit == 2) writer->cinfo.density_unit = (UINT8)density_unit;
    }
    writer->cinfo.optimize_coding = TRUE;
    jpeg_set_quality(&writer->cinfo, quality, TRUE);
    if (quality <= 90) writer->cinfo.dct_method = JDCT_IFAST;
    if (sampling != NULL) {
        for (int i = 0; i < MAX_COMPONENTS; i++) {
            writer->cinfo.comp_info[i].h_samp_factor = i < 3 ? sampling[2 * i] : 1;
            writer->cinfo.comp_info[i].v_samp_factor = i < 3 ? sampling[2 * i + 1] : 1;
        }
    } else if (quality >= 90) {
        for (int i = 0; i < MAX_COMPONENTS; i++) {
            writer->cinfo.comp_info[i].h_samp_factor = 1;
            writer->cinfo.comp_info[i].v_samp_factor = 1;
        }
    }
    jpeg_start_compress(&writer->cinfo, TRUE);
    const size_t stride = (size_t)width * (size_t)components;
    while (writer->cinfo.next_scanline < writer->cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rows + (size_t)writer->cinfo.next_scanline * stride);
        jpeg_write_scanlines(&writer->cinfo, &row, 1);
    }
    jpeg_finish_compress(&writer->cinfo);
    size_t used = writer->capacity - writer->destination.free_in_buffer;
    jpeg_destroy_compress(&writer->cinfo);
    // Handed over at its length (the buffer grew by doubling).
    uint8_t *bytes = realloc(writer->bytes, used > 0 ? used : 1);
    *output = bytes != NULL ? bytes : writer->bytes;
    *length = used;
    free(writer);
    return 0;
}

static inline int quanta_to_bytes(const uint16_t *quanta, size_t count, size_t stride, uint8_t *bytes) {
    uint32_t off = 0;
    for (size_t i = 0; i < count; i++) {
        const uint32_t quantum = quanta[i * stride];
        bytes[i] = (uint8_t)((quantum + 128) / 257);
        off |= quantum - quantum / 257 * 257;
    }
    return off == 0;
}

int mio_quanta_to_bytes(const uint16_t *quanta, size_t count, size_t stride, uint8_t *bytes) {
    // Stride 1 (every sample) made a loop of its own, which the compiler can vectorise.
    return stride == 1 ? quanta_to_bytes(quanta, count, 1, bytes) : quanta_to_bytes(quanta, count, stride, bytes);
}

int mio_quanta_are_grey(const uint16_t *quanta, size_t pixels) {
    uint32_t differ = 0;
    for (size_t i = 0; i < pixels; i++) {
        differ |= (uint32_t)(quanta[3 * i] ^ quanta[3 * i + 1]) | (uint32_t)(quanta[3 * i + 1] ^ quanta[3 * i + 2]);
    }
    return differ == 0;
}
