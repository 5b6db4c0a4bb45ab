import Foundation

/// An encoded image opened lazily: its format and frame headers are read at once, its pixels only
/// when asked for. The Linux counterpart of ImageIO's `CGImageSource`.
///
/// ```swift
/// let source = try ImageSource(url: URL(fileURLWithPath: "photo.jpg"))
/// print(source.format, source.count)                  // jpeg 1
/// let p = try source.properties(at: 0)                // no pixels decoded
/// let thumb = try source.thumbnail(maxPixelSize: 256) // upright, sRGB, no metadata
/// try thumb.write(to: URL(fileURLWithPath: "t.jpg"), as: .jpeg(quality: 85))
/// ```
///
/// The format comes from the content's signature, never from a file name, and the bytes are
/// decoded only by that format's decoder: ImageMagick's coder, libheif for HEIC and AVIF, or, for
/// a thumbnail, MagickIO's own decoders (libjpeg-turbo, libpng, libwebp, libtiff; giflib and
/// libwebp for animation frames; see <doc:ThumbnailPipeline>). `ImageSource` is an immutable `Sendable` value:
/// any number of threads may use one at once, each operation works on wands of its own.
public struct ImageSource: Sendable {
    /// The encoded bytes: in memory, or a file held open.
    let bytes: SourceBytes
    /// The format, from the content.
    public let format: ImageFormat
    /// The options and limits every decode of this source is checked against before it starts.
    public let decodingOptions: DecodingOptions
    /// Each frame's header, from MagickIO's walkers at open (at most `maxFrameCount`).
    var frames: [ImageProperties]
    /// The header as parsed in Swift, when MagickIO parses this format.
    let header: ImageHeader?
    /// A TIFF's or a HEIF file's structure, walked once at open.
    let index: ContainerIndex?

    /// Opens the image file at `url`, reading its header only.
    ///
    /// MagickIO opens the file itself and keeps it open while the source lives (the source reads
    /// the same file even if the path is replaced); the path is never interpreted by ImageMagick.
    ///
    /// - Throws: ``MagickIOError`` of kind `fileNotFound`, `emptyData`, `unsupportedFormat`,
    ///   `formatNotAllowed` or `corruptImage` (and `io` when the file cannot be read).
    public init(url: URL, options: DecodingOptions = .default) throws {
        self = try Self.open(url: url, options: options)
    }

    static func open(url: URL, options: DecodingOptions) throws(MagickIOError) -> ImageSource {
        guard url.isFileURL else {
            throw MagickIOError(.io, "\(url.absoluteString) is not a file URL")
        }
        return try ImageSource(bytes: .file(OpenFile(path: url.path)), options: options)
    }

    /// Opens the image in the file `descriptor` refers to, reading its header only.
    ///
    /// A regular file is streamed to ImageMagick like a file opened by URL, never read whole into
    /// memory; MagickIO keeps a duplicate of the descriptor, so the caller may close its own at
    /// once. Anything else (a pipe, a socket) is read to its end into memory first, because
    /// ImageMagick needs to read it more than once: at most ``DecodingOptions/memoryBudget`` bytes
    /// of it, since holding more would take more than any decode may.
    ///
    /// - Throws: as ``init(url:options:)``, ``MagickIOError/Kind/io`` when the descriptor
    ///   cannot be read, and ``MagickIOError/Kind/limitExceeded`` (`memoryBudget`) when a pipe or
    ///   socket gives more than the budget.
    public init(fileDescriptor descriptor: Int32, options: DecodingOptions = .default) throws {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MagickIOError.errno("descriptor \(descriptor)")
        }
        if status.st_mode & S_IFMT == S_IFREG {
            try self.init(bytes: .file(OpenFile(duplicating: descriptor)), options: options)
        } else {
            try self.init(bytes: .memory(Self.readToEnd(descriptor, limit: options.memoryBudget)), options: options)
        }
    }

    /// Opens the image `handle` reads, as ``init(fileDescriptor:options:)``.
    public init(fileHandle handle: FileHandle, options: DecodingOptions = .default) throws {
        try self.init(fileDescriptor: handle.fileDescriptor, options: options)
    }

    private static func readToEnd(_ descriptor: Int32, limit: Int) throws(MagickIOError) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw MagickIOError.errno("reading descriptor \(descriptor)") }
            if got == 0 { return data }
            guard data.count + got <= limit else {
                throw MagickIOError.limit("memoryBudget", requested: data.count + got, limit: limit,
                                          "descriptor \(descriptor) (a pipe or socket) gives more than the memory budget to hold")
            }
            data.append(contentsOf: buffer[0..<got])
        }
    }

    /// Opens an image held in memory, reading its header only.
    ///
    /// - Throws: ``MagickIOError`` of kind `emptyData`, `unsupportedFormat`, `formatNotAllowed` or
    ///   `corruptImage`.
    public init(data: Data, options: DecodingOptions = .default) throws {
        try self.init(bytes: .memory(data), options: options)
    }

    /// Sniffs the format, parses the header in Swift, and reads every frame's properties with
    /// MagickIO's own walkers (``FrameProperties``): no ImageMagick coder runs for the eight formats
    /// allowed by default. A format outside them that the user allowed (``ImageMagick/allowedDecoders``,
    /// such as `tga`) has no walker and is pinged by its ImageMagick coder (`MagickPingImageBlob`),
    /// outside the promise that opening costs only the headers.
    ///
    /// `index`: the container's walk made already, of these bytes (a decode worker's source takes
    /// its host's, ``WorkerRequest/pngChunks``, for a file of the size the host walked: a file
    /// rewritten in place at the same size between the two is read by the index the host made,
    /// as the host's own header was); used where it is of the format found.
    init(bytes: SourceBytes, options: DecodingOptions, index given: ContainerIndex? = nil) throws(MagickIOError) {
        guard bytes.count > 0 else { throw MagickIOError(.emptyData, "the data is empty") }
        let head = Data(bytes.read(at: 0, length: 8192))
        guard let format = ImageFormat.sniff(head) ?? ImageFormat.magickGuess(head) else {
            throw MagickIOError(.unsupportedFormat, "the content is not a recognised image format")
        }
        guard ImageMagick.allowedDecoders.contains(format) else {
            throw MagickIOError(.formatNotAllowed, "\(format.rawValue) content is not among the allowed decoders")
        }
        let index = given?.png != nil && format == .png ? given : ContainerIndex(bytes, format: format, maxPages: options.maxFrameCount)
        var header = ImageHeader.parse(bytes, format: format, index: index)
        if let header, let reason = header.corrupt {
            throw MagickIOError(header.refusal, reason)
        }
        self.bytes = bytes
        self.format = format
        self.decodingOptions = options
        var frames: [ImageProperties]
        if let walked = try FrameProperties.read(bytes, format: format, header: &header, index: index, options: options) {
            frames = walked
        } else {
            frames = try Self.ping(bytes, format: format, options: options)
        }
        for index in frames.indices where frames[index].isOffsetOnCanvas {
            // Composited on a transparent canvas it does not cover.
            frames[index].hasAlpha = true
        }
        if format.isHEIF, frames.first?.hasAlpha == true {
            header?.hasAlpha = true
        }
        if let empty = frames.firstIndex(where: { $0.pixelWidth <= 0 || $0.pixelHeight <= 0 }) {
            throw MagickIOError(.corruptImage, "frame \(empty) has no pixels (\(frames[empty].pixelWidth)x\(frames[empty].pixelHeight))")
        }
        guard !frames.isEmpty else { throw MagickIOError(.corruptImage, "the image has no frames") }
        self.frames = frames
        self.header = header
        self.index = index
    }

    /// Every frame's properties from ImageMagick's ping, for a format MagickIO has no walker for.
    private static func ping(_ bytes: SourceBytes, format: ImageFormat, options: DecodingOptions) throws(MagickIOError) -> [ImageProperties] {
        try Wand.withThreadWand { wand throws(MagickIOError) in
            try wand.read(bytes, format: format, ping: true, strictness: options.strictness)
            return wand.eachImage { ImageProperties(wand: wand, format: format) }
        }
    }

    /// The number of frames (GIF image descriptors, WebP `ANMF` frames) or pages (TIFF directories,
    /// classic or BigTIFF), as MagickIO's own walker counts them; 1 for a still image.
    ///
    /// At most ``DecodingOptions/maxFrameCount``: a file that declares more offers its first
    /// `maxFrameCount` frames only (as imgproxy's `MAX_ANIMATION_FRAMES`), and a walk that cannot
    /// finish (a TIFF directory chain that loops) offers the frames it reached before.
    public var count: Int { frames.count }

    /// The header of frame `index`, without decoding pixels.
    ///
    /// - Throws: ``MagickIOError/Kind/frameOutOfRange`` when `index` is not below ``count``.
    public func properties(at index: Int = 0) throws -> ImageProperties {
        try checkFrame(index)
        return frames[index]
    }

    /// Decodes frame `index` whole, as stored (not turned upright), with its metadata.
    ///
    /// Stands on `MagickReadImage`/`MagickReadImageBlob`; checked against ``decodingOptions`` first and
    /// bounded by the process's ``ResourceLimits``.
    ///
    /// - Throws: ``MagickIOError`` of kind `frameOutOfRange`, `corruptImage` or `limitExceeded`.
    public func image(at index: Int = 0) throws -> Image {
        try image(at: index, interrupt: nil)
    }

    func image(at index: Int, interrupt: Interrupt?) throws(MagickIOError) -> Image {
        try checkFrame(index)
        if isolatesDecodes {
            return try DecodeWorkers.run(.image(index: index), source: self,
                                         interrupt: interrupt ?? decodingOptions.timeLimit.map { Interrupt(timeLimit: $0) })
        }
        return try withDecoded(frame: index, interrupt: interrupt) { wand, warnings throws(MagickIOError) in
            Image(wand: wand.clone(), orientation: frames[index].orientation, warnings: warnings.map(\.message))
        }
    }

    func checkFrame(_ index: Int) throws(MagickIOError) {
        guard frames.indices.contains(index) else {
            throw MagickIOError(.frameOutOfRange, "frame \(index) requested, the image has \(count)")
        }
    }
}
