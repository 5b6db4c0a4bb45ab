// JPEG rows through libjpeg-turbo (see CCodecs.h).

#include "CCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jpeglib.h>
#include <jerror.h>

struct mio_jpeg {
    struct jpeg_decompress_struct cinfo;  // first: the error and progress hooks cast back to this
    struct jpeg_error_mgr error;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 64];
    int warnings;
    long long max_block_scans;
    long long block_scans;
    int counted_scan;
    int limited;
    int stopped;
    mio_stop_callback stop;
    void *context;
    JOCTET *icc;
    unsigned int icc_length;
    struct jpeg_source_mgr source;
    int fd;
    size_t size;
    size_t offset;
    JOCTET *buffer;
    size_t capacity;
};

static void keep_message(mio_jpeg *jpeg, const char *text) {
    if (jpeg->message[0] == 0) {
        snprintf(jpeg->message, sizeof jpeg->message, "%s", text);
    }
}

static void on_error(j_common_ptr cinfo) {
    mio_jpeg *jpeg = (mio_jpeg *)cinfo;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    keep_message(jpeg, text);
    longjmp(jpeg->jump, 1);
}

static void on_message(j_common_ptr cinfo, int level) {
    // Level -1 is a warning (corrupt data libjpeg got past); higher levels are traces.
    if (level != -1) return;
    mio_jpeg *jpeg = (mio_jpeg *)cinfo;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    keep_message(jpeg, text);
    jpeg->warnings += 1;
    cinfo->err->num_warnings += 1;
}

static void on_output(j_common_ptr cinfo) {
    (void)cinfo;  // never print
}

static void on_progress(j_common_ptr cinfo) {
    mio_jpeg *jpeg = (mio_jpeg *)cinfo;
    // Each scan decodes every block of its components, however few bytes it takes: count them as
    // a scan starts, and stop past the limit (MagickIO's guard holds the same one before decoding).
    if (jpeg->cinfo.global_state >= 0 && jpeg->cinfo.input_scan_number != jpeg->counted_scan) {
        jpeg->counted_scan = jpeg->cinfo.input_scan_number;
        for (int i = 0; i < jpeg->cinfo.comps_in_scan; i++) {
            const jpeg_component_info *component = jpeg->cinfo.cur_comp_info[i];
            if (component != NULL) {
                jpeg->block_scans += (long long)component->width_in_blocks * component->height_in_blocks;
            }
        }
        if (jpeg->max_block_scans > 0 && jpeg->block_scans > jpeg->max_block_scans) {
            char text[96];
            snprintf(text, sizeof text, "the scans cover more than %lld blocks", jpeg->max_block_scans);
            keep_message(jpeg, text);
            jpeg->limited = 1;
            longjmp(jpeg->jump, 1);
        }
    }
    if (jpeg->stop != NULL && jpeg->stop(jpeg->context)) {
        jpeg->stopped = 1;
        keep_message(jpeg, "stopped");
        longjmp(jpeg->jump, 1);
    }
}

mio_jpeg *mio_jpeg_create(size_t memory_limit, long long max_block_scans, mio_stop_callback stop, void *context) {
    mio_jpeg *jpeg = calloc(1, sizeof *jpeg);
    if (jpeg == NULL) return NULL;
    jpeg->cinfo.err = jpeg_std_error(&jpeg->error);
    jpeg->error.error_exit = on_error;
    jpeg->error.emit_message = on_message;
    jpeg->error.output_message = on_output;
    jpeg->max_block_scans = max_block_scans;
    jpeg->stop = stop;
    jpeg->context = context;
    if (setjmp(jpeg->jump)) {
        free(jpeg);
        return NULL;
    }
    jpeg_create_decompress(&jpeg->cinfo);
    // libjpeg-turbo has no backing store: past this, an allocation fails with an error.
    jpeg->cinfo.mem->max_memory_to_use = (long)(memory_limit > 0x7fffffff ? 0x7fffffff : memory_limit);
    jpeg->progress.progress_monitor = on_progress;
    jpeg->cinfo.progress = &jpeg->progress;
    return jpeg;
}

void mio_jpeg_destroy(mio_jpeg *jpeg) {
    if (jpeg == NULL) return;
    jpeg_destroy_decompress(&jpeg->cinfo);
    free(jpeg->icc);
    free(jpeg->buffer);
    free(jpeg);
}

static mio_jpeg_colorspace colorspace(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return MIO_JPEG_GRAY;
    case JCS_YCbCr: return MIO_JPEG_YCBCR;
    case JCS_RGB: return MIO_JPEG_RGB;
    case JCS_CMYK: return MIO_JPEG_CMYK;
    case JCS_YCCK: return MIO_JPEG_YCCK;
    default: return MIO_JPEG_OTHER;
    }
}

// A source that reads the file descriptor in chunks, ending with a fake EOI and libjpeg's
// premature-end warning, as libjpeg's own stdio source does.
static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean source_fill(j_decompress_ptr cinfo) {
    mio_jpeg *jpeg = (mio_jpeg *)cinfo;
    size_t wanted = jpeg->capacity;
    if (wanted > jpeg->size - jpeg->offset) wanted = jpeg->size - jpeg->offset;
    ssize_t got = wanted > 0 ? pread(jpeg->fd, jpeg->buffer, wanted, (off_t)jpeg->offset) : 0;
    if (got <= 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        jpeg->buffer[0] = 0xFF;
        jpeg->buffer[1] = JPEG_EOI;
        got = 2;
    } else {
        jpeg->offset += (size_t)got;
    }
    jpeg->source.next_input_byte = jpeg->buffer;
    jpeg->source.bytes_in_buffer = (size_t)got;
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    mio_jpeg *jpeg = (mio_jpeg *)cinfo;
    if (count <= 0) return;
    size_t skip = (size_t)count;
    if (skip <= jpeg->source.bytes_in_buffer) {
        jpeg->source.next_input_byte += skip;
        jpeg->source.bytes_in_buffer -= skip;
        return;
    }
    skip -= jpeg->source.bytes_in_buffer;
    jpeg->source.bytes_in_buffer = 0;
    jpeg->offset = skip > jpeg->size - jpeg->offset ? jpeg->size : jpeg->offset + skip;
}

size_t mio_jpeg_read_buffer_bytes(size_t size) {
    // At least the two bytes of the fake EOI that ends a file cut short.
    return size < MIO_JPEG_READ_SIZE ? (size < 2 ? 2 : size) : (size_t)MIO_JPEG_READ_SIZE;
}

int mio_jpeg_open(mio_jpeg *jpeg, const uint8_t *data, int fd, size_t size, mio_jpeg_info *info) {
    if (setjmp(jpeg->jump)) return -1;
    if (data != NULL) {
        jpeg_mem_src(&jpeg->cinfo, data, (unsigned long)size);
    } else {
        size_t capacity = mio_jpeg_read_buffer_bytes(size);
        if (jpeg->capacity < capacity) {
            free(jpeg->buffer);
            jpeg->capacity = 0;
            jpeg->buffer = malloc(capacity);
            if (jpeg->buffer == NULL) {
                keep_message(jpeg, "out of memory for the read buffer");
                return -1;
            }
            jpeg->capacity = capacity;
        }
        jpeg->fd = fd;
        jpeg->size = size;
        jpeg->offset = 0;
        jpeg->source.init_source = source_init;
        jpeg->source.fill_input_buffer = source_fill;
        jpeg->source.skip_input_data = source_skip;
        jpeg->source.resync_to_restart = jpeg_resync_to_restart;
        jpeg->source.term_source = source_term;
        jpeg->source.bytes_in_buffer = 0;
        jpeg->source.next_input_byte = NULL;
        jpeg->cinfo.src = &jpeg->source;
    }
    jpeg_save_markers(&jpeg->cinfo, JPEG_APP0 + 2, 0xFFFF);  // ICC profile chunks
    if (jpeg_read_header(&jpeg->cinfo, TRUE) != JPEG_HEADER_OK) {
        keep_message(jpeg, "no image in the JPEG data");
        return -1;
    }
    if (!jpeg_read_icc_profile(&jpeg->cinfo, &jpeg->icc, &jpeg->icc_length)) {
        jpeg->icc = NULL;
        jpeg->icc_length = 0;
    }
    // The profile is the header's: APP2 segments between scans are stepped over, not kept (the
    // census of the bytes this reads stopped at the first scan; see MetadataLimits.swift).
    jpeg_save_markers(&jpeg->cinfo, JPEG_APP0 + 2, 0);
    memset(info, 0, sizeof *info);
    info->width = jpeg->cinfo.image_width;
    info->height = jpeg->cinfo.image_height;
    info->components = jpeg->cinfo.num_components;
    info->colorspace = colorspace(jpeg->cinfo.jpeg_color_space);
    info->progressive = jpeg->cinfo.progressive_mode ? 1 : 0;
    info->adobe = jpeg->cinfo.saw_Adobe_marker ? 1 : 0;
    info->arithmetic = jpeg->cinfo.arith_code ? 1 : 0;
    return 0;
}

int mio_jpeg_start(mio_jpeg *jpeg, int scale_num, int grey, mio_jpeg_info *info) {
    if (setjmp(jpeg->jump)) return -1;
    jpeg->cinfo.scale_num = (unsigned int)(scale_num < 1 ? 1 : scale_num > 8 ? 8 : scale_num);
    jpeg->cinfo.scale_denom = 8;
    jpeg->cinfo.out_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;
    jpeg->cinfo.dct_method = JDCT_ISLOW;
    jpeg->cinfo.do_fancy_upsampling = TRUE;
    jpeg->cinfo.quantize_colors = FALSE;
    if (!jpeg_start_decompress(&jpeg->cinfo)) {
        keep_message(jpeg, "suspended");  // never with an in-memory source
        return -1;
    }
    info->output_width = jpeg->cinfo.output_width;
    info->output_height = jpeg->cinfo.output_height;
    info->output_components = jpeg->cinfo.output_components;
    return 0;
}

int mio_jpeg_read(mio_jpeg *jpeg, uint8_t *rows, size_t stride, int count) {
    if (setjmp(jpeg->jump)) return -1;
    int read = 0;
    while (read < count && jpeg->cinfo.output_scanline < jpeg->cinfo.output_height) {
        JSAMPROW row = rows + (size_t)read * stride;
        JDIMENSION got = jpeg_read_scanlines(&jpeg->cinfo, &row, 1);
        if (got == 0) {
            keep_message(jpeg, "suspended");
            return -1;
        }
        read += (int)got;
    }
    return read;
}

int mio_jpeg_finish(mio_jpeg *jpeg) {
    if (setjmp(jpeg->jump)) return -1;
    return jpeg_finish_decompress(&jpeg->cinfo) ? 0 : -1;
}

const uint8_t *mio_jpeg_icc(mio_jpeg *jpeg, size_t *length) {
    *length = jpeg->icc_length;
    return jpeg->icc;
}

const char *mio_jpeg_message(const mio_jpeg *jpeg) { return jpeg->message; }
int mio_jpeg_warnings(const mio_jpeg *jpeg) { return jpeg->warnings; }
int mio_jpeg_stopped(const mio_jpeg *jpeg) { return jpeg->stopped; }
int mio_jpeg_limited(const mio_jpeg *jpeg) { return jpeg->limited; }
