import Foundation
import Synchronization

/// An image whose bytes arrive a chunk at a time (a download, a socket): its properties as soon
/// as its header has arrived, its pixels once the last chunk has. The counterpart of ImageIO's
/// `CGImageSourceCreateIncremental` and `CGImageSourceUpdateData`.
///
/// ```swift
/// let incremental = IncrementalImageSource()
/// var layout: (width: Int, height: Int)?
/// for try await chunk in download {
///     incremental.append(chunk)
///     if incremental.status == .headerComplete, layout == nil {
///         let p = try incremental.properties(at: 0)           // size and orientation, early
///         layout = (p.orientedWidth, p.orientedHeight)
///     }
/// }
/// incremental.append(Data(), isFinal: true)
/// let thumb = try incremental.thumbnail(maxPixelSize: 256)  // once `status == .complete`
/// ```
///
/// After an append, while the header is awaited, MagickIO pings what has arrived
/// (`MagickPingImageBlob`, through ``ImageSource/init(data:options:)``), but only once a walk of
/// the format's structure in Swift says the header is in, so that a ping is not wasted on every
/// chunk:
/// - JPEG: once the frame header (the SOF segment) is in. libjpeg reports a header only at the
///   first scan, so MagickIO pings the bytes up to the SOF followed by an empty scan header and an
///   end marker of its own; the markers ImageMagick reads (EXIF, ICC, JFIF) come before the SOF.
/// - PNG: once the first `IDAT` chunk has begun (libpng reads every header chunk before it).
/// - GIF: once the first frame is complete (ImageMagick's GIF ping fails on a frame cut short).
/// - TIFF: once the first directory and every value it points to are in (the strips may follow).
/// - WebP: once the whole `RIFF` chunk is in (ImageMagick 6's coder reads nothing before that).
/// - Other formats, and data that does not follow its format's structure: each time the data has
///   grown by a quarter (at least 32 bytes) since the last ping.
///
/// From that point ``properties(at:)`` answers what an ``ImageSource`` of the whole file answers.
/// GIF frames and TIFF pages keep being counted as they arrive (pinged again at most each time
/// the data has grown by a quarter): ``count`` is the number of frames known so far.
///
/// Every method may be called from any thread or task. An append runs its ping on the calling
/// thread while holding the source's lock, so appends take effect in the order they are made and
/// readers wait for a ping under way; `image(at:)` and the thumbnail decode outside the lock.
public final class IncrementalImageSource: Sendable {
    /// How far an incremental source has got.
    ///
    /// ```swift
    /// switch incremental.status {
    /// case .waitingForHeader: break
    /// case .headerComplete: showPlaceholder(try incremental.properties(at: 0))
    /// case .complete: show(try incremental.thumbnail(maxPixelSize: 512))
    /// case .failed(let error): print(error.kind)
    /// }
    /// ```
    public enum Status: Sendable, Hashable {
        /// Not enough bytes yet to know the format and the first frame's header.
        case waitingForHeader
        /// ``IncrementalImageSource/properties(at:)`` answers; the pixels are not all there yet.
        case headerComplete
        /// The final chunk has arrived and the whole image opened: everything answers, as an
        /// ``ImageSource`` would (a truncated file is still `complete` when its header pings, and
        /// its decode then reports ``MagickIOError/Kind/corruptImage``).
        case complete
        /// No more data can make the image readable; every method throws this error.
        case failed(MagickIOError)
    }

    /// The options the image is opened and decoded with (``source`` has them too).
    ///
    /// ```swift
    /// let incremental = IncrementalImageSource(options: DecodingOptions(strictness: .acceptPartial))
    /// incremental.options.strictness   // .acceptPartial
    /// ```
    public let options: DecodingOptions

    private let state = Locked(Progress())

    /// Makes an empty incremental source; bytes come through ``append(_:isFinal:)``.
    ///
    /// ```swift
    /// let incremental = IncrementalImageSource(options: DecodingOptions(maxPixelCount: 50_000_000))
    /// ```
    public init(options: DecodingOptions = .default) {
        self.options = options
    }

    /// Adds the next bytes of the image; `isFinal` says they are the last (an empty final chunk is
    /// fine).
    ///
    /// ```swift
    /// incremental.append(chunk)                       // as bytes arrive
    /// incremental.append(last, isFinal: true)         // then the whole image is opened
    /// ```
    ///
    /// While the header is awaited this may ping what has arrived (see the type's discussion,
    /// `MagickPingImageBlob`); the final append opens the whole image, as
    /// ``ImageSource/init(data:options:)`` does, and moves ``status`` to
    /// ``Status/complete`` or ``Status/failed(_:)``. The status fails before the final append when
    /// no more data can help: content recognised as no format MagickIO may decode
    /// (``MagickIOError/Kind/unsupportedFormat``, ``MagickIOError/Kind/formatNotAllowed``; the
    /// first 32 bytes decide, 64 for an ISO `ftyp` box, 8 KiB when
    /// ``MagickIO/MagickIO/allowedDecoders`` holds formats without a MagickIO signature), or a
    /// header over the limits (``MagickIOError/Kind/limitExceeded``).
    ///
    /// Appends after the final one, or once the status is ``Status/complete`` or
    /// ``Status/failed(_:)``, are ignored.
    public func append(_ data: Data, isFinal: Bool = false) {
        let options = options
        state.withLock { progress in
            progress.append(data, isFinal: isFinal, options: options)
        }
    }

    /// Where the source has got; moves only forward: ``Status/waitingForHeader``,
    /// ``Status/headerComplete``, then ``Status/complete`` (only after the final append) or
    /// ``Status/failed(_:)`` from any of the first two.
    ///
    /// ```swift
    /// incremental.append(chunk)
    /// if case .failed(let error) = incremental.status { cancelDownload(because: error) }
    /// ```
    public var status: Status {
        state.withLock { $0.status }
    }

    /// The format, from the content, once the first bytes have settled it (see
    /// ``append(_:isFinal:)``); nil before, and when the content is no format MagickIO may decode.
    ///
    /// ```swift
    /// incremental.append(firstBytes)
    /// if incremental.format == .gif { prepareAnimation() }
    /// ```
    public var format: ImageFormat? {
        state.withLock { $0.format }
    }

    /// The number of frames known so far: 0 until the header is complete, then the frames (GIF)
    /// or pages (TIFF) whose headers have arrived (it may grow with later appends); once
    /// complete, ``ImageSource/count``; 0 once failed.
    ///
    /// ```swift
    /// for index in 0..<incremental.count {
    ///     print(try incremental.properties(at: index).pixelWidth)
    /// }
    /// ```
    public var count: Int {
        state.withLock { $0.frames.count }
    }

    /// The whole image opened, once ``status`` is ``Status/complete``; nil before. Everything an
    /// ``ImageSource`` does (the `async` forms, other thumbnail sizes) goes through it.
    ///
    /// ```swift
    /// if let source = incremental.source {
    ///     let thumb = try await source.thumbnail(maxPixelSize: 256)
    /// }
    /// ```
    public var source: ImageSource? {
        state.withLock { $0.source }
    }

    /// The header of frame `index`, as soon as it has arrived: the same values an
    /// ``ImageSource`` of the whole file reports (from `MagickPingImageBlob` and the
    /// `MagickGetImage…` getters).
    ///
    /// ```swift
    /// incremental.append(firstKilobytes)
    /// if incremental.status == .headerComplete {
    ///     let p = try incremental.properties(at: 0)    // 3024x4032 as shown, say
    /// }
    /// ```
    ///
    /// - Throws: ``MagickIOError/Kind/frameOutOfRange`` while `index` is not below ``count``
    ///   (so while the header is awaited), or the error the status failed with.
    public func properties(at index: Int = 0) throws(MagickIOError) -> ImageProperties {
        let (status, frames, source) = state.withLock { ($0.status, $0.frames, $0.source) }
        if case .failed(let error) = status { throw error }
        if let source { return try source.properties(at: index) }
        guard frames.indices.contains(index) else {
            throw MagickIOError(.frameOutOfRange, frames.isEmpty
                ? "frame \(index) requested; no frame header has arrived yet"
                : "frame \(index) requested; \(frames.count) known so far, the data is incomplete")
        }
        return frames[index]
    }

    /// Decodes frame `index` whole, once the image is complete: `ImageSource/image(at:)` on
    /// ``source`` (`MagickReadImageBlob`).
    ///
    /// ```swift
    /// incremental.append(last, isFinal: true)
    /// let image = try incremental.image(at: 0)
    /// ```
    ///
    /// - Throws: ``MagickIOError/Kind/corruptImage`` before the final append (the data is
    ///   incomplete), the error the status failed with, or what `ImageSource/image(at:)` throws.
    public func image(at index: Int = 0) throws(MagickIOError) -> Image {
        try completeSource().image(at: index)
    }

    /// An upright thumbnail of frame `index`, once the image is complete: ``ImageSource``'s
    /// `thumbnail(maxPixelSize:at:allowUpscale:)` on ``source``, which has the other sizing modes
    /// and thumbnail options too.
    ///
    /// ```swift
    /// incremental.append(last, isFinal: true)
    /// let thumb = try incremental.thumbnail(maxPixelSize: 256)
    /// ```
    ///
    /// - Throws: ``MagickIOError/Kind/corruptImage`` before the final append (the data is
    ///   incomplete), the error the status failed with, or what ``ImageSource``'s thumbnail
    ///   throws.
    public func thumbnail(maxPixelSize: Int, at index: Int = 0, allowUpscale: Bool = false) throws(MagickIOError) -> Image {
        try completeSource().thumbnail(maxPixelSize: maxPixelSize, at: index, allowUpscale: allowUpscale)
    }

    /// The completed source, or the error that says why there is none.
    private func completeSource() throws(MagickIOError) -> ImageSource {
        let (status, source, received) = state.withLock { ($0.status, $0.source, $0.data.count) }
        if case .failed(let error) = status { throw error }
        guard let source else {
            throw MagickIOError(.corruptImage, "the image is incomplete: \(received) bytes have arrived and the final append has not")
        }
        return source
    }
}

/// The mutable state of an ``IncrementalImageSource``, always used under its lock.
private struct Progress {
    typealias Status = IncrementalImageSource.Status

    /// The bytes so far; released once the image is complete (the source holds them) or failed.
    var data = Data()
    var status: Status = .waitingForHeader
    var format: ImageFormat?
    var frames: [ImageProperties] = []
    var source: ImageSource?
    /// A GIF's blocks walked so far.
    var gif = GIFWalk()
    /// Whether the format's own header point (``HeaderPoint``) has been pinged already.
    var pingedAtHeaderPoint = false
    /// The byte count from which the next scheduled ping may run.
    var nextPing = 0

    mutating func append(_ chunk: Data, isFinal: Bool, options: DecodingOptions) {
        switch status {
        case .waitingForHeader, .headerComplete: break
        case .complete, .failed: return
        }
        data.append(chunk)
        if isFinal {
            finish(options: options)
        } else if status == .waitingForHeader {
            lookForHeader(options: options)
        } else {
            lookForMoreFrames(options: options)
        }
    }

    /// Opens the whole image, as ``ImageSource/init(data:options:)`` does.
    private mutating func finish(options: DecodingOptions) {
        do throws(MagickIOError) {
            let opened = try ImageSource(data: data, options: options)
            source = opened
            format = opened.format
            frames = opened.frames
            status = .complete
            data = Data()
        } catch {
            fail(error)
        }
    }

    private mutating func lookForHeader(options: DecodingOptions) {
        guard let format = format ?? settleFormat() else { return }
        self.format = format
        switch headerPoint(format) {
        case .notYet:
            return
        case .reached(let bytes) where !pingedAtHeaderPoint:
            pingedAtHeaderPoint = true
            ping(bytes, options: options)
        case .reached, .unknown:
            guard data.count >= nextPing else { return }
            ping(data, options: options)
        }
        scheduleNextPing()
    }

    private mutating func headerPoint(_ format: ImageFormat) -> HeaderPoint {
        guard format == .gif else { return HeaderPoint.locate(in: data, format: format) }
        gif.advance(over: data)
        if gif.isBroken { return .unknown }
        return gif.frames > 0 ? .reached(gif.completeFrames(of: data)) : .notYet
    }

    /// GIF frames as each completes, TIFF pages on the growth schedule; each ping at most when
    /// the data has grown by a quarter.
    private mutating func lookForMoreFrames(options: DecodingOptions) {
        guard format == .gif || format == .tiff, data.count >= nextPing else { return }
        var bytes = data
        if format == .gif {
            gif.advance(over: data)
            if !gif.isBroken {
                guard gif.frames > frames.count else { return }
                bytes = gif.completeFrames(of: data)
            }
        }
        scheduleNextPing()
        if let opened = try? ImageSource(data: bytes, options: options), opened.frames.count > frames.count {
            frames = opened.frames
        }
    }

    private mutating func scheduleNextPing() {
        nextPing = data.count + max(data.count / 4, 32)
    }

    /// Pings `bytes`; a failure more data cannot cure ends the source, any other waits for more.
    private mutating func ping(_ bytes: Data, options: DecodingOptions) {
        do throws(MagickIOError) {
            let opened = try ImageSource(data: bytes, options: options)
            frames = opened.frames
            status = .headerComplete
        } catch where error.kind == .limitExceeded {
            fail(error)
        } catch {
            return
        }
    }

    /// The format, once the first bytes settle it; fails the source when they settle that it is
    /// none MagickIO may decode. Mirrors the checks of ``ImageSource/init(data:options:)``.
    private mutating func settleFormat() -> ImageFormat? {
        guard Self.signatureSettled(data) else { return nil }
        let allowed = MagickIO.allowedDecoders
        if let format = ImageFormat.sniff(data) {
            guard allowed.contains(format) else {
                fail(MagickIOError(.formatNotAllowed, "\(format.rawValue) content is not among the allowed decoders"))
                return nil
            }
            return format
        }
        // Formats without a MagickIO signature are named by ImageMagick's magic table, which
        // looks at the first 8 KiB.
        let others = allowed.subtracting(ImageFormat.sniffable)
        guard others.isEmpty || data.count >= 8192 else { return nil }
        guard let guess = others.isEmpty ? nil : ImageFormat.magickGuess(data) else {
            fail(MagickIOError(.unsupportedFormat, "the content is not a recognised image format"))
            return nil
        }
        guard allowed.contains(guess) else {
            fail(MagickIOError(.formatNotAllowed, "\(guess.rawValue) content is not among the allowed decoders"))
            return nil
        }
        return guess
    }

    private mutating func fail(_ error: MagickIOError) {
        status = .failed(error)
        frames = []
        data = Data()
    }

    /// Whether ``ImageFormat/sniff(_:)`` can no longer change its answer: it reads 32 bytes, and
    /// 64 for the brands of an ISO `ftyp` box.
    private static func signatureSettled(_ data: Data) -> Bool {
        guard data.count >= 32 else { return false }
        let start = data.startIndex
        return data.count >= 64 || !data[start + 4..<start + 8].elementsEqual("ftyp".utf8)
    }
}

/// The point in a file from which ImageMagick's ping of what has arrived answers as it will for
/// the whole file, found by walking the format's structure.
private enum HeaderPoint {
    /// Reached: the bytes to ping (the data, or a header-only image made from it).
    case reached(Data)
    /// Not there yet: a ping now could not succeed.
    case notYet
    /// The format has no such point here, or the data does not follow its structure: the ping
    /// schedule decides.
    case unknown

    static func locate(in data: Data, format: ImageFormat) -> HeaderPoint {
        let bytes = DataReader(data: data)
        switch format {
        case .jpeg: return jpeg(bytes)
        case .png: return png(bytes)
        case .tiff: return tiff(bytes)
        case .webp:
            // ImageMagick 6's WebP coder reads the whole RIFF chunk before anything else.
            guard let size = bytes.u32le(at: 4) else { return .notYet }
            return bytes.count >= size + 8 ? .reached(data) : .notYet
        default: return .unknown
        }
    }

    /// At the end of the first SOF segment. libjpeg's `jpeg_read_header` returns only at a scan
    /// header, so the ping gets the bytes up to the SOF, a scan header naming the frame's
    /// components (no entropy-coded data) and EOI.
    private static func jpeg(_ bytes: DataReader) -> HeaderPoint {
        var reader = ByteReader(.memory(bytes.data))
        switch JPEGSegments.frame(in: &reader) {
        case .failure(.truncated):
            return .notYet
        case .failure:
            return .unknown
        case .success(let frame):
            guard (1...4).contains(frame.componentIDs.count) else { return .unknown }
            let components = UInt8(frame.componentIDs.count)
            var image = Data(bytes.data.prefix(frame.segmentEnd))
            image.append(contentsOf: [0xFF, 0xDA, 0x00, 6 + 2 * components, components])
            for id in frame.componentIDs {
                image.append(contentsOf: [id, 0x00])  // component id, Huffman tables 0/0
            }
            image.append(contentsOf: [0x00, frame.isProgressive ? 0x00 : 0x3F, 0x00, 0xFF, 0xD9])
            return .reached(image)
        }
    }

    /// When the first `IDAT` chunk's length and type are in: `png_read_info` stops there.
    private static func png(_ bytes: DataReader) -> HeaderPoint {
        var offset = 8
        while true {
            guard let length = bytes.u32be(at: offset), let type = bytes.slice(at: offset + 4, 4) else { return .notYet }
            if type.elementsEqual("IDAT".utf8) { return .reached(bytes.data) }
            if type.elementsEqual("IEND".utf8) || length > Int(Int32.max) { return .unknown }
            offset += 12 + length
        }
    }

    /// When the first directory (IFD0), its EXIF and GPS directories and every value they point
    /// to are in: what libtiff's `TIFFReadDirectory` and ImageMagick's ping read. The ping gets
    /// those bytes with IFD0's link to the next page cut, so that later pages still on their way
    /// do not fail it.
    private static func tiff(_ bytes: DataReader) -> HeaderPoint {
        guard let order = bytes.u8(at: 0), let version = bytes.slice(at: 2, 2), let first = bytes.slice(at: 4, 4) else {
            return .notYet
        }
        let little = order == 0x49
        func number(_ field: some Collection<UInt8>) -> Int {
            (little ? Array(field.reversed()) : Array(field)).reduce(0) { $0 << 8 | Int($1) }
        }
        guard number(version) == 42 else { return .unknown }  // BigTIFF: the schedule decides
        let valueSizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
        var end = 8, nextLink = 0
        var directories = [number(first)], isFirst = true
        while let directory = directories.popLast() {
            guard let countField = bytes.slice(at: directory, 2) else { return .notYet }
            let entries = number(countField)
            guard let table = bytes.slice(at: directory + 2, 12 * entries + 4) else { return .notYet }
            let fields = [UInt8](table)
            for entry in 0..<entries {
                let at = entry * 12
                let tag = number(fields[at..<at + 2]), type = number(fields[at + 2..<at + 4])
                let count = number(fields[at + 4..<at + 8]), value = number(fields[at + 8..<at + 12])
                let size = (valueSizes[type] ?? 1) * count
                if size > 4 { end = max(end, value + size) }
                if isFirst, tag == 34665 || tag == 34853 { directories.append(value) }  // EXIF, GPS
            }
            end = max(end, directory + 2 + 12 * entries + 4)
            if isFirst { nextLink = directory + 2 + 12 * entries }
            isFirst = false
        }
        guard end <= bytes.count else { return .notYet }
        var image = Data(bytes.data.prefix(end))
        let link = image.startIndex + nextLink
        image.replaceSubrange(link..<link + 4, with: [0, 0, 0, 0])
        return .reached(image)
    }
}

/// Walks a GIF's blocks as they arrive, resuming where the data ran out: which frames are
/// complete (ImageMagick's GIF ping fails on a frame cut short).
private struct GIFWalk {
    /// The next byte to look at.
    private var offset = 0
    /// Inside the data sub-blocks of an extension or (``inImage``) an image.
    private var inSubBlocks = false
    private var inImage = false
    /// The trailer or something that is not a GIF block has been reached.
    private var stopped = false
    /// The complete frames so far.
    private(set) var frames = 0
    /// The offset just past the last complete frame.
    private(set) var end = 0
    /// The blocks do not follow GIF's structure.
    private(set) var isBroken = false

    /// The complete frames and the trailer: a GIF ImageMagick pings without complaint.
    func completeFrames(of data: Data) -> Data {
        var image = Data(data.prefix(end))
        image.append(0x3B)
        return image
    }

    mutating func advance(over data: Data) {
        let bytes = DataReader(data: data)
        if offset == 0 {
            // Header and logical screen (13 bytes), then the global colour table.
            guard let flags = bytes.u8(at: 10) else { return }
            offset = 13 + Self.colourTableSize(flags)
        }
        while !stopped {
            if inSubBlocks {
                guard let length = bytes.u8(at: offset) else { return }
                offset += 1 + Int(length)
                if length == 0 {
                    inSubBlocks = false
                    if inImage {
                        frames += 1
                        end = offset
                    }
                }
                continue
            }
            guard let introducer = bytes.u8(at: offset) else { return }
            switch introducer {
            case 0x21:  // extension: its label, then sub-blocks
                offset += 2
            case 0x2C:  // image: descriptor, local colour table, LZW code size, then sub-blocks
                guard let flags = bytes.u8(at: offset + 9) else { return }
                offset += 10 + Self.colourTableSize(flags) + 1
            default:
                stopped = true
                isBroken = introducer != 0x3B
                return
            }
            inSubBlocks = true
            inImage = introducer == 0x2C
        }
    }

    private static func colourTableSize(_ flags: UInt8) -> Int {
        flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0
    }
}

/// Bounds-checked reads at offsets from the start of the data.
private struct DataReader {
    let data: Data
    var count: Int { data.count }

    func u8(at offset: Int) -> UInt8? {
        offset >= 0 && offset < data.count ? data[data.startIndex + offset] : nil
    }

    func slice(at offset: Int, _ length: Int) -> Data? {
        guard offset >= 0, length >= 0, offset + length <= data.count else { return nil }
        return data[data.startIndex + offset..<data.startIndex + offset + length]
    }

    func u16be(at offset: Int) -> Int? {
        slice(at: offset, 2).map { $0.reduce(0) { $0 << 8 | Int($1) } }
    }

    func u32be(at offset: Int) -> Int? {
        slice(at: offset, 4).map { $0.reduce(0) { $0 << 8 | Int($1) } }
    }

    func u32le(at offset: Int) -> Int? {
        slice(at: offset, 4).map { $0.reversed().reduce(0) { $0 << 8 | Int($1) } }
    }
}
