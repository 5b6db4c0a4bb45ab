internal import CHeif
import Foundation

/// A HEIF file opened by libheif from MagickIO's own bytes (a file is read with `pread` as libheif
/// asks, never whole), with its primary image's handle.
final class HEIFFile {
    let heif: LibHeif
    let context: OpaquePointer
    let primary: OpaquePointer
    /// What libheif's reader callbacks read from; kept alive as long as the context.
    private let cursor: HEIFCursor

    /// The file's items as MagickIO's walker reads them: the walk its source made when it opened,
    /// or one made as this file opened.
    let items: HEIFItems

    var width: Int { Int(heif.image_handle_get_width(primary)) }
    var height: Int { Int(heif.image_handle_get_height(primary)) }

    /// Opens `bytes` under `options`' pixel count and memory budget; `items` is the walk its source
    /// made when it opened (nil: one is made here). A file without `pitm` whose walk implies its
    /// primary image (``HEIFItems/choosePrimary(_:)``) is shown one
    /// (``HEIFItems/shownWithPrimary(_:shown:)``). `unhiding`: the `infe` flags bytes
    /// (offset: byte) shown to libheif without their hidden bit, so that it hands out those items'
    /// handles (``HEIFTiling``).
    init?(_ bytes: SourceBytes, items: HEIFItems?, options: DecodingOptions, unhiding: [Int: UInt8] = [:]) {
        guard let heif = LibHeif.shared, let context = heif.context_alloc() else { return nil }
        self.heif = heif
        // libheif 1.15 applies this limit to each side of every item as it opens the file (1.19
        // and later to its square, as the pixel count): MagickIO checks each image's pixel count
        // itself, so a side as long as the whole pixel count is no narrower than it must be (a
        // side limit of its square root would refuse an 8064x6048 photo under 50 MP).
        heif.context_set_maximum_image_size_limit(context, Int32(clamping: max(options.maxPixelCount, 1)))
        // libheif 1.19 and later: the pixel count itself, the memory budget for its allocations,
        // and the items and references MagickIO's walker let through (HEIFItems.Limits: more
        // references than libheif's default of 1,000), so that both libheifs open the same files.
        magickio_heif_set_security_limits(heif.context_get_security_limits, context, UInt64(max(options.maxPixelCount, 1)),
                                          UInt64(max(options.memoryBudget, 1)), UInt32(HEIFItems.Limits.references))
        // Tiles decode on the calling thread: MagickIO's concurrency is its own workers.
        heif.context_set_max_decoding_threads(context, 0)
        var reader = ByteReader(bytes)
        let walked = items ?? HEIFItems.read(&reader)
        var shown = Self.shownBytes(bytes) + unhiding.sorted { $0.key < $1.key }.map { ($0.key, [$0.value & 0xFE]) }
        var appended: [UInt8] = []
        if walked.impliedPrimary {
            // No pitm: libheif 1.15 opens no such file (HEIFItems+Primary.swift).
            guard let withPrimary = walked.shownWithPrimary(&reader, shown: shown) else {
                heif.context_free(context)
                return nil
            }
            shown += withPrimary.replaced
            appended = withPrimary.appended
        }
        cursor = HEIFCursor(bytes, shown: shown, appended: appended)
        let opened = heif.context_read_from_reader(context, heifReader, Unmanaged.passUnretained(cursor).toOpaque(), nil)
        var primary: OpaquePointer?
        guard opened.code == heif_error_Ok,
              heif.context_get_primary_image_handle(context, &primary).code == heif_error_Ok, let primary else {
            heif.context_free(context)
            return nil
        }
        self.context = context
        self.primary = primary
        self.items = walked
    }

    /// What libheif's reader is shown in place of the file's own bytes, so that libheif 1.15 opens
    /// files it misreads (each a byte offset and the bytes shown there):
    ///
    /// - in a file whose compatible brands are an image sequence's only (libavif's `.avifs`:
    ///   avis, msf1, miaf, MA1B), `mif1` over the first sequence brand: libheif 1.15 opens no such
    ///   file, though its primary still item (libavif stores the first frame as one) is an
    ///   ordinary image. A file without a still item still fails to open.
    /// - a `meta` box of size 0 ("to the end of the file", which ISO BMFF allows the last box:
    ///   libavif's draw_points_idat_metasize0.avif, its items in `idat`) with its size: libheif
    ///   1.15 finds no `meta` box in such a file.
    /// - a `grpl` box in `meta` as `free`: libheif 1.15 reads each entity group as a list of ids
    ///   and fails on one with more after them (libheif 1.21's pyramid group, `pymd`: libavif's
    ///   pyramid_pymd.avif), and uses the groups for nothing. MagickIO's walker reads no groups.
    static func shownBytes(_ bytes: SourceBytes) -> [(offset: Int, bytes: [UInt8])] {
        var shown: [(offset: Int, bytes: [UInt8])] = []
        var reader = ByteReader(bytes)
        let compatible = ISOBMFFBoxes.brands(&reader).dropFirst()
        if compatible.allSatisfy({ !ISOBMFFBoxes.stillBrands.contains($0) }),
           let index = compatible.firstIndex(where: { ISOBMFFBoxes.sequenceBrands.contains($0) }) {
            shown.append((12 + 4 * index, Array("mif1".utf8)))
        }
        var meta: ISOBMFFBoxes.Box?
        ISOBMFFBoxes.walk(&reader, in: 0..<reader.count) { _, box in
            if box.type == "meta" { meta = box }
        }
        guard let meta, meta.body.count >= 4 else { return shown }
        if reader.u32be(at: meta.offset) == 0, meta.size <= Int(UInt32.max) {
            shown.append((meta.offset, withUnsafeBytes(of: UInt32(meta.size).bigEndian, Array.init)))
        }
        ISOBMFFBoxes.walk(&reader, in: (meta.body.lowerBound + 4)..<meta.body.upperBound, limit: HEIFItems.Limits.children) { _, box in
            if box.type == "grpl" { shown.append((box.offset + 4, Array("free".utf8))) }
        }
        return shown
    }

    /// The bytes libheif reads from.
    var bytes: SourceBytes { cursor.bytes }

    deinit {
        heif.image_handle_release(primary)
        heif.context_free(context)
    }

    /// The image of `handle` decoded by libheif, upright and 8 bits per channel (HDR converted
    /// down), interleaved RGB or, with alpha, RGBA; released with `heif.image_release(image)`.
    struct Decoded {
        let image: OpaquePointer
        let plane: UnsafePointer<UInt8>
        let width: Int
        let height: Int
        let stride: Int
        let channels: Int
    }

    /// The alpha comes from libheif, or, for the primary image, from the alpha image libheif 1.15
    /// leaves out (``detachedAlpha()``). libheif 1.19 and later ask `interrupt` between a grid's
    /// tiles and stop there (1.15 decodes the whole picture first).
    func decodeInterleaved(_ handle: OpaquePointer, what: String, interrupt: Interrupt?) throws(MagickIOError) -> Decoded {
        let detached = handle == primary ? detachedAlpha() : nil
        let hasAlpha = detached != nil || heif.image_handle_has_alpha_channel(handle) != 0
        let image = try decodeRGB(handle, chroma: hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
                                  hdrTo8Bit: true, what: what, interrupt: interrupt)
        let width = Int(heif.image_get_width(image, heif_channel_interleaved))
        let height = Int(heif.image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        let channels = hasAlpha ? 4 : 3
        guard width > 0, height > 0, let plane = heif.image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              Int(stride) >= width * channels else {
            heif.image_release(image)
            throw MagickIOError(.corruptImage, "\(what) decoded to no pixels")
        }
        if let detached {
            // The picture is this decode's own: nothing else reads it before its alpha is written.
            do {
                try merge(detached, into: UnsafeMutablePointer(mutating: plane), width: width, height: height, stride: Int(stride))
            } catch {
                heif.image_release(image)
                throw error
            }
        }
        return Decoded(image: image, plane: plane, width: width, height: height, stride: Int(stride), channels: channels)
    }

    /// libheif's decode of `handle` to RGB in `chroma` (HDR converted to 8 bits if `hdrTo8Bit`),
    /// `interrupt` as its cancel callback (libheif 1.19 and later); released with
    /// `heif.image_release(image)`. A decode the interrupt stopped throws the interrupt's error.
    private func decodeRGB(_ handle: OpaquePointer, chroma: heif_chroma, hdrTo8Bit: Bool, what: String,
                           interrupt: Interrupt?) throws(MagickIOError) -> OpaquePointer {
        let options = heif.decoding_options_alloc()
        defer { heif.decoding_options_free(options) }
        if hdrTo8Bit { options?.pointee.convert_hdr_to_8bit = 1 }
        if let interrupt {
            magickio_heif_set_cancel(options, heifCancel, Unmanaged.passUnretained(interrupt).toOpaque())
        }
        var image: OpaquePointer?
        let status = withExtendedLifetime(interrupt) {
            HeapScrub.run(if: items.decodesBeyondAV1) { heif.decode_image(handle, &image, heif_colorspace_RGB, chroma, options) }
        }
        if status.code != heif_error_Ok {
            try interrupt?.check()  // libheif stopped because the interrupt asked it to
        }
        try Self.check(status, "decoding \(what)")
        guard let image else { throw MagickIOError(.corruptImage, "libheif returned no image for \(what)") }
        return image
    }

    /// The image of `handle` decoded by libheif to planar RGB, 8 bits a sample, upright: for an
    /// 8-bit image without alpha, the RGB libheif 1.15 makes before it interleaves it (it
    /// converts to planar RGB whatever it is asked for), without the interleaved copy. Nil, with
    /// nothing decoded, for an image of more bits or with alpha. Released with
    /// `heif.image_release(image)`.
    func decodePlanarRGB(_ handle: OpaquePointer, what: String, interrupt: Interrupt?) throws(MagickIOError) -> PlanarRGB? {
        guard heif.image_handle_get_luma_bits_per_pixel(handle) == 8, heif.image_handle_has_alpha_channel(handle) == 0,
              handle != primary || detachedAlpha() == nil else { return nil }
        let image = try decodeRGB(handle, chroma: heif_chroma_444, hdrTo8Bit: false, what: what, interrupt: interrupt)
        let width = Int(heif.image_get_width(image, heif_channel_R)), height = Int(heif.image_get_height(image, heif_channel_R))
        var planes: [(UnsafePointer<UInt8>, Int)] = []
        for channel in [heif_channel_R, heif_channel_G, heif_channel_B] {
            var stride: Int32 = 0
            guard heif.image_get_bits_per_pixel_range(image, channel) == 8, heif.image_get_width(image, channel) == width,
                  heif.image_get_height(image, channel) == height,
                  let plane = heif.image_get_plane_readonly(image, channel, &stride), Int(stride) >= width else { break }
            planes.append((plane, Int(stride)))
        }
        guard width > 0, height > 0, planes.count == 3 else {
            heif.image_release(image)
            throw MagickIOError(.corruptImage, "\(what) decoded to no 8-bit RGB planes")
        }
        return PlanarRGB(image: image, planes: planes, width: width, height: height)
    }

    /// An image libheif decoded to three 8-bit planes, R, G and B, each with its stride.
    struct PlanarRGB {
        let image: OpaquePointer
        let planes: [(pointer: UnsafePointer<UInt8>, stride: Int)]
        let width: Int
        let height: Int
    }

    /// Decodes the image of `handle` (``decodeInterleaved(_:what:interrupt:)``) into `wand`, which
    /// must hold no image.
    func decode(_ handle: OpaquePointer, into wand: Wand, what: String, interrupt: Interrupt?) throws(MagickIOError) {
        let decoded = try decodeInterleaved(handle, what: what, interrupt: interrupt)
        defer { heif.image_release(decoded.image) }
        let (width, height, channels) = (decoded.width, decoded.height, decoded.channels)
        let map = channels == 4 ? "RGBA" : "RGB"
        let rowBytes = width * channels
        if decoded.stride == rowBytes {
            try wand.constitute(width: width, height: height, map: map, pixels: decoded.plane)
            return
        }
        // The image is made from packed rows; libheif pads these.
        var packed = [UInt8](repeating: 0, count: rowBytes * height)
        packed.withUnsafeMutableBytes { destination in
            for row in 0..<height {
                (destination.baseAddress! + row * rowBytes).copyMemory(from: decoded.plane + row * decoded.stride, byteCount: rowBytes)
            }
        }
        let constituted = packed.withUnsafeBytes { raw in
            Result { () throws(MagickIOError) in try wand.constitute(width: width, height: height, map: map, pixels: raw.baseAddress!) }
        }
        try constituted.get()
    }

    /// The handle of top-level image `id`; released with `heif.image_handle_release`.
    func imageHandle(_ id: Int) throws(MagickIOError) -> OpaquePointer {
        var handle: OpaquePointer?
        try Self.check(heif.context_get_image_handle(context, heif_item_id(id), &handle), "opening HEIF item \(id)")
        guard let handle else { throw MagickIOError(.corruptImage, "libheif returned no handle for HEIF item \(id)") }
        return handle
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

    /// The primary image's first `Exif` metadata block less its 4-byte header offset, as ImageMagick
    /// 6's HEIC coder keeps it for its EXIF properties (at most `limit` bytes), or nil.
    func rawExifBlock(limit: Int) -> [UInt8]? {
        var id: heif_item_id = 0
        guard heif.image_handle_get_list_of_metadata_block_IDs(primary, "Exif", &id, 1) > 0 else { return nil }
        let size = heif.image_handle_get_metadata_size(primary, id)
        guard size > 8, size <= 1 << 24 else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        guard heif.image_handle_get_metadata(primary, id, &block).code == heif_error_Ok else { return nil }
        return Array(block[4..<min(size, 4 + limit)])
    }

    /// The image's first Exif block as ImageMagick keeps an `exif` profile (as a JPEG's APP1
    /// segment holds it: `Exif\0\0`, then the TIFF structure), or nil. The block starts with the
    /// offset of its TIFF header: 6 from phones (past their own `Exif\0\0`), 0 from some encoders.
    func exifProfile(_ handle: OpaquePointer) -> [UInt8]? {
        var id: heif_item_id = 0
        guard heif.image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) > 0 else { return nil }
        let size = heif.image_handle_get_metadata_size(handle, id)
        guard size > 8, size <= 1 << 24 else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        guard heif.image_handle_get_metadata(handle, id, &block).code == heif_error_Ok else { return nil }
        let offset = block.u32be(at: 0)
        let start = 4 + offset
        guard offset <= size - 12 else { return nil }
        let tiff = block[start...]
        guard tiff.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) || tiff.starts(with: [0x49, 0x49, 0x2A, 0x00]) else { return nil }
        return Array("Exif\0\0".utf8) + tiff
    }

    /// libheif's failure while reading (``LibHeif/check(_:_:otherwise:)``): a corrupt image.
    static func check(_ error: heif_error, _ doing: String) throws(MagickIOError) {
        try LibHeif.check(error, doing, otherwise: .corruptImage)
    }
}

/// libheif's cancel callback (libheif 1.19 and later): the ``Interrupt`` passed as its user data
/// says whether the decode goes on (0) or stops (1); counted as a progress point.
private let heifCancel: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { user in
    guard let user else { return 0 }
    return Unmanaged<Interrupt>.fromOpaque(user).takeUnretainedValue().progressPoint() ? 0 : 1
}

/// The read position of one libheif reader over a source's bytes, and what it shows in place of
/// some of them (``HEIFFile/shownBytes(_:)``).
private final class HEIFCursor {
    let bytes: SourceBytes
    let shown: [(offset: Int, bytes: [UInt8])]
    /// Bytes shown past the end of the file (a `meta` box naming the primary image).
    let appended: [UInt8]
    var position = 0

    init(_ bytes: SourceBytes, shown: [(offset: Int, bytes: [UInt8])], appended: [UInt8] = []) {
        self.bytes = bytes
        self.shown = shown
        self.appended = appended
    }

    /// The length libheif sees: the file's, and what is appended.
    var count: Int { bytes.count + appended.count }

    /// Reads `size` bytes at the position into `data`, the file's and then the appended ones, with
    /// `shown` over them; false when they are not all there.
    func read(into data: UnsafeMutableRawPointer, size: Int) -> Bool {
        guard size <= count - min(position, count) else { return false }
        let fromFile = max(0, min(size, bytes.count - position))
        if fromFile > 0 {
            guard bytes.copy(at: position, into: UnsafeMutableRawBufferPointer(start: data, count: fromFile)) == fromFile else { return false }
        }
        if fromFile < size {
            let start = position + fromFile - bytes.count
            appended.withUnsafeBytes { source in
                (data + fromFile).copyMemory(from: source.baseAddress! + start, byteCount: size - fromFile)
            }
        }
        showBytes(data, count: size)
        position += size
        return true
    }

    /// Shows the bytes of `shown` that fall in the `count` bytes just read into `data`.
    func showBytes(_ data: UnsafeMutableRawPointer, count: Int) {
        for (offset, replacement) in shown {
            for (index, byte) in replacement.enumerated() where (position..<position + count).contains(offset + index) {
                data.storeBytes(of: byte, toByteOffset: offset + index - position, as: UInt8.self)
            }
        }
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
    // Zeroed (`init()`), then the version 1 fields set one by one: libheif 1.19 and later add
    // fields (reader version 2's range requests), which a memberwise initialiser would have to
    // name with one header and could not with the other. Version 1 tells libheif to read no more.
    reader.initialize(to: heif_reader())
    reader.pointee.reader_api_version = 1
    reader.pointee.get_position = { Int64(cursor($0).position) }
    reader.pointee.read = { data, size, userdata in
        let cursor = cursor(userdata)
        guard size > 0 else { return 0 }  // an empty box body (AVIF's av1C has one), maybe no buffer
        guard let data, cursor.read(into: data, size: size) else { return 1 }
        return 0
    }
    reader.pointee.seek = { position, userdata in
        let cursor = cursor(userdata)
        guard position >= 0, position <= Int64(cursor.count) else { return 1 }
        cursor.position = Int(position)
        return 0
    }
    reader.pointee.wait_for_file_size = { target, userdata in
        target <= Int64(cursor(userdata).count) ? heif_reader_grow_status_size_reached
            : heif_reader_grow_status_size_beyond_eof
    }
    return reader
}()

