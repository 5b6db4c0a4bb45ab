import CMagickWand
import Foundation

/// Where an ``ImageSource``'s encoded bytes live: in memory, or in a file the source holds open.
///
/// A file is never handed to ImageMagick by the user's path: MagickIO opens it itself and gives
/// ImageMagick `FORMAT:/proc/self/fd/N`, a name it built for its own descriptor, so the coder is
/// forced, no character of the user's path is parsed as ImageMagick syntax, and the coder streams
/// the file through a `FILE` of its own (with the map limit at 0 ImageMagick does not
/// memory-map it). Measured alternatives: `MagickReadImageFile` copies the stream to a temporary
/// file first, and an `fd:N` name leaks ImageMagick's `FILE` (about 9 KB a read).
enum SourceBytes: Sendable {
    case memory(Data)
    case file(OpenFile)

    /// The number of bytes.
    var count: Int {
        switch self {
        case .memory(let data): data.count
        case .file(let file): file.size
        }
    }

    /// Up to `length` bytes from `offset` (fewer at the end).
    func read(at offset: Int, length: Int) -> [UInt8] {
        guard offset >= 0, length > 0, offset < count else { return [] }
        switch self {
        case .memory(let data):
            let start = data.startIndex + offset
            return [UInt8](data[start..<min(start + length, data.endIndex)])
        case .file(let file):
            return file.read(at: offset, length: length)
        }
    }

    /// Copies up to `buffer.count` bytes from `offset` into `buffer`; returns how many it copied.
    func copy(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard offset >= 0, offset < count, !buffer.isEmpty else { return 0 }
        switch self {
        case .memory(let data):
            let start = data.startIndex + offset
            return data.copyBytes(to: buffer, from: start..<min(start + buffer.count, data.endIndex))
        case .file(let file):
            return file.read(at: offset, into: buffer)
        }
    }
}

/// A regular file opened read-only by MagickIO; closed when the last source using it goes away.
final class OpenFile: Sendable {
    let descriptor: Int32
    let size: Int
    let path: String

    init(path: String) throws(MagickIOError) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw errno == ENOENT || errno == ENOTDIR
                ? MagickIOError(.fileNotFound, "no file at \(path)")
                : MagickIOError(.io, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw MagickIOError(.io, "\(path) is not a regular file")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MagickIOError(.io, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var opened = stat()
        fstat(descriptor, &opened)
        self.descriptor = descriptor
        self.size = Int(opened.st_size)
        self.path = path
    }

    /// Takes a duplicate of `descriptor` (the caller keeps and closes its own), which must be a
    /// regular file.
    init(duplicating descriptor: Int32) throws(MagickIOError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MagickIOError(.io, "descriptor \(descriptor): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw MagickIOError(.io, "descriptor \(descriptor) is not a regular file")
        }
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else {
            throw MagickIOError(.io, "cannot duplicate descriptor \(descriptor): \(String(cString: strerror(errno)))")
        }
        self.descriptor = duplicate
        self.size = Int(status.st_size)
        self.path = "/proc/self/fd/\(duplicate)"
    }

    deinit {
        close(descriptor)
    }

    /// The name ImageMagick opens: the descriptor's `/proc` link. ImageMagick opens it anew, so
    /// concurrent reads never share a file offset.
    var magickPath: String { "/proc/self/fd/\(descriptor)" }

    /// The whole file, read into memory.
    func readAll() -> Data {
        Data(read(at: 0, length: size))
    }

    func read(at offset: Int, length: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        let filled = bytes.withUnsafeMutableBytes { read(at: offset, into: $0) }
        return Array(bytes.prefix(filled))
    }

    /// Fills `buffer` from `offset` (fewer bytes at the end of the file); returns how many it read.
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset + filled))
            if got < 0, errno == EINTR { continue }
            if got <= 0 { break }
            filled += got
        }
        return filled
    }
}

extension Wand {
    /// Reads or pings `bytes` with the coder named by `format`, never ImageMagick's own guess, and
    /// returns what the decoder warned about.
    ///
    /// A warning `strictness` refuses throws ``MagickIOError/Kind/corruptImage`` with the
    /// decoder's words. ImageMagick reports some failures without a reason (its PNG and HEIC coders
    /// drop it with the image they destroy): when the process's pixel cache could not have held
    /// `cacheBytes` more, that is resource exhaustion (``MagickIOError/Kind/limitExceeded``), otherwise
    /// damage.
    @discardableResult
    func read(_ bytes: SourceBytes, format: ImageFormat, frames: ClosedRange<Int>? = nil, ping: Bool,
              strictness: Strictness = .refuseDamage, cacheBytes: Int? = nil) throws(MagickIOError) -> [DecoderWarning] {
        do throws(MagickIOError) {
            return try readNamingDescriptor(bytes, format: format, frames: frames, ping: ping, strictness: strictness,
                                            cacheBytes: cacheBytes)
        } catch {
            // ImageMagick names the file it was given, the descriptor's /proc link: say the
            // caller's path instead.
            guard case .file(let file) = bytes, file.path != file.magickPath else { throw error }
            var named = error
            named.message = error.message.replacingOccurrences(of: file.magickPath, with: file.path)
            throw named
        }
    }

    private func readNamingDescriptor(_ bytes: SourceBytes, format: ImageFormat, frames: ClosedRange<Int>?, ping: Bool,
                                      strictness: Strictness, cacheBytes: Int?) throws(MagickIOError) -> [DecoderWarning] {
        guard bytes.count > 0 else { throw MagickIOError(.emptyData, "the data is empty") }
        MagickSetFormat(pointer, format.magickName)
        var status: MagickBooleanType
        switch bytes {
        case .file(let file):
            let name = "\(format.magickName):\(file.magickPath)\(Self.subimageSpec(frames))"
            status = ping ? MagickPingImage(pointer, name) : MagickReadImage(pointer, name)
            if status == MagickFalse, MagickGetExceptionType(pointer) == PolicyError {
                // The path was unlinked or replaced since the source opened it: ImageMagick's path
                // policy refuses the "(deleted)" link. The descriptor still reads the file.
                MagickClearException(pointer)
                MagickSetFormat(pointer, format.magickName)
                status = readBlob(file.readAll(), frames: frames, ping: ping)
            }
        case .memory(let data):
            status = readBlob(data, frames: frames, ping: ping)
        }
        if status == MagickFalse || MagickGetNumberImages(pointer) == 0 {
            guard let exception = takeException(minimum: WarningException) else {
                if let cacheBytes, MagickCache.wouldOverflow(adding: cacheBytes) {
                    throw MagickIOError(.limitExceeded, "the \(format) decoder failed while ImageMagick's pixel cache, one pool for the whole process, could not take \(cacheBytes >> 20) MiB more (\(MagickCache.inUse >> 20) MiB of \(MagickCache.limit >> 20) MiB in use)")
                }
                throw MagickIOError(.corruptImage, "the \(format) decoder gave up without a reason: the data is truncated or damaged")
            }
            throw MagickIOError(exception: exception, fallback: .corruptImage, reading: true)
        }
        var warnings: [DecoderWarning] = []
        for exception in takeAllExceptions() {
            if exception.severity.rawValue >= ErrorException.rawValue {
                // An image came back, but the decoder said it failed: partial pixels at best.
                let resource = MagickIOError(exception: exception, fallback: .corruptImage, reading: true)
                guard strictness == .acceptPartial, resource.kind == .corruptImage else { throw resource }
            }
            let warning = DecoderWarning(exception.message, format: format)
            if strictness.refuses(warning) {
                throw MagickIOError(exception: exception, fallback: .corruptImage, reading: true)
            }
            if !warnings.contains(warning) { warnings.append(warning) }
        }
        return warnings
    }

    /// ImageMagick's subimage suffix: `[N]` or `[N-M]`, or nothing for every frame.
    static func subimageSpec(_ frames: ClosedRange<Int>?) -> String {
        guard let frames else { return "" }
        return frames.count == 1 ? "[\(frames.lowerBound)]" : "[\(frames.lowerBound)-\(frames.upperBound)]"
    }

    private func readBlob(_ data: Data, frames: ClosedRange<Int>?, ping: Bool) -> MagickBooleanType {
        // A bare "[N]" file name selects frame N of a blob read without touching the file system.
        MagickSetFilename(pointer, Self.subimageSpec(frames))
        return data.withUnsafeBytes { raw -> MagickBooleanType in
            ping
                ? MagickPingImageBlob(pointer, raw.baseAddress, raw.count)
                : MagickReadImageBlob(pointer, raw.baseAddress, raw.count)
        }
    }
}
