import Foundation

/// The primary image of a HEIC or AVIF file, decoded by libheif: what ImageMagick 6's HEIC coder
/// loses (the alpha, an auxiliary image it never reads, and the ICC profile) kept, in half the
/// coder's pixel cache.
enum HEIFPrimary {
    /// Whether the primary image has an alpha channel, or nil when libheif cannot open the file.
    static func hasAlpha(in bytes: SourceBytes, options: DecodingOptions) -> Bool? {
        HEIFFile(bytes, items: nil, options: options).map(\.hasAlpha)
    }

    /// Decodes the primary image with its alpha, upright (libheif applies `irot`/`imir`/`clap`),
    /// 8 bits per channel, with its ICC profile and its Exif block, into `wand`, which must hold no
    /// image. False, with `wand` untouched, when libheif cannot open the file.
    static func decode(_ bytes: SourceBytes, items: HEIFItems?, options: DecodingOptions, into wand: Wand,
                       interrupt: Interrupt?) throws(MagickIOError) -> Bool {
        guard let file = HEIFFile(bytes, items: items, options: options) else { return false }
        try file.decode(file.primary, into: wand, what: "the HEIF image", interrupt: interrupt)
        if let profile = file.iccProfile(file.primary) {
            try wand.setProfile("icc", profile)
        }
        if let exif = file.exifProfile(file.primary) {
            try wand.setProfile("exif", exif)
        }
        // The pixels are upright already (an Exif tag only restated the transformations): so say
        // the image and, when written, its Exif block.
        try wand.applyOrientation(.up)
        return true
    }
}

extension ImageSource {
    /// Reads a HEIC or AVIF frame into `wand` through libheif: one copy of the pixels in
    /// ImageMagick's cache, alpha and ICC profile kept. ImageMagick 6's HEIC coder, the fallback
    /// for a file libheif cannot open from MagickIO's reader, drops the alpha image and the ICC
    /// profile, and takes twice the cache at its peak (it sets the image's colorspace after its
    /// size, and the pixel cache is copied for it), which is more than the guard can promise.
    /// ImageMagick's heap during the fallback is held to `heapShare` (``HeapBudget``); libheif's own
    /// path is bounded by libheif's limits and the estimate.
    func readHEIF(frame index: Int, from bytes: SourceBytes, into wand: Wand, cacheBytes: Int, heapShare: Int,
                  interrupt: Interrupt?) throws(MagickIOError) -> [DecoderWarning] {
        if try HEIFPrimary.decode(bytes, items: self.index?.heif, options: decodingOptions, into: wand, interrupt: interrupt) {
            return []
        }
        return try wand.read(bytes, format: format, ping: false, strictness: decodingOptions.strictness, cacheBytes: cacheBytes,
                             heapShare: heapShare)
    }
}
