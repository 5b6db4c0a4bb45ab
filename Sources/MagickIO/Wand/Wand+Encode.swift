internal import CMagickWand
import Foundation

extension Wand {
    /// ImageMagick's format of the current image, lowercased.
    var imageFormat: ImageFormat {
        guard let name = MagickGetImageFormat(pointer) else { return ImageFormat(rawValue: "") }
        defer { MagickRelinquishMemory(name) }
        return ImageFormat(rawValue: String(cString: name))
    }

    /// The current image encoded in `format` (the image is changed: call on a copy).
    func encode(as format: EncodingFormat) throws(MagickIOError) -> Data {
        // The wand's own format (set for a read) would win over the image's: set both.
        try check(MagickSetFormat(pointer, format.magickName), fallback: .encodingFailed)
        try check(MagickSetImageFormat(pointer, format.magickName), fallback: .encodingFailed)
        if let quality = format.quality {
            let clamped = min(max(quality, 1), 100)
            try check(MagickSetImageCompressionQuality(pointer, clamped), fallback: .encodingFailed)
        }
        if !format.keepsAlpha, MagickGetImageAlphaChannel(pointer) != MagickFalse {
            try flattenOntoWhite()
        }
        if format == .png {
            // ImageMagick stamps PNGs with the time of writing (tIME, date:* text): leave them out so
            // that the same image always encodes to the same bytes.
            try check(MagickSetOption(pointer, "png:exclude-chunk", "date,tIME"), fallback: .encodingFailed)
        }
        var length = 0
        guard let blob = MagickGetImageBlob(pointer, &length), length > 0 else {
            throw MagickIOError(exception: takeException(minimum: ErrorException), fallback: .encodingFailed)
        }
        defer { MagickRelinquishMemory(blob) }
        return Data(bytes: blob, count: length)
    }

    /// Composites the image onto opaque white and drops the alpha channel.
    func flattenOntoWhite() throws(MagickIOError) {
        let white = NewPixelWand()
        defer { DestroyPixelWand(white) }
        PixelSetColor(white, "white")
        try check(MagickSetImageBackgroundColor(pointer, white), fallback: .encodingFailed)
        try check(MagickSetImageAlphaChannel(pointer, RemoveAlphaChannel), fallback: .encodingFailed)
    }
}
