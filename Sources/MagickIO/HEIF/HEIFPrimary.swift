import Foundation

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

    /// The primary image's ICC profile, which ImageMagick 6's HEIC coder leaves behind (a phone's
    /// Display P3 photo would otherwise pass for sRGB), or nil.
    static func profile(in bytes: SourceBytes, maxPixelCount: Int) -> [UInt8]? {
        HEIFFile(bytes, maxPixelCount: maxPixelCount).flatMap { $0.iccProfile($0.primary) }
    }
}

extension ImageSource {
    /// Reads a HEIC or AVIF frame into `wand`: through ImageMagick's coder, with the ICC profile it
    /// drops put back; or, for an image with alpha, which that coder cannot read, through libheif.
    func readHEIF(frame index: Int, into wand: Wand, cacheBytes: Int) throws(MagickIOError) -> [DecoderWarning] {
        if frames[index].hasAlpha {
            try HEIFPrimary.decode(bytes, maxPixelCount: decodingOptions.maxPixelCount, into: wand)
            return []
        }
        let warnings = try wand.read(bytes, format: format, ping: false, strictness: decodingOptions.strictness, cacheBytes: cacheBytes)
        if wand.profile("icc") == nil, let profile = HEIFPrimary.profile(in: bytes, maxPixelCount: decodingOptions.maxPixelCount) {
            wand.setProfile("icc", profile)
        }
        return warnings
    }
}
