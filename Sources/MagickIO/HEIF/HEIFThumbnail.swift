internal import CHeif
import Foundation

/// A thumbnail item of a HEIC or AVIF file: a small image a phone stores beside the photo and links
/// to it with a `thmb` reference. ImageMagick 6's HEIC coder only ever decodes the primary image,
/// so MagickIO reads these through libheif itself.
///
/// libheif applies the item's own `irot`/`imir`/`clap` transforms when it decodes, as it does for
/// the primary image, so the sizes here and the pixels decoded are upright.
/// `@unchecked Sendable`: its libheif context travels inside a ``ThumbnailPlan`` from the thread
/// that planned to the one that runs the plan, and is used by one thread at a time (libheif's
/// contexts are not tied to a thread); nothing shares it between threads at once.
struct HEIFThumbnail: @unchecked Sendable {
    /// The item's size as shown (after its transforms).
    let width: Int
    let height: Int
    /// The pixels of the largest picture libheif makes for it: its size, or more when its
    /// bitstream codes more (``HEIFItems/Inspection/largestPicture``).
    let pixels: Int
    /// The file, opened through libheif, and the item's id in it.
    fileprivate let file: HEIFFile
    fileprivate let id: heif_item_id

    /// The thumbnails of `bytes`' primary image (its `items` as walked at open), smallest first; empty for a file libheif cannot
    /// open or an image without any. A thumbnail with more pixels than the primary image, one
    /// libheif would not decode under `maxPixelCount`, or one it must not be asked to decode
    /// (``HEIFItems/inspect(decoding:_:)``: an item no codec decodes, or whose size cannot be
    /// read) is left out; each is counted at the largest picture its decode makes.
    static func all(in bytes: SourceBytes, items: HEIFItems, options: DecodingOptions) -> [HEIFThumbnail] {
        let maxPixelCount = options.maxPixelCount
        guard let file = HEIFFile(bytes, items: items, options: options) else { return [] }
        let heif = file.heif
        let primaryPixels = file.width.saturatingTimes(file.height)
        let count = Int(heif.image_handle_get_number_of_thumbnails(file.primary))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: min(count, 16))
        let listed = Int(heif.image_handle_get_list_of_thumbnail_IDs(file.primary, &ids, Int32(ids.count)))
        var reader = ByteReader(bytes)
        return ids.prefix(listed).compactMap { id -> HEIFThumbnail? in
            let inspection = items.inspect(decoding: Int(id), &reader)
            guard inspection.problem == nil else { return nil }
            guard let handle = file.thumbnailHandle(id) else { return nil }
            defer { heif.image_handle_release(handle) }
            // The size the item decodes to (libheif's handle misses transforms listed before `ispe`).
            let shown = items.shownSize(of: Int(id), &reader)
            let width = shown?.width ?? Int(heif.image_handle_get_width(handle))
            let height = shown?.height ?? Int(heif.image_handle_get_height(handle))
            let pixels = max(width.saturatingTimes(height), inspection.largestPicture)
            guard width > 0, height > 0, pixels <= primaryPixels, pixels <= maxPixelCount else { return nil }
            return HEIFThumbnail(width: width, height: height, pixels: pixels, file: file, id: id)
        }
        .sorted { $0.width.saturatingTimes($0.height) < $1.width.saturatingTimes($1.height) }
    }

    /// What decoding it costs: libheif's planes (YCbCr, then interleaved 8-bit RGBA) and the
    /// wand's 16-bit copy, about 16 bytes a pixel.
    var estimatedBytes: Int {
        pixels.saturatingTimes(16)
    }

    /// Decodes the item, upright and 8 bits per channel (HDR items are converted down), into
    /// `wand`, which must hold no image. The item's ICC profile, or the primary image's when the
    /// item has none, comes with it.
    func decode(into wand: Wand, interrupt: Interrupt?) throws(MagickIOError) {
        guard let handle = file.thumbnailHandle(id) else {
            throw MagickIOError(.corruptImage, "the HEIF thumbnail item \(id) cannot be opened")
        }
        defer { file.heif.image_handle_release(handle) }
        try file.decode(handle, into: wand, what: "the HEIF thumbnail", interrupt: interrupt)
        if let profile = file.iccProfile(handle) ?? file.iccProfile(file.primary) {
            try wand.setProfile("icc", profile)
        }
    }
}
