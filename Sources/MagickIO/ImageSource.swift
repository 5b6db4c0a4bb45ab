import CMagickWand
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
/// decoded by that format's ImageMagick coder only. `ImageSource` is an immutable `Sendable` value:
/// any number of threads may use one at once, each operation works on wands of its own.
public struct ImageSource: Sendable {
    /// The encoded bytes.
    let bytes: Data
    /// The format, from the content.
    public let format: ImageFormat
    /// Each frame's header, from one ping at open.
    let frames: [ImageProperties]

    /// Opens the image file at `url`, reading its header only.
    ///
    /// - Throws: ``MagickIOError`` of kind `fileNotFound`, `emptyData`, `unsupportedFormat`,
    ///   `formatNotAllowed` or `corruptImage` (and `io` when the file cannot be read).
    public init(url: URL) throws(MagickIOError) {
        try self.init(data: Self.mapFile(at: url))
    }

    /// Opens an image held in memory, reading its header only.
    ///
    /// Stands on `MagickPingImageBlob` with the coder forced to the sniffed format
    /// (`MagickSetFormat`).
    ///
    /// - Throws: ``MagickIOError`` of kind `emptyData`, `unsupportedFormat`, `formatNotAllowed` or
    ///   `corruptImage`.
    public init(data: Data) throws(MagickIOError) {
        guard !data.isEmpty else { throw MagickIOError(.emptyData, "the data is empty") }
        guard let format = ImageFormat.sniff(data) else {
            if let known = ImageFormat.magickGuess(data) {
                throw MagickIOError(.formatNotAllowed, "\(known.rawValue) content is not among the formats MagickIO decodes")
            }
            throw MagickIOError(.unsupportedFormat, "the content is not a recognised image format")
        }
        let wand = Wand()
        try wand.read(data, format: format, ping: true)
        var frames: [ImageProperties] = []
        MagickResetIterator(wand.pointer)
        while MagickNextImage(wand.pointer) != MagickFalse {
            frames.append(ImageProperties(wand: wand, format: format))
        }
        self.bytes = data
        self.format = format
        self.frames = frames
    }

    /// The number of frames (GIF, WebP) or pages (TIFF); 1 for a still image.
    public var count: Int { frames.count }

    /// The header of frame `index`, without decoding pixels.
    ///
    /// - Throws: ``MagickIOError/Kind/frameOutOfRange`` when `index` is not below ``count``.
    public func properties(at index: Int = 0) throws(MagickIOError) -> ImageProperties {
        try checkFrame(index)
        return frames[index]
    }

    /// Decodes frame `index` whole, as stored (not turned upright), with its metadata.
    ///
    /// Stands on `MagickReadImageBlob`; bounded by the process's ``ResourceLimits``.
    ///
    /// - Throws: ``MagickIOError`` of kind `frameOutOfRange`, `corruptImage` or `limitExceeded`.
    public func image(at index: Int = 0) throws(MagickIOError) -> Image {
        try checkFrame(index)
        let wand = try decode(frame: index)
        return Image(wand: wand, orientation: frames[index].orientation)
    }

    func checkFrame(_ index: Int) throws(MagickIOError) {
        guard frames.indices.contains(index) else {
            throw MagickIOError(.frameOutOfRange, "frame \(index) requested, the image has \(count)")
        }
    }

    /// Reads frame `index` into a new wand holding that frame only. `options` are ImageMagick
    /// read options (`jpeg:size`).
    func decode(frame index: Int, options: [String: String] = [:]) throws(MagickIOError) -> Wand {
        let wand = Wand()
        for (key, value) in options {
            MagickSetOption(wand.pointer, key, value)
        }
        try wand.read(bytes, format: format, frame: count > 1 ? index : nil, ping: false)
        guard wand.imageCount == 1 else {
            throw MagickIOError(.corruptImage, "expected frame \(index) alone, the decoder returned \(wand.imageCount) frames")
        }
        MagickSetFirstIterator(wand.pointer)
        return wand
    }

    private static func mapFile(at url: URL) throws(MagickIOError) -> Data {
        guard url.isFileURL else {
            throw MagickIOError(.io, "\(url.absoluteString) is not a file URL")
        }
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MagickIOError(.fileNotFound, "no file at \(path)")
        }
        guard !isDirectory.boolValue else {
            throw MagickIOError(.io, "\(path) is a directory")
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw MagickIOError(.io, "cannot read \(path): \(error.localizedDescription)")
        }
    }
}
