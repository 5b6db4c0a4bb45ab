// PNG rows through libpng (see CCodecs.h).

#include "CCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <png.h>

struct mio_png {
    png_structp png;
    png_infop info;
    jmp_buf jump;
    const uint8_t *data;
    int fd;
    size_t size;
    size_t offset;
    char message[256];
    int warnings;
};

static void keep_message(mio_png *png, const char *text) {
    if (png->message[0] == 0) {
        snprintf(png->message, sizeof png->message, "%s", text);
    }
}

static void on_error(png_structp png_ptr, png_const_charp text) {
    mio_png *png = png_get_error_ptr(png_ptr);
    keep_message(png, text);
    longjmp(png->jump, 1);
}

static void on_warning(png_structp png_ptr, png_const_charp text) {
    mio_png *png = png_get_error_ptr(png_ptr);
    keep_message(png, text);
    png->warnings += 1;
}

static void on_read(png_structp png_ptr, png_bytep out, size_t length) {
    mio_png *png = png_get_io_ptr(png_ptr);
    if (length > png->size - png->offset) {
        png_error(png_ptr, "unexpected end of file");
    }
    if (png->data != NULL) {
        memcpy(out, png->data + png->offset, length);
    } else {
        // libpng asks for a chunk's header, its data (IDAT: up to the encoder's chunk size) and
        // its CRC in turn; each comes straight from the file.
        size_t done = 0;
        while (done < length) {
            ssize_t got = pread(png->fd, out + done, length - done, (off_t)(png->offset + done));
            if (got <= 0) png_error(png_ptr, "unexpected end of file");
            done += (size_t)got;
        }
    }
    png->offset += length;
}

mio_png *mio_png_create(size_t chunk_limit, uint32_t max_width, uint32_t max_height) {
    mio_png *png = calloc(1, sizeof *png);
    if (png == NULL) return NULL;
    png->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, png, on_error, on_warning);
    if (png->png == NULL) {
        free(png);
        return NULL;
    }
    png->info = png_create_info_struct(png->png);
    if (png->info == NULL) {
        png_destroy_read_struct(&png->png, NULL, NULL);
        free(png);
        return NULL;
    }
    // The caps of its own that libpng holds (ImageMagick's PNG coder raises them to its memory
    // limit): one chunk's decompressed size (an iCCP), the image's sides, the ancillary chunks it
    // stores. Text and EXIF chunks, which a thumbnail never uses, are skipped unread (handled as
    // unknown chunks that are never kept): no zTXt is inflated at all.
    png_set_chunk_malloc_max(png->png, chunk_limit);
    png_set_user_limits(png->png, max_width, max_height);
    png_set_chunk_cache_max(png->png, 128);
    static const png_byte skipped[] = {
        't', 'E', 'X', 't', '\0', 'z', 'T', 'X', 't', '\0', 'i', 'T', 'X', 't', '\0', 'e', 'X', 'I', 'f', '\0',
        's', 'P', 'L', 'T', '\0', 't', 'I', 'M', 'E', '\0',
    };
    png_set_keep_unknown_chunks(png->png, PNG_HANDLE_CHUNK_NEVER, skipped, (int)(sizeof skipped / 5));
    png_set_read_fn(png->png, png, on_read);
    return png;
}

void mio_png_destroy(mio_png *png) {
    if (png == NULL) return;
    png_destroy_read_struct(&png->png, &png->info, NULL);
    free(png);
}

int mio_png_open(mio_png *png, const uint8_t *data, int fd, size_t size, mio_png_info *info) {
    if (setjmp(png->jump)) return -1;
    png->data = data;
    png->fd = fd;
    png->size = size;
    png->offset = 0;
    png_read_info(png->png, png->info);
    memset(info, 0, sizeof *info);
    png_uint_32 width = 0, height = 0;
    int depth = 0, type = 0, interlace = 0;
    png_get_IHDR(png->png, png->info, &width, &height, &depth, &type, &interlace, NULL, NULL);
    info->width = width;
    info->height = height;
    info->bit_depth = depth;
    info->color_type = type;
    info->interlaced = interlace != PNG_INTERLACE_NONE;
    info->has_trns = png_get_valid(png->png, png->info, PNG_INFO_tRNS) != 0;
    double gamma = 0;
    if (png_get_valid(png->png, png->info, PNG_INFO_gAMA) && png_get_gAMA(png->png, png->info, &gamma)) {
        info->has_gama = 1;
        info->gamma = gamma;
    }
    info->has_srgb = png_get_valid(png->png, png->info, PNG_INFO_sRGB) != 0;
    info->has_chrm = png_get_valid(png->png, png->info, PNG_INFO_cHRM) != 0;
    info->has_offs = png_get_valid(png->png, png->info, PNG_INFO_oFFs) != 0;
    return 0;
}

int mio_png_start(mio_png *png, mio_png_info *info) {
    if (setjmp(png->jump)) return -1;
    if (info->interlaced) {
        keep_message(png, "interlaced");
        return -1;
    }
    if (info->color_type == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(png->png);
    }
    if (info->has_trns) {
        png_set_tRNS_to_alpha(png->png);
    }
    if (info->color_type == PNG_COLOR_TYPE_GRAY || info->color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
        png_set_gray_to_rgb(png->png);
        png_set_expand_gray_1_2_4_to_8(png->png);
    }
    if (info->bit_depth == 16) {
        const uint16_t probe = 1;
        if (*(const uint8_t *)&probe == 1) png_set_swap(png->png);  // native byte order
    }
    png_read_update_info(png->png, png->info);
    info->channels = png_get_channels(png->png, png->info);
    info->bytes_per_sample = png_get_bit_depth(png->png, png->info) == 16 ? 2 : 1;
    info->row_bytes = png_get_rowbytes(png->png, png->info);
    return 0;
}

int mio_png_read_row(mio_png *png, uint8_t *row) {
    if (setjmp(png->jump)) return -1;
    png_read_row(png->png, row, NULL);
    return 0;
}

int mio_png_finish(mio_png *png) {
    if (setjmp(png->jump)) return -1;
    png_read_end(png->png, NULL);
    return 0;
}

const uint8_t *mio_png_icc(mio_png *png, size_t *length) {
    *length = 0;
    if (setjmp(png->jump)) return NULL;
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_length = 0;
    if (!png_get_iCCP(png->png, png->info, &name, &compression, &profile, &profile_length)) return NULL;
    *length = profile_length;
    return profile;
}

const char *mio_png_message(const mio_png *png) { return png->message; }
int mio_png_warnings(const mio_png *png) { return png->warnings; }
size_t mio_png_offset(const mio_png *png) { return png->offset; }
