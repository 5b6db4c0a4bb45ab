import CHeif
import CMagickWand
import Foundation

/// A thumbnail item of a HEIC or AVIF file: a small image a phone stores beside the photo and links
/// to it with a `thmb` reference. ImageMagick 6's HEIC coder only ever decodes the primary image,
/// so MagickIO reads these through libheif itself.
///
/// libheif applies the item's own `irot`/`imir`/`clap` transforms when it decodes, as it does for
/// the primary image, so the sizes here and the pixels decoded are upright.
struct HEIFThumbnail {
    /// The item's size as shown (after its transforms).
    let width: Int
    let height: Int
    /// The file, opened through libheif, and the item's id in it.
    fileprivate let file: HEIFFile
    fileprivate let id: heif_item_id

    /// The thumbnails of `bytes`' primary image, smallest first; empty for a file libheif cannot
    /// open or an image without any. A thumbnail with more pixels than the primary image, or one
    /// libheif would not decode under `maxPixelCount`, is left out.
    static func all(in bytes: SourceBytes, maxPixelCount: Int) -> [HEIFThumbnail] {
        guard let file = HEIFFile(bytes, maxPixelCount: maxPixelCount) else { return [] }
        let heif = file.heif
        let primaryPixels = file.width.saturatingTimes(file.height)
        let count = Int(heif.image_handle_get_number_of_thumbnails(file.primary))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: min(count, 16))
        let listed = Int(heif.image_handle_get_list_of_thumbnail_IDs(file.primary, &ids, Int32(ids.count)))
        return ids.prefix(listed).compactMap { id -> HEIFThumbnail? in
            guard let handle = file.thumbnailHandle(id) else { return nil }
            defer { heif.image_handle_release(handle) }
            let width = Int(heif.image_handle_get_width(handle)), height = Int(heif.image_handle_get_height(handle))
            let pixels = width.saturatingTimes(height)
            guard width > 0, height > 0, pixels <= primaryPixels, pixels <= maxPixelCount else { return nil }
            return HEIFThumbnail(width: width, height: height, file: file, id: id)
        }
        .sorted { $0.width.saturatingTimes($0.height) < $1.width.saturatingTimes($1.height) }
    }

    /// The primary image's ICC profile, which ImageMagick 6's HEIC coder leaves behind (a phone's
    /// Display P3 photo would otherwise pass for sRGB), or nil.
    static func primaryProfile(in bytes: SourceBytes, maxPixelCount: Int) -> [UInt8]? {
        HEIFFile(bytes, maxPixelCount: maxPixelCount).flatMap { $0.iccProfile($0.primary) }
    }

    /// What decoding it costs: libheif's planes (YCbCr, then interleaved 8-bit RGBA) and the
    /// wand's 16-bit copy, about 16 bytes a pixel.
    var estimatedBytes: Int {
        width.saturatingTimes(height).saturatingTimes(16)
    }

    /// Decodes the item, upright and 8 bits per channel (HDR items are converted down), into
    /// `wand`, which must hold no image. The item's ICC profile, or the primary image's when the
    /// item has none, comes with it.
    func decode(into wand: Wand) throws(MagickIOError) {
        guard let handle = file.thumbnailHandle(id) else {
            throw MagickIOError(.corruptImage, "the HEIF thumbnail item \(id) cannot be opened")
        }
        defer { file.heif.image_handle_release(handle) }
        try file.decode(handle, into: wand, what: "the HEIF thumbnail")
        if let profile = file.iccProfile(handle) ?? file.iccProfile(file.primary) {
            wand.setProfile("icc", profile)
        }
    }
}

/// The primary image of a HEIC or AVIF file, for what ImageMagick 6's HEIC coder loses: its alpha
/// (an auxiliary image the coder never reads) and its ICC profile.
enum HEIFPrimary {
    /// Whether the primary image has an alpha channel, or nil when libheif cannot open the file.
    static func hasAlpha(in bytes: SourceBytes, maxPixelCount: Int) -> Bool? {
        HEIFFile(bytes, maxPixelCount: maxPixelCount).map { $0.heif.image_handle_has_alpha_channel($0.primary) != 0 }
    }

    /// Decodes the primary image with its alpha, upright (libheif applies `irot`/`imir`/`clap`),
    /// 8 bits per channel, with its ICC profile, into `wand`, which must hold no image.
    static func decode(_ bytes: SourceBytes, maxPixelCount: Int, into wand: Wand) throws(MagickIOError) {
        guard let file = HEIFFile(bytes, maxPixelCount: maxPixelCount) else {
            throw MagickIOError(.corruptImage, "libheif cannot open the file")
        }
        try file.decode(file.primary, into: wand, what: "the HEIF image")
        if let profile = file.iccProfile(file.primary) {
            wand.setProfile("icc", profile)
        }
    }
}

/// A HEIF file opened by libheif from MagickIO's own bytes (a file is read with `pread` as libheif
/// asks, never whole), with its primary image's handle.
private final class HEIFFile {
    let heif: LibHeif
    let context: OpaquePointer
    let primary: OpaquePointer
    /// What libheif's reader callbacks read from; kept alive as long as the context.
    private let cursor: HEIFCursor

    var width: Int { Int(heif.image_handle_get_width(primary)) }
    var height: Int { Int(heif.image_handle_get_height(primary)) }

    init?(_ bytes: SourceBytes, maxPixelCount: Int) {
        guard let heif = LibHeif.shared, let context = heif.context_alloc() else { return nil }
        self.heif = heif
        // libheif 1.15 applies this limit to each side of every item as it opens the file; MagickIO
        // never has libheif decode the primary image, and checks each thumbnail item's pixel
        // count itself, so a side as long as the whole pixel count is no narrower than it must be
        // (a side limit of its square root would refuse an 8064x6048 photo under 50 MP).
        heif.context_set_maximum_image_size_limit(context, Int32(clamping: max(maxPixelCount, 1)))
        // Tiles decode on the calling thread: MagickIO's concurrency is its own workers.
        heif.context_set_max_decoding_threads(context, 0)
        cursor = HEIFCursor(bytes)
        let opened = heif.context_read_from_reader(context, heifReader, Unmanaged.passUnretained(cursor).toOpaque(), nil)
        var primary: OpaquePointer?
        guard opened.code == heif_error_Ok,
              heif.context_get_primary_image_handle(context, &primary).code == heif_error_Ok, let primary else {
            heif.context_free(context)
            return nil
        }
        self.context = context
        self.primary = primary
    }

    deinit {
        heif.image_handle_release(primary)
        heif.context_free(context)
    }

    /// Decodes the image of `handle`, upright and 8 bits per channel (HDR converted down), with
    /// its alpha, into `wand`, which must hold no image.
    func decode(_ handle: OpaquePointer, into wand: Wand, what: String) throws(MagickIOError) {
        let hasAlpha = heif.image_handle_has_alpha_channel(handle) != 0
        let options = heif.decoding_options_alloc()
        defer { heif.decoding_options_free(options) }
        options?.pointee.convert_hdr_to_8bit = 1
        var image: OpaquePointer?
        try Self.check(heif.decode_image(handle, &image, heif_colorspace_RGB,
                                         hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options),
                       "decoding \(what)")
        guard let image else { throw MagickIOError(.corruptImage, "libheif returned no image for \(what)") }
        defer { heif.image_release(image) }
        let width = Int(heif.image_get_width(image, heif_channel_interleaved))
        let height = Int(heif.image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif.image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw MagickIOError(.corruptImage, "\(what) decoded to no pixels")
        }
        let channels = hasAlpha ? 4 : 3
        let map = hasAlpha ? "RGBA" : "RGB"
        let rowBytes = width * channels
        let status: MagickBooleanType
        if Int(stride) == rowBytes {
            status = MagickConstituteImage(wand.pointer, width, height, map, CharPixel, plane)
        } else {
            // MagickConstituteImage wants packed rows; libheif pads these.
            var packed = [UInt8](repeating: 0, count: rowBytes * height)
            packed.withUnsafeMutableBytes { destination in
                for row in 0..<height {
                    (destination.baseAddress! + row * rowBytes).copyMemory(from: plane + row * Int(stride), byteCount: rowBytes)
                }
            }
            status = packed.withUnsafeBytes { MagickConstituteImage(wand.pointer, width, height, map, CharPixel, $0.baseAddress) }
        }
        try wand.check(status, fallback: .corruptImage)
    }

    func thumbnailHandle(_ id: heif_item_id) -> OpaquePointer? {
        var handle: OpaquePointer?
        guard heif.image_handle_get_thumbnail(primary, id, &handle).code == heif_error_Ok else { return nil }
        return handle
    }

    func iccProfile(_ handle: OpaquePointer) -> [UInt8]? {
        let type = heif.image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif.image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size <= 1 << 24 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        guard heif.image_handle_get_raw_color_profile(handle, &profile).code == heif_error_Ok else { return nil }
        return profile
    }

    static func check(_ error: heif_error, _ doing: String) throws(MagickIOError) {
        guard error.code != heif_error_Ok else { return }
        let reason = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        let kind: MagickIOError.Kind = switch error.code {
        case heif_error_Memory_allocation_error: .limitExceeded
        case heif_error_Unsupported_feature, heif_error_Unsupported_filetype, heif_error_Plugin_loading_error: .unsupportedFormat
        default: .corruptImage
        }
        throw MagickIOError(kind, "\(doing): \(reason) (libheif)")
    }
}

/// The read position of one libheif reader over a source's bytes.
private final class HEIFCursor {
    let bytes: SourceBytes
    var position = 0

    init(_ bytes: SourceBytes) {
        self.bytes = bytes
    }
}

/// libheif's reader callbacks, shared by every file (the state is the cursor passed as userdata).
/// libheif keeps the pointer for the context's life, so it is allocated once, for the process; it
/// is written once, when Swift initialises the global, and only read after.
nonisolated(unsafe) private let heifReader: UnsafeMutablePointer<heif_reader> = {
    func cursor(_ userdata: UnsafeMutableRawPointer?) -> HEIFCursor {
        Unmanaged<HEIFCursor>.fromOpaque(userdata!).takeUnretainedValue()
    }
    let reader = UnsafeMutablePointer<heif_reader>.allocate(capacity: 1)
    reader.initialize(to: heif_reader(
        reader_api_version: 1,
        get_position: { Int64(cursor($0).position) },
        read: { data, size, userdata in
            let cursor = cursor(userdata)
            guard size > 0 else { return 0 }  // an empty box body (AVIF's av1C has one), maybe no buffer
            guard let data, size <= cursor.bytes.count - min(cursor.position, cursor.bytes.count) else { return 1 }
            let got = cursor.bytes.copy(at: cursor.position, into: UnsafeMutableRawBufferPointer(start: data, count: size))
            guard got == size else { return 1 }
            cursor.position += size
            return 0
        },
        seek: { position, userdata in
            let cursor = cursor(userdata)
            guard position >= 0, position <= Int64(cursor.bytes.count) else { return 1 }
            cursor.position = Int(position)
            return 0
        },
        wait_for_file_size: { target, userdata in
            target <= Int64(cursor(userdata).bytes.count) ? heif_reader_grow_status_size_reached
                : heif_reader_grow_status_size_beyond_eof
        }))
    return reader
}()

/// The libheif functions MagickIO calls, from `libheif.so.1` opened with `dlopen` on first use:
/// ImageMagick's HEIC coder depends on the same library, so it is on every machine MagickWand is,
/// but linking it would map it and its codecs (x265, aom, dav1d, libde265: about 2.5 MiB of
/// resident memory) into every process, HEIF or not. Nil when it cannot be opened; the types
/// come from libheif's header (Modules/CHeif).
struct LibHeif: @unchecked Sendable {
    let context_alloc: heif_context_alloc_f
    let context_free: heif_context_free_f
    let context_set_maximum_image_size_limit: heif_context_set_maximum_image_size_limit_f
    let context_set_max_decoding_threads: heif_context_set_max_decoding_threads_f
    let context_read_from_reader: heif_context_read_from_reader_f
    let context_get_primary_image_handle: heif_context_get_primary_image_handle_f
    let image_handle_release: heif_image_handle_release_f
    let image_handle_get_width: heif_image_handle_get_width_f
    let image_handle_get_height: heif_image_handle_get_height_f
    let image_handle_has_alpha_channel: heif_image_handle_has_alpha_channel_f
    let image_handle_get_number_of_thumbnails: heif_image_handle_get_number_of_thumbnails_f
    let image_handle_get_list_of_thumbnail_IDs: heif_image_handle_get_list_of_thumbnail_IDs_f
    let image_handle_get_thumbnail: heif_image_handle_get_thumbnail_f
    let image_handle_get_color_profile_type: heif_image_handle_get_color_profile_type_f
    let image_handle_get_raw_color_profile_size: heif_image_handle_get_raw_color_profile_size_f
    let image_handle_get_raw_color_profile: heif_image_handle_get_raw_color_profile_f
    let decoding_options_alloc: heif_decoding_options_alloc_f
    let decoding_options_free: heif_decoding_options_free_f
    let decode_image: heif_decode_image_f
    let image_release: heif_image_release_f
    let image_get_width: heif_image_get_width_f
    let image_get_height: heif_image_get_height_f
    let image_get_plane_readonly: heif_image_get_plane_readonly_f

    static let shared: LibHeif? = {
        // libheif 1.x keeps its ABI within the major version; the header is 1.15's.
        dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL).flatMap(LibHeif.init(library:))
    }()

    /// Every function from `library`, or nil if one is missing.
    private init?(library: UnsafeMutableRawPointer) {
        struct Missing: Error {}
        func load<F>(_ name: String) throws -> F {
            guard let symbol = dlsym(library, name) else { throw Missing() }
            return unsafeBitCast(symbol, to: F.self)
        }
        do {
            context_alloc = try load("heif_context_alloc")
            context_free = try load("heif_context_free")
            context_set_maximum_image_size_limit = try load("heif_context_set_maximum_image_size_limit")
            context_set_max_decoding_threads = try load("heif_context_set_max_decoding_threads")
            context_read_from_reader = try load("heif_context_read_from_reader")
            context_get_primary_image_handle = try load("heif_context_get_primary_image_handle")
            image_handle_release = try load("heif_image_handle_release")
            image_handle_get_width = try load("heif_image_handle_get_width")
            image_handle_get_height = try load("heif_image_handle_get_height")
            image_handle_has_alpha_channel = try load("heif_image_handle_has_alpha_channel")
            image_handle_get_number_of_thumbnails = try load("heif_image_handle_get_number_of_thumbnails")
            image_handle_get_list_of_thumbnail_IDs = try load("heif_image_handle_get_list_of_thumbnail_IDs")
            image_handle_get_thumbnail = try load("heif_image_handle_get_thumbnail")
            image_handle_get_color_profile_type = try load("heif_image_handle_get_color_profile_type")
            image_handle_get_raw_color_profile_size = try load("heif_image_handle_get_raw_color_profile_size")
            image_handle_get_raw_color_profile = try load("heif_image_handle_get_raw_color_profile")
            decoding_options_alloc = try load("heif_decoding_options_alloc")
            decoding_options_free = try load("heif_decoding_options_free")
            decode_image = try load("heif_decode_image")
            image_release = try load("heif_image_release")
            image_get_width = try load("heif_image_get_width")
            image_get_height = try load("heif_image_get_height")
            image_get_plane_readonly = try load("heif_image_get_plane_readonly")
        } catch {
            return nil
        }
    }
}
