internal import CHeif
import Foundation

/// The libheif functions MagickIO encodes HEIC and AVIF with, from the same `libheif.so.1` that
/// ``LibHeif`` reads with (opened with `dlopen` on first use, for the same reason). A table of its
/// own, so that a libheif lacking the encoding side still reads. Nil when the library or one of
/// the functions is missing: ``EncodingFormat/isAvailable`` is then false for HEIC and AVIF.
/// `@unchecked Sendable`: C function pointers set once from `dlsym` and never changed; each
/// encode uses a context and an encoder of its own.
struct LibHeifEncoding: @unchecked Sendable {
    let have_encoder_for_format: heif_have_encoder_for_format_f
    let context_alloc: heif_context_alloc_f
    let context_free: heif_context_free_f
    let context_get_encoder_for_format: heif_context_get_encoder_for_format_f
    let encoder_release: heif_encoder_release_f
    let encoder_set_lossy_quality: heif_encoder_set_lossy_quality_f
    let encoder_set_parameter: heif_encoder_set_parameter_f
    let image_create: heif_image_create_f
    let image_add_plane: heif_image_add_plane_f
    let image_get_plane: heif_image_get_plane_f
    let image_release: heif_image_release_f
    let image_handle_release: heif_image_handle_release_f
    let encoding_options_alloc: heif_encoding_options_alloc_f
    let encoding_options_free: heif_encoding_options_free_f
    let context_encode_image: heif_context_encode_image_f
    let context_write: heif_context_write_f

    static let shared: LibHeifEncoding? = LibHeifLibrary.handle.flatMap(LibHeifEncoding.init(library:))

    /// Every function from `library`, or nil if one is missing.
    private init?(library: LibHeifLibrary) {
        func load<F>(_ name: String) throws -> F { try library.load(name) }
        do {
            have_encoder_for_format = try load("heif_have_encoder_for_format")
            context_alloc = try load("heif_context_alloc")
            context_free = try load("heif_context_free")
            context_get_encoder_for_format = try load("heif_context_get_encoder_for_format")
            encoder_release = try load("heif_encoder_release")
            encoder_set_lossy_quality = try load("heif_encoder_set_lossy_quality")
            encoder_set_parameter = try load("heif_encoder_set_parameter")
            image_create = try load("heif_image_create")
            image_add_plane = try load("heif_image_add_plane")
            image_get_plane = try load("heif_image_get_plane")
            image_release = try load("heif_image_release")
            image_handle_release = try load("heif_image_handle_release")
            encoding_options_alloc = try load("heif_encoding_options_alloc")
            encoding_options_free = try load("heif_encoding_options_free")
            context_encode_image = try load("heif_context_encode_image")
            context_write = try load("heif_context_write")
        } catch {
            return nil
        }
    }
}
