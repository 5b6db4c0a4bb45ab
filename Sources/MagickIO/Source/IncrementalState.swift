import Foundation

/// The mutable state of an ``IncrementalImageSource``, always used under its lock.
struct IncrementalState {
    typealias Status = IncrementalImageSource.Status

    /// The bytes so far; released once the image is complete (the source holds them) or failed.
    var data = Data()
    var status: Status = .waitingForHeader
    var format: ImageFormat?
    var frames: [ImageProperties] = []
    var source: ImageSource?
    /// A GIF's blocks walked so far.
    var gif = GIFBlocks()
    /// Whether what arrived has been opened at the format's own header point (``HeaderPoint``).
    var pingedAtHeaderPoint = false
    /// The byte count from which the next scheduled open may run.
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
            let opened = try ImageSource(bytes: .memory(data), options: options)
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
        advanceGIF()
        if gif.corrupt != nil { return .unknown }
        return gif.completeFrames > 0 ? .reached(completeGIFFrames()) : .notYet
    }

    /// GIF frames as each completes, TIFF pages on the growth schedule; each open at most when
    /// the data has grown by a quarter.
    private mutating func lookForMoreFrames(options: DecodingOptions) {
        guard format == .gif || format == .tiff, data.count >= nextPing else { return }
        var bytes = data
        if format == .gif {
            advanceGIF()
            if gif.corrupt == nil {
                guard gif.completeFrames > frames.count else { return }
                bytes = completeGIFFrames()
            }
        }
        scheduleNextPing()
        if let opened = try? ImageSource(data: bytes, options: options), opened.frames.count > frames.count {
            frames = opened.frames
        }
    }

    /// Walks the GIF's blocks that arrived since the last call (``GIFBlocks`` resumes).
    private mutating func advanceGIF() {
        var reader = ByteReader(.memory(data))
        gif.advance(&reader, maxFrames: .max)
    }

    /// The complete frames and the trailer: a GIF that opens without complaint.
    private func completeGIFFrames() -> Data {
        var image = Data(data.prefix(gif.completeEnd))
        image.append(0x3B)
        return image
    }

    private mutating func scheduleNextPing() {
        nextPing = data.count + max(data.count / 4, 32)
    }

    /// Opens `bytes` (``ImageSource/init(bytes:options:)``); a failure more data cannot cure ends
    /// the source, any other waits for more.
    private mutating func ping(_ bytes: Data, options: DecodingOptions) {
        do throws(MagickIOError) {
            let opened = try ImageSource(bytes: .memory(bytes), options: options)
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
        let allowed = ImageMagick.allowedDecoders
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

/// The point in a file from which opening what has arrived (``ImageSource/init(bytes:options:)``)
/// answers as it will for the whole file, found by walking the format's structure.
enum HeaderPoint {
    /// Reached: the bytes to open (the data, or a header-only image made from it).
    case reached(Data)
    /// Not there yet: an open now could not succeed.
    case notYet
    /// The format has no such point here, or the data does not follow its structure: the growth
    /// schedule decides.
    case unknown

    static func locate(in data: Data, format: ImageFormat) -> HeaderPoint {
        switch format {
        case .jpeg: return jpeg(data)
        case .png: return png(data)
        case .tiff: return tiff(data)
        case .webp:
            // ImageMagick 6's WebP coder reads the whole RIFF chunk before anything else.
            var reader = ByteReader(.memory(data))
            guard let size = RIFFChunks.declaredLength(&reader) else { return .notYet }
            return data.count >= size + 8 ? .reached(data) : .notYet
        default: return .unknown
        }
    }

    /// At the end of the first SOF segment. The open gets the bytes up to the SOF, a scan header
    /// naming the frame's components (no entropy-coded data) and EOI: a header libjpeg's
    /// `jpeg_read_header`, which returns only at a scan header, reads whole.
    private static func jpeg(_ data: Data) -> HeaderPoint {
        var reader = ByteReader(.memory(data))
        switch JPEGSegments.frame(in: &reader) {
        case .failure(.truncated):
            return .notYet
        case .failure:
            return .unknown
        case .success(let frame):
            guard (1...4).contains(frame.componentIDs.count) else { return .unknown }
            let components = UInt8(frame.componentIDs.count)
            var image = Data(data.prefix(frame.segmentEnd))
            image.append(contentsOf: [0xFF, 0xDA, 0x00, 6 + 2 * components, components])
            for id in frame.componentIDs {
                image.append(contentsOf: [id, 0x00])  // component id, Huffman tables 0/0
            }
            image.append(contentsOf: [0x00, frame.isProgressive ? 0x00 : 0x3F, 0x00, 0xFF, 0xD9])
            return .reached(image)
        }
    }

    /// When the first `IDAT` chunk's length and type are in: `png_read_info` stops there.
    private static func png(_ data: Data) -> HeaderPoint {
        var reader = ByteReader(.memory(data))
        var point = HeaderPoint.notYet
        let end = PNGChunks.walk(&reader) { _, chunk in
            if chunk.type == "IDAT" { point = .reached(data) }
            if chunk.type == "IEND" || chunk.length > Int(Int32.max) { point = .unknown }
            return chunk.type != "IDAT" && chunk.length <= Int(Int32.max)
        }
        return end == .truncated ? .notYet : point
    }

    /// When the first directory (IFD0), its EXIF and GPS directories and every value they point
    /// to are in: what libtiff's `TIFFReadDirectory` and ImageMagick's ping read. The open gets
    /// those bytes with IFD0's link to the next page cut, so that later pages still on their way
    /// do not fail it.
    private static func tiff(_ data: Data) -> HeaderPoint {
        guard data.count >= 16 else { return .notYet }
        guard let index = TIFFIndex(.memory(data), maxDirectories: 1), let first = index.directories.first else { return .unknown }
        var end = 8
        let directories: [TIFFIndex.Directory?] = [first] + first.subDirectories.map { index.subDirectories[$0] }
        for directory in directories {
            guard let directoryEnd = directory?.end else { return .notYet }
            end = max(end, directoryEnd)
        }
        guard end <= data.count, let nextLink = first.link else { return .notYet }
        var image = Data(data.prefix(end))
        let at = image.startIndex + nextLink
        image.replaceSubrange(at..<at + index.offsetSize, with: [UInt8](repeating: 0, count: index.offsetSize))
        return .reached(image)
    }
}
