// libheif's header, for its types only: MagickIO opens libheif.so.1 with dlopen the first time it
// reads a HEIC or AVIF file (LibHeif.swift), so that a process that never reads one never maps
// libheif and its codecs. Nothing here links against libheif.
#include <libheif/heif.h>
#include <stdint.h>

// A pointer type for each function MagickIO calls, taken from the header's own declaration, so
// that the Swift side calls what dlsym returns with the header's signature.
#define MAGICKIO_HEIF_FUNCTION(name) typedef __typeof__(name) *name##_f;
MAGICKIO_HEIF_FUNCTION(heif_context_alloc)
MAGICKIO_HEIF_FUNCTION(heif_context_free)
MAGICKIO_HEIF_FUNCTION(heif_context_set_maximum_image_size_limit)
MAGICKIO_HEIF_FUNCTION(heif_context_set_max_decoding_threads)
MAGICKIO_HEIF_FUNCTION(heif_context_read_from_reader)
MAGICKIO_HEIF_FUNCTION(heif_context_get_primary_image_handle)
MAGICKIO_HEIF_FUNCTION(heif_context_get_image_handle)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_release)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_width)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_height)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_has_alpha_channel)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_luma_bits_per_pixel)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_number_of_thumbnails)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_list_of_thumbnail_IDs)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_thumbnail)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_color_profile_type)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_raw_color_profile_size)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_raw_color_profile)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_list_of_metadata_block_IDs)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_metadata_size)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_metadata)
MAGICKIO_HEIF_FUNCTION(heif_decoding_options_alloc)
MAGICKIO_HEIF_FUNCTION(heif_decoding_options_free)
MAGICKIO_HEIF_FUNCTION(heif_decode_image)
MAGICKIO_HEIF_FUNCTION(heif_image_release)
MAGICKIO_HEIF_FUNCTION(heif_image_get_width)
MAGICKIO_HEIF_FUNCTION(heif_image_get_height)
MAGICKIO_HEIF_FUNCTION(heif_image_get_plane_readonly)
MAGICKIO_HEIF_FUNCTION(heif_image_get_bits_per_pixel_range)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_number_of_auxiliary_images)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_auxiliary_image_handle)
// The encoding side (HEIF/HEIFEncoder.swift): HEIC through x265, AVIF through aom.
MAGICKIO_HEIF_FUNCTION(heif_have_encoder_for_format)
MAGICKIO_HEIF_FUNCTION(heif_context_get_encoder_for_format)
MAGICKIO_HEIF_FUNCTION(heif_encoder_release)
MAGICKIO_HEIF_FUNCTION(heif_encoder_set_lossy_quality)
MAGICKIO_HEIF_FUNCTION(heif_encoder_set_parameter)
MAGICKIO_HEIF_FUNCTION(heif_image_create)
MAGICKIO_HEIF_FUNCTION(heif_image_add_plane)
MAGICKIO_HEIF_FUNCTION(heif_image_get_plane)
MAGICKIO_HEIF_FUNCTION(heif_encoding_options_alloc)
MAGICKIO_HEIF_FUNCTION(heif_encoding_options_free)
MAGICKIO_HEIF_FUNCTION(heif_context_encode_image)
MAGICKIO_HEIF_FUNCTION(heif_context_write)
#undef MAGICKIO_HEIF_FUNCTION

// What libheif 1.19 and later offer a reader (Debian 13 has 1.23; Debian 12's 1.15 has neither):
// security limits per context, and a decode's cancel callback. Chosen twice: by the header
// MagickIO is built with (the fields exist only in 1.19's), and by the library that runs (its
// function is there, its structs' `version` says the field is).

/// 1 when MagickIO is built with libheif 1.19's header or later (else the two calls below do nothing).
static inline int magickio_heif_header_has_limits(void) {
    return LIBHEIF_HAVE_VERSION(1, 19, 0);
}

/// Sets `context`'s security limits through `get_limits` (libheif's
/// `heif_context_get_security_limits`, from dlsym: NULL when the library is older): the most
/// pixels an image may have, the most bytes one allocation and all of the context's together may
/// take, and at least `max_items` items (libheif counts `iref`'s references against it too).
/// 1 when set; 0 when this libheif has no such limits.
static inline int magickio_heif_set_security_limits(void *get_limits, struct heif_context *context, uint64_t max_pixels,
                                                    uint64_t max_memory, uint32_t max_items) {
#if LIBHEIF_HAVE_VERSION(1, 19, 0)
    if (!get_limits) return 0;
    heif_security_limits *limits = ((heif_security_limits * (*)(const heif_context *)) get_limits)(context);
    if (!limits || limits->version < 1) return 0;
    limits->max_image_size_pixels = max_pixels;
    limits->max_memory_block_size = max_memory;
    if (limits->max_items < max_items) limits->max_items = max_items;
    if (limits->version >= 2) limits->max_total_memory = max_memory;
    return 1;
#else
    (void)get_limits, (void)context, (void)max_pixels, (void)max_memory, (void)max_items;
    return 0;
#endif
}

/// Has libheif call `cancel(user)` while it decodes with `options` (between a grid's tiles), and
/// stop with `heif_error_Canceled` when it returns nonzero. 1 when set; 0 when this libheif's
/// options have no such field (libheif before 1.19).
static inline int magickio_heif_set_cancel(struct heif_decoding_options *options, int (*cancel)(void *), void *user) {
#if LIBHEIF_HAVE_VERSION(1, 19, 0)
    if (!options || options->version < 6) return 0;
    options->cancel_decoding = cancel;
    options->progress_user_data = user;
    return 1;
#else
    (void)options, (void)cancel, (void)user;
    return 0;
#endif
}
