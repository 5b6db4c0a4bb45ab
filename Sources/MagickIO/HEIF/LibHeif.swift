internal import CHeif
import Foundation

/// The libheif functions MagickIO calls, from `libheif.so.1` opened with `dlopen` on first use:
/// ImageMagick's HEIC coder depends on the same library, so it is on every machine MagickWand is,
/// but linking it would map it and its codecs (x265, aom, dav1d, libde265: about 2.5 MiB of
/// resident memory) into every process, HEIF or not. Nil when it cannot be opened; the types
/// come from libheif's header (Modules/CHeif).
/// `@unchecked Sendable`: C function pointers set once from `dlsym` and never changed; libheif's
/// functions are safe to call from several threads on distinct contexts.
struct LibHeif: @unchecked Sendable {
    let context_alloc: heif_context_alloc_f
    let context_free: heif_context_free_f
    let context_set_maximum_image_size_limit: heif_context_set_maximum_image_size_limit_f
    let context_set_max_decoding_threads: heif_context_set_max_decoding_threads_f
    let context_read_from_reader: heif_context_read_from_reader_f
    let context_get_primary_image_handle: heif_context_get_primary_image_handle_f
    let context_get_image_handle: heif_context_get_image_handle_f
    let image_handle_release: heif_image_handle_release_f
    let image_handle_get_width: heif_image_handle_get_width_f
    let image_handle_get_height: heif_image_handle_get_height_f
    let image_handle_has_alpha_channel: heif_image_handle_has_alpha_channel_f
    let image_handle_get_luma_bits_per_pixel: heif_image_handle_get_luma_bits_per_pixel_f
    let image_handle_get_number_of_thumbnails: heif_image_handle_get_number_of_thumbnails_f
    let image_handle_get_list_of_thumbnail_IDs: heif_image_handle_get_list_of_thumbnail_IDs_f
    let image_handle_get_thumbnail: heif_image_handle_get_thumbnail_f
    let image_handle_get_color_profile_type: heif_image_handle_get_color_profile_type_f
    let image_handle_get_raw_color_profile_size: heif_image_handle_get_raw_color_profile_size_f
    let image_handle_get_raw_color_profile: heif_image_handle_get_raw_color_profile_f
    let image_handle_get_list_of_metadata_block_IDs: heif_image_handle_get_list_of_metadata_block_IDs_f
    let image_handle_get_metadata_size: heif_image_handle_get_metadata_size_f
    let image_handle_get_metadata: heif_image_handle_get_metadata_f
    let decoding_options_alloc: heif_decoding_options_alloc_f
    let decoding_options_free: heif_decoding_options_free_f
    let decode_image: heif_decode_image_f
    let image_release: heif_image_release_f
    let image_get_width: heif_image_get_width_f
    let image_get_height: heif_image_get_height_f
    let image_get_plane_readonly: heif_image_get_plane_readonly_f
    let image_get_bits_per_pixel_range: heif_image_get_bits_per_pixel_range_f
    let image_handle_get_number_of_auxiliary_images: heif_image_handle_get_number_of_auxiliary_images_f
    let image_handle_get_auxiliary_image_handle: heif_image_handle_get_auxiliary_image_handle_f
    /// `heif_context_get_security_limits`, in libheif 1.19 and later only (nil before): set through
    /// `magickio_heif_set_security_limits` (Modules/CHeif), whose header may lack its types.
    let context_get_security_limits: UnsafeMutableRawPointer?

    static let shared: LibHeif? = LibHeifLibrary.handle.flatMap(LibHeif.init(library:))

    /// Whether libheif takes MagickIO's security limits and stops a decode between a grid's tiles
    /// when asked (libheif 1.19 and later, in the header built with and the library loaded).
    static var takesLimitsAndStops: Bool {
        magickio_heif_header_has_limits() != 0 && shared?.context_get_security_limits != nil
    }

    /// Every function from `library`, or nil if one is missing.
    private init?(library: LibHeifLibrary) {
        func load<F>(_ name: String) throws -> F { try library.load(name) }
        do {
            context_alloc = try load("heif_context_alloc")
            context_free = try load("heif_context_free")
            context_set_maximum_image_size_limit = try load("heif_context_set_maximum_image_size_limit")
            context_set_max_decoding_threads = try load("heif_context_set_max_decoding_threads")
            context_read_from_reader = try load("heif_context_read_from_reader")
            context_get_primary_image_handle = try load("heif_context_get_primary_image_handle")
            context_get_image_handle = try load("heif_context_get_image_handle")
            image_handle_release = try load("heif_image_handle_release")
            image_handle_get_width = try load("heif_image_handle_get_width")
            image_handle_get_height = try load("heif_image_handle_get_height")
            image_handle_has_alpha_channel = try load("heif_image_handle_has_alpha_channel")
            image_handle_get_luma_bits_per_pixel = try load("heif_image_handle_get_luma_bits_per_pixel")
            image_handle_get_number_of_thumbnails = try load("heif_image_handle_get_number_of_thumbnails")
            image_handle_get_list_of_thumbnail_IDs = try load("heif_image_handle_get_list_of_thumbnail_IDs")
            image_handle_get_thumbnail = try load("heif_image_handle_get_thumbnail")
            image_handle_get_color_profile_type = try load("heif_image_handle_get_color_profile_type")
            image_handle_get_raw_color_profile_size = try load("heif_image_handle_get_raw_color_profile_size")
            image_handle_get_raw_color_profile = try load("heif_image_handle_get_raw_color_profile")
            image_handle_get_list_of_metadata_block_IDs = try load("heif_image_handle_get_list_of_metadata_block_IDs")
            image_handle_get_metadata_size = try load("heif_image_handle_get_metadata_size")
            image_handle_get_metadata = try load("heif_image_handle_get_metadata")
            decoding_options_alloc = try load("heif_decoding_options_alloc")
            decoding_options_free = try load("heif_decoding_options_free")
            decode_image = try load("heif_decode_image")
            image_release = try load("heif_image_release")
            image_get_width = try load("heif_image_get_width")
            image_get_height = try load("heif_image_get_height")
            image_get_plane_readonly = try load("heif_image_get_plane_readonly")
            image_get_bits_per_pixel_range = try load("heif_image_get_bits_per_pixel_range")
            image_handle_get_number_of_auxiliary_images = try load("heif_image_handle_get_number_of_auxiliary_images")
            image_handle_get_auxiliary_image_handle = try load("heif_image_handle_get_auxiliary_image_handle")
            context_get_security_limits = library.symbol("heif_context_get_security_limits")
        } catch {
            return nil
        }
    }
}

/// `libheif.so.1`, opened once with `dlopen` for both of MagickIO's tables of its functions
/// (``LibHeif`` to read, ``LibHeifEncoding`` to write).
/// `@unchecked Sendable`: a `dlopen` handle set once, never closed or changed.
struct LibHeifLibrary: @unchecked Sendable {
    /// Immutable once opened; `dlsym` may be called from any thread.
    let pointer: UnsafeMutableRawPointer

    struct Missing: Error {}

    /// The library, or nil when it cannot be opened. libheif 1.x keeps its ABI within the major
    /// version: the header is the one pkg-config finds (1.15 on Debian 12, 1.23 on Debian 13), and
    /// the functions and fields of later versions are used only where the library has them.
    static let handle: LibHeifLibrary? = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL).map(LibHeifLibrary.init(pointer:))

    /// The function `name`, as `F`; throws when the library lacks it.
    func load<F>(_ name: String) throws -> F {
        guard let symbol = symbol(name) else { throw Missing() }
        return unsafeBitCast(symbol, to: F.self)
    }

    /// The address of `name`, or nil when this version of the library lacks it.
    func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(pointer, name)
    }
}

extension LibHeif {
    /// The one translation of a libheif status into a ``MagickIOError``: a memory failure is
    /// `limitExceeded`, a feature or file type libheif does not support is `unsupportedFormat`
    /// when reading, and anything else is `otherwise` (a corrupt image when reading, a failed
    /// encode when writing); the message carries libheif's own words.
    static func check(_ error: heif_error, _ doing: String, otherwise kind: MagickIOError.Kind) throws(MagickIOError) {
        guard error.code != heif_error_Ok else { return }
        let reason = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        let kind: MagickIOError.Kind = switch error.code {
        case heif_error_Memory_allocation_error: .limitExceeded
        case heif_error_Unsupported_feature, heif_error_Unsupported_filetype, heif_error_Plugin_loading_error:
            kind == .corruptImage ? .unsupportedFormat : kind
        default: kind
        }
        throw MagickIOError(kind, "\(doing): \(reason) (libheif)")
    }
}
