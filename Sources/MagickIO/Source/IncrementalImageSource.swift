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
/// After an append, while the header is awaited, MagickIO opens what has arrived (through
/// ``ImageSource/init(data:options:)``, whose walkers read the headers without any ImageMagick coder;
/// a format outside the default eight is pinged), but only once a walk of the format's structure
/// says the header is in, so that an open is not wasted on every chunk:
/// - JPEG: once the frame header (the SOF segment) is in: the bytes up to the SOF, followed by an
///   empty scan header and an end marker of MagickIO's own; the segments the properties come from
///   (EXIF, JFIF) come before the SOF.
/// - PNG: once the first `IDAT` chunk has begun (the properties come from the chunks before it).
/// - GIF: once the first frame is complete (MagickIO's GIF walker reads the frames as they arrive).
/// - TIFF: once the first directory and every value it points to are in (the strips may follow).
/// - WebP: once the whole `RIFF` chunk is in (ImageMagick 6's coder reads nothing before that).
/// - Other formats, and data that does not follow its format's structure: each time the data has
///   grown by a quarter (at least 32 bytes) since the last open.
///
/// From that point ``properties(at:)`` answers what an ``ImageSource`` of the whole file answers.
/// GIF frames and TIFF pages keep being counted as they arrive (opened again at most each time
/// the data has grown by a quarter): ``count`` is the number of frames known so far.
///
/// Every method may be called from any thread or task. An append opens on the calling thread
/// while holding the source's lock, so appends take effect in the order they are made and
/// readers wait for an open under way; `image(at:)` and the thumbnail decode outside the lock.
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
        /// ``ImageSource`` would (a truncated file is still `complete` when its headers read, and
        /// its decode then reports ``MagickIOError/Kind/corruptImage``).
        case complete
        /// No more data can make the image readable; every method throws this error.
        case failed(MagickIOError)
    }

    /// The options the image is opened and decoded with (``source`` has them too).
    ///
    /// ```swift
    /// let incremental = IncrementalImageSource(options: DecodingOptions(strictness: .acceptPartial))
    /// incremental.decodingOptions.strictness   // .acceptPartial
    /// ```
    public let decodingOptions: DecodingOptions

    private let state = Locked(IncrementalState())

    /// Makes an empty incremental source; bytes come through ``append(_:isFinal:)``.
    ///
    /// ```swift
    /// let incremental = IncrementalImageSource(options: DecodingOptions(maxPixelCount: 50_000_000))
    /// ```
    public init(options: DecodingOptions = .default) {
        self.decodingOptions = options
    }

    /// Adds the next bytes of the image; `isFinal` says they are the last (an empty final chunk is
    /// fine).
    ///
    /// ```swift
    /// incremental.append(chunk)                       // as bytes arrive
    /// incremental.append(last, isFinal: true)         // then the whole image is opened
    /// ```
    ///
    /// While the header is awaited this may open what has arrived (see the type's discussion);
    /// the final append opens the whole image, as
    /// ``ImageSource/init(data:options:)`` does, and moves ``status`` to
    /// ``Status/complete`` or ``Status/failed(_:)``. The status fails before the final append when
    /// no more data can help: content recognised as no format MagickIO may decode
    /// (``MagickIOError/Kind/unsupportedFormat``, ``MagickIOError/Kind/formatNotAllowed``; the
    /// first 32 bytes decide, 64 for an ISO `ftyp` box, 8 KiB when
    /// ``ImageMagick/allowedDecoders`` holds formats without a MagickIO signature), or a
    /// header over the limits (``MagickIOError/Kind/limitExceeded``).
    ///
    /// Appends after the final one, or once the status is ``Status/complete`` or
    /// ``Status/failed(_:)``, are ignored.
    public func append(_ data: Data, isFinal: Bool = false) {
        let options = decodingOptions
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
    /// ``ImageSource`` of the whole file reports (from MagickIO's walkers, ``ImageSource/count``).
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
    public func properties(at index: Int = 0) throws -> ImageProperties {
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

    /// Whether the header has arrived and frame 0 is within ``decodingOptions``' pixel count: what a
    /// server checks after each append, to refuse a decompression bomb before the rest of it
    /// arrives. False while the header is awaited.
    ///
    /// ```swift
    /// incremental.append(chunk)
    /// if try incremental.checkHeader() { headerChecked = true }   // throws for a bomb
    /// ```
    ///
    /// - Throws: the error the status failed with, or ``MagickIOError/Kind/limitExceeded`` (limit
    ///   `maxPixelCount`) for a frame 0 of more pixels.
    public func checkHeader() throws(MagickIOError) -> Bool {
        switch status {
        case .failed(let error):
            throw error
        case .waitingForHeader:
            return false
        case .headerComplete, .complete:
            let properties: ImageProperties
            do { properties = try self.properties(at: 0) } catch { throw error as? MagickIOError ?? MagickIOError(.corruptImage, "\(error)") }
            let pixels = properties.pixelWidth.multipliedReportingOverflow(by: properties.pixelHeight)
            let limit = decodingOptions.maxPixelCount
            if pixels.overflow || pixels.partialValue > limit {
                throw MagickIOError(.limitExceeded, "maxPixelCount: \(properties.pixelWidth)x\(properties.pixelHeight) is more than \(limit) pixels",
                                    limit: .init(name: "maxPixelCount", requested: pixels.overflow ? .max : pixels.partialValue, limit: limit))
            }
            return true
        }
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
    public func image(at index: Int = 0) throws -> Image {
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
    public func thumbnail(maxPixelSize: Int, at index: Int = 0, allowUpscale: Bool = false) throws -> Image {
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
