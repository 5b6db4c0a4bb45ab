import CMagickWand
import Foundation

/// Decoded pixels with their metadata, from `ImageSource/image(at:)` or
/// `ImageSource/thumbnail(maxPixelSize:at:allowUpscale:options:)`.
///
/// ```swift
/// let upright = try source.image(at: 0).orientedCopy()
/// try upright.write(to: URL(fileURLWithPath: "upright.png"), as: .png)
/// ```
///
/// `Image` is an immutable `Sendable` value. Its wand is only ever read under a lock, and every
/// operation works on a clone (ImageMagick shares the pixel cache copy-on-write), so any number of
/// threads may encode or copy the same image at once.
public struct Image: Sendable {
    private let storage: Storage
    /// Width of the pixels in pixels.
    public let width: Int
    /// Height of the pixels in pixels.
    public let height: Int
    /// How the pixels must still be turned to appear upright; ``Orientation/up`` for thumbnails
    /// and after ``orientedCopy()``.
    public let orientation: Orientation

    /// What the decoder warned about, in its own words: warnings the source's
    /// ``DecodingOptions/strictness`` let through (``Strictness``). Empty for a clean decode.
    public let warnings: [String]

    /// Wraps a wand holding exactly one image; the image takes ownership.
    init(wand: Wand, orientation: Orientation, warnings: [String] = []) {
        wand.monitor(nil)  // no progress callback may outlive the call that set it
        MagickSetFirstIterator(wand.pointer)
        storage = Storage(wand: wand)
        width = wand.width
        height = wand.height
        self.orientation = orientation
        self.warnings = warnings
    }

    /// Width as a viewer shows it, after ``orientation``.
    public var orientedWidth: Int { orientation.swapsWidthAndHeight ? height : width }
    /// Height as a viewer shows it, after ``orientation``.
    public var orientedHeight: Int { orientation.swapsWidthAndHeight ? width : height }

    /// A copy whose pixels are turned upright, with ``orientation`` ``Orientation/up`` and the
    /// metadata kept (the EXIF orientation reset to 1).
    ///
    /// Stands on `MagickFlopImage`, `MagickRotateImage`, `MagickTransposeImage` and friends, as
    /// `MagickAutoOrientImage` does.
    public func orientedCopy() throws(MagickIOError) -> Image {
        try storage.withCopy { wand throws(MagickIOError) in
            try wand.applyOrientation(orientation)
            return Image(wand: wand.clone(), orientation: .up)
        }
    }

    /// The image encoded in `format`, keeping the metadata `metadata` says (thumbnails have none
    /// left to keep unless their ``ThumbnailOptions`` kept it).
    ///
    /// Pixels are written as they are (call ``orientedCopy()`` first to turn them upright); JPEG
    /// output is flattened onto white. Stands on `MagickGetImageBlob`.
    ///
    /// - Throws: ``MagickIOError/Kind/encodingFailed`` when the coder is missing or fails.
    public func encoded(as format: EncodingFormat, metadata: MetadataPolicy = .keepAll) throws(MagickIOError) -> Data {
        guard format.isAvailable else {
            throw MagickIOError(.encodingFailed, "this ImageMagick has no \(format.magickName) encoder")
        }
        return try storage.withCopy { wand throws(MagickIOError) in
            try wand.apply(metadata)
            return try wand.encode(as: format)
        }
    }

    /// Encodes the image and writes it to `url`, replacing any file there atomically.
    ///
    /// - Throws: ``MagickIOError`` of kind `encodingFailed` or `io`.
    public func write(to url: URL, as format: EncodingFormat, metadata: MetadataPolicy = .keepAll) throws(MagickIOError) {
        let data = try encoded(as: format, metadata: metadata)
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw MagickIOError(.io, "cannot write \(url.path): \(error.localizedDescription)")
        }
    }

    /// The pixels, 8 bits per channel, in `layout`, as stored (not turned upright); an image in
    /// another colour space (CMYK, YCbCr) is converted to sRGB first.
    ///
    /// Stands on `MagickExportImagePixels`.
    public func pixels(_ layout: PixelBuffer.Layout) throws(MagickIOError) -> PixelBuffer {
        let bytesPerRow = width * layout.bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: bytesPerRow * height)
        try storage.withCopy { wand throws(MagickIOError) in
            // Export maps channels by name, not meaning: a YCbCr image (ImageMagick's HEIC coder
            // returns one) or a CMYK one would come out as its raw planes.
            let colorspace = MagickGetImageColorspace(wand.pointer)
            if ![sRGBColorspace, RGBColorspace, GRAYColorspace].contains(colorspace) {
                try wand.check(MagickTransformImageColorspace(wand.pointer, sRGBColorspace), fallback: .corruptImage)
            }
            // Export reads the opacity channel even of an image without alpha, and some coders
            // (ImageMagick's HEIC) leave it unset there: such an image is opaque.
            if layout.map.contains("A"), MagickGetImageAlphaChannel(wand.pointer) == MagickFalse {
                try wand.check(MagickSetImageAlphaChannel(wand.pointer, OpaqueAlphaChannel), fallback: .corruptImage)
            }
            let status = bytes.withUnsafeMutableBytes { raw in
                MagickExportImagePixels(wand.pointer, 0, 0, width, height, layout.map, CharPixel, raw.baseAddress)
            }
            try wand.check(status, fallback: .corruptImage)
        }
        return PixelBuffer(layout: layout, width: width, height: height, bytesPerRow: bytesPerRow, bytes: bytes)
    }

    /// The image's properties as decoded (metadata included).
    public var properties: ImageProperties {
        var properties = storage.withCopy { wand in ImageProperties(wand: wand, format: wand.imageFormat) }
        properties.orientation = orientation
        return properties
    }
}

extension Image {
    /// Owns the image's wand. The wand is touched only under `lock`, and only to copy its image
    /// into another wand.
    final class Storage: @unchecked Sendable {
        private let wand: Wand
        private let lock = NSLock()

        init(wand: Wand) {
            self.wand = wand
        }

        /// Runs `body` on this thread's wand holding a copy of the image (`MagickAddImage`: the
        /// pixel cache is shared copy-on-write, so the copy costs no pixels until written).
        func withCopy<T, E: Error>(_ body: (Wand) throws(E) -> T) throws(E) -> T {
            try Wand.withThreadWand { (copy: Wand) throws(E) -> T in
                lock.withLock { _ = MagickAddImage(copy.pointer, wand.pointer) }
                MagickSetFirstIterator(copy.pointer)
                return try body(copy)
            }
        }
    }
}

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
            MagickSetOption(pointer, "png:exclude-chunk", "date,tIME")
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
