// libheif's header, for its types only: MagickIO opens libheif.so.1 with dlopen the first time it
// reads a HEIC or AVIF file (LibHeif.swift), so that a process that never reads one never maps
// libheif and its codecs. Nothing here links against libheif.
#include <libheif/heif.h>

// A pointer type for each function MagickIO calls, taken from the header's own declaration, so
// that the Swift side calls what dlsym returns with the header's signature.
#define MAGICKIO_HEIF_FUNCTION(name) typedef __typeof__(name) *name##_f;
MAGICKIO_HEIF_FUNCTION(heif_context_alloc)
MAGICKIO_HEIF_FUNCTION(heif_context_free)
MAGICKIO_HEIF_FUNCTION(heif_context_set_maximum_image_size_limit)
MAGICKIO_HEIF_FUNCTION(heif_context_set_max_decoding_threads)
MAGICKIO_HEIF_FUNCTION(heif_context_read_from_reader)
MAGICKIO_HEIF_FUNCTION(heif_context_get_primary_image_handle)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_release)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_width)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_get_height)
MAGICKIO_HEIF_FUNCTION(heif_image_handle_has_alpha_channel)
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
#undef MAGICKIO_HEIF_FUNCTION
