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
    let storage: Storage
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

    /// Where a ``SizingMode/fill`` thumbnail was cut from its picture, in the upright picture's
    /// pixels (chosen by ``ThumbnailOptions/crop``); nil when nothing was cropped.
    public internal(set) var cropRect: ImageRect?

    /// Which decoder made the pixels: ImageMagick's coder, or one of MagickIO's own row paths.
    let decoder: Decoder

    /// Where a thumbnail's pixels came from (see ``RowSource``).
    enum Decoder: String, Sendable {
        case imageMagick = "ImageMagick"
        case libjpeg = "libjpeg-turbo"
        case libpng
        case libwebp
        case libheif
        case libtiff
        case giflib
    }

    /// An animated thumbnail's frames (``ThumbnailOptions/animated``), frame 0 being the image's
    /// own pixels; nil for a still image.
    let animation: AnimationFrames?

    /// Wraps a wand holding exactly one image; the image takes ownership.
    init(wand: Wand, orientation: Orientation, warnings: [String] = [], decoder: Decoder = .imageMagick,
         animation: AnimationFrames? = nil) {
        wand.monitor(nil)  // no progress callback may outlive the call that set it
        wand.rewind()
        self.init(storage: Storage(wand: wand), size: (wand.width, wand.height), orientation: orientation, warnings: warnings,
                  decoder: decoder, animation: animation)
    }

    /// A decode worker's image (``ImageSnapshot``) and its pixels, made into a wand in this process
    /// only when something needs ImageMagick (see ``Storage``).
    init(answer snapshot: ImageSnapshot, pixels: [UInt8], orientation: Orientation, warnings: [String], decoder: Decoder,
         animation: AnimationFrames?) {
        self.init(storage: Storage(snapshot: snapshot, pixels: pixels), size: (snapshot.width, snapshot.height),
                  orientation: orientation, warnings: warnings, decoder: decoder, animation: animation)
    }

    private init(storage: Storage, size: (width: Int, height: Int), orientation: Orientation, warnings: [String],
                 decoder: Decoder, animation: AnimationFrames?) {
        self.storage = storage
        (width, height) = size
        self.orientation = orientation
        self.warnings = warnings
        self.decoder = decoder
        self.animation = animation
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
    public func orientedCopy() throws -> Image {
        try storage.withCopy { wand throws(MagickIOError) in
            try wand.applyOrientation(orientation)
            return Image(wand: wand.clone(), orientation: .up)
        }
    }

    /// The image encoded in `format`, keeping the metadata `metadata` says (thumbnails have none
    /// left to keep unless their ``ThumbnailOptions`` kept it).
    ///
    /// Pixels are written as they are (call ``orientedCopy()`` first to turn them upright); JPEG
    /// output is flattened onto white. An animated thumbnail (``frameCount`` above 1) is written
    /// as an animated WebP or GIF by libwebp's `WebPAnimEncoder` or giflib, every frame with its
    /// delay and the loop count (see <doc:AnimatedThumbnails>); other formats take frame 0. Stands on `MagickGetImageBlob`; HEIC and AVIF on libheif's
    /// `heif_context_encode_image` and `heif_context_write`, which get the pixels turned upright
    /// (they carry no EXIF to say how to turn them) and none of the metadata.
    ///
    /// - Throws: ``MagickIOError/Kind/encodingFailed`` when the coder is missing or fails.
    public func encoded(as format: EncodingFormat, metadata: MetadataPolicy = .keepAll) throws -> Data {
        try encodedData(as: format, metadata: metadata)
    }

    func encodedData(as format: EncodingFormat, metadata: MetadataPolicy) throws(MagickIOError) -> Data {
        // Animated WebP and GIF, and any GIF: written frame by frame (AnimationWriter).
        let frames = if let animation { animation } else { try stillGIF(format) }
        if let frames, let data = try frames.encoded(as: format) { return data }
        guard format.isAvailable else {
            let coder = format.heifCodec == nil ? "ImageMagick" : "libheif"
            throw MagickIOError(.encodingFailed, "this \(coder) has no \(format.magickName) encoder")
        }
        if let codec = format.heifCodec {
            let encoder = HEIFEncoder(codec: codec, quality: format.quality ?? 100)
            return try storage.withCopy { wand throws(MagickIOError) in
                try wand.applyOrientation(orientation)
                let (width, height, hasAlpha) = (wand.width, wand.height, wand.hasAlpha)
                let rgba = try wand.exportPixels(.rgba8, width: width, height: height)
                return try encoder.encode(rgba: rgba, width: width, height: height, hasAlpha: hasAlpha)
            }
        }
        if case .jpeg(let quality) = format, let data = try storage.directJPEG(quality: quality) {
            return data
        }
        return try storage.withCopy { wand throws(MagickIOError) in
            try wand.apply(metadata)
            return try wand.encode(as: format)
        }
    }

    /// Encodes the image and writes it to `url`, replacing any file there atomically: a reader
    /// finds the old file or the new one, never part of either. The file is not flushed to disk
    /// (as ImageIO and libvips write images): where it must survive a power loss, `fsync` it and
    /// its directory. A file replaced keeps its permissions; a symbolic link is replaced, not followed.
    ///
    /// - Throws: ``MagickIOError`` of kind `encodingFailed` or `io`.
    public func write(to url: URL, as format: EncodingFormat, metadata: MetadataPolicy = .keepAll) throws {
        try writeFile(to: url, as: format, metadata: metadata)
    }

    func writeFile(to url: URL, as format: EncodingFormat, metadata: MetadataPolicy) throws(MagickIOError) {
        try AtomicFile.write(encodedData(as: format, metadata: metadata), to: url)
    }

    /// The pixels, 8 bits per channel, in `layout`, as stored (not turned upright); an image in
    /// another colour space (CMYK, YCbCr) is converted to sRGB first.
    ///
    /// Stands on `MagickExportImagePixels`.
    public func pixels(_ layout: PixelBuffer.Layout) throws -> PixelBuffer {
        let bytes = try storage.withCopy { wand throws(MagickIOError) in
            try wand.exportPixels(layout, width: width, height: height)
        }
        return PixelBuffer(layout: layout, width: width, height: height, bytesPerRow: width * layout.bytesPerPixel, bytes: bytes)
    }

    /// The image's properties as decoded (metadata included), read once and kept.
    public var properties: ImageProperties {
        var properties = storage.properties
        properties.orientation = orientation
        return properties
    }
}

extension Image {
    /// Owns the image's wand. The wand is touched only under `lock`: to copy its image into
    /// another wand, or to read its properties once.
    ///
    /// A decode worker's image (``ImageSnapshot``) stays its snapshot and 16-bit pixels until
    /// something needs ImageMagick: then it is made into a wand here, once (under the gate, as the
    /// copy is: ``withCopy(_:)``). A JPEG of it needs none where MagickIO's own writer reproduces
    /// ImageMagick's (``directJPEG(quality:)``): such a thumbnail, written as JPEG, never becomes an
    /// ImageMagick image in its host. Held this way, its pixels are outside ImageMagick's pool
    /// (at most ``DecodeWorkers/keptAnswerBytes`` each); an answer ImageMagick cannot make again
    /// (a profile it rejects) fails when first used, not when it arrives.
    /// `@unchecked Sendable`: the wand (not thread-safe), the snapshot and the cached properties
    /// are touched only under `lock`.
    final class Storage: @unchecked Sendable {
        private var made: Wand?
        private var answer: (snapshot: ImageSnapshot, pixels: [UInt8])?
        private let lock = NSLock()
        private var readProperties: ImageProperties?

        init(wand: Wand) {
            made = wand
        }

        init(snapshot: ImageSnapshot, pixels: [UInt8]) {
            answer = (snapshot, pixels)
        }

        /// The wand, made from the worker's answer on first use. Called under `lock`, within the
        /// gate (a full pool then runs the caller again alone).
        private func wand() throws(MagickIOError) -> Wand {
            if let made { return made }
            guard let (snapshot, pixels) = answer else { preconditionFailure("an image without pixels") }
            let wand = Wand()
            try pixels.withUnsafeBytes { pixels in
                Result { () throws(MagickIOError) in try snapshot.restore(into: wand, pixels: pixels.baseAddress!) }
            }.get()
            made = wand
            answer = nil
            return wand
        }

        /// The pool the answer takes once made into a wand (8 bytes a pixel in ImageMagick's Q16
        /// build); 0 once it is one. Called under `lock`.
        private var answerBytes: Int {
            answer.map { $0.snapshot.width.saturatingTimes($0.snapshot.height).saturatingTimes(8) } ?? 0
        }

        private var restoreBytes: Int { lock.withLock { answerBytes } }

        /// The JPEG of a worker's answer not yet made into a wand, written without ImageMagick
        /// (``ImageSnapshot/directJPEG(pixels:quality:)``); nil when ImageMagick writes it.
        func directJPEG(quality: Int) throws(MagickIOError) -> Data? {
            guard let (snapshot, pixels) = keptAnswer else { return nil }
            return try pixels.withUnsafeBytes { pixels in
                Result { () throws(MagickIOError) in try snapshot.directJPEG(pixels: pixels.baseAddress!, quality: quality) }
            }.get()
        }

        /// The image's properties, read on first use (`MagickGetImage…`; reading EXIF tags
        /// parses the profile, so it is not done for images that never need it).
        var properties: ImageProperties {
            if let kept = lock.withLock({ readProperties }) { return kept }
            let read = try? AdmissionGate.shared.retryingAlone(restoreBytes) { () throws(MagickIOError) -> ImageProperties in
                lock.lock()
                defer { lock.unlock() }
                if let readProperties { return readProperties }
                let wand = try wand()
                let properties = ImageProperties(wand: wand, format: wand.imageFormat)
                readProperties = properties
                return properties
            }
            if let read { return read }
            // Only a worker's answer fails to be read (``wand()``): when this process has no room
            // to make it into a wand even alone, or ImageMagick refuses what it carries. What its
            // snapshot says, without EXIF tags.
            return lock.withLock {
                readProperties ?? made.map { ImageProperties(wand: $0, format: $0.imageFormat) } ?? answer!.snapshot.propertiesWithoutEXIF
            }
        }

        func copyImage(into copy: Wand) throws(MagickIOError) {
            lock.lock()
            defer { lock.unlock() }
            try copy.addImages(of: wand())
        }

        /// The snapshot and pixels the image came as, while it is not yet a wand (``wand()`` lets
        /// them go when it makes one).
        private var keptAnswer: (snapshot: ImageSnapshot, pixels: [UInt8])? { lock.withLock { answer } }

        /// Whether the image is still the snapshot and pixels it came as (tests).
        var holdsAnswer: Bool { keptAnswer != nil }

        /// What a decode worker answers with: the snapshot of the image (as it was made, when it
        /// was made without a wand: ``WandlessThumbnail``).
        func snapshot() throws(MagickIOError) -> ImageSnapshot {
            if let answer = keptAnswer { return answer.snapshot }
            return try reading { wand throws(MagickIOError) in ImageSnapshot(wand) }
        }

        /// Writes the pixels `snapshot` describes (``snapshot()``'s) into `buffer`.
        func exportPixels(_ snapshot: ImageSnapshot, into buffer: UnsafeMutableRawPointer) throws(MagickIOError) {
            if let answer = keptAnswer {
                precondition(answer.pixels.count == snapshot.pixelBytes, "a snapshot of other pixels")
                answer.pixels.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                return
            }
            try reading { wand throws(MagickIOError) in try snapshot.exportPixels(wand, into: buffer) }
        }

        /// Runs `body` on the image's own wand, under the lock, for reads that change nothing
        /// (an export of RGB pixels; anything that may convert or write takes ``withCopy(_:)``).
        func reading<T>(_ body: (Wand) throws(MagickIOError) -> T) throws(MagickIOError) -> T {
            try AdmissionGate.shared.retryingAlone(restoreBytes) { () throws(MagickIOError) -> T in
                lock.lock()
                defer { lock.unlock() }
                return try body(wand())
            }
        }

        /// Runs `body` on this thread's wand holding a copy of the image (`MagickAddImage`: the
        /// pixel cache is shared copy-on-write, so the copy costs no pixels until written). What
        /// `body` does (an encode, a turn, an export) may write it: when ImageMagick's pool cannot
        /// take that, it runs again alone (``AdmissionGate/retryingAlone(_:_:)``) rather than fail
        /// beside other work.
        func withCopy<T>(_ body: (Wand) throws(MagickIOError) -> T) throws(MagickIOError) -> T {
            try AdmissionGate.shared.retryingAlone(restoreBytes.saturatingPlus(cacheBytes)) { () throws(MagickIOError) -> T in
                try Wand.withThreadWand { (copy: Wand) throws(MagickIOError) -> T in
                    try copyImage(into: copy)
                    return try body(copy)
                }
            }
        }

        /// The pool a whole copy of every frame takes: 8 bytes a pixel in ImageMagick's Q16 build.
        private var cacheBytes: Int {
            lock.withLock {
                guard let made else { return answerBytes }
                return made.eachImage { made.width.saturatingTimes(made.height) }.reduce(0) { $0.saturatingPlus($1) }.saturatingTimes(8)
            }
        }
    }
}
