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
        // Opened first and checked through the descriptor, never by path then opened: a path
        // swapped for a FIFO in between would block the open. O_NONBLOCK keeps a FIFO's open
        // from waiting for a writer; on a regular file it changes nothing.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw errno == ENOENT || errno == ENOTDIR
                ? MagickIOError(.fileNotFound, "no file at \(path)")
                : MagickIOError.errno("cannot open \(path)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let failure = MagickIOError.errno("cannot read \(path)'s status")
            close(descriptor)
            throw failure
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw MagickIOError(.io, "\(path) is not a regular file")
        }
        self.descriptor = descriptor
        self.size = Int(status.st_size)
        self.path = path
    }

    /// Takes a duplicate of `descriptor` (the caller keeps and closes its own), which must be a
    /// regular file; `path` names it in messages (its `/proc` link when nil).
    init(duplicating descriptor: Int32, path: String? = nil) throws(MagickIOError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MagickIOError.errno("descriptor \(descriptor)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw MagickIOError(.io, "descriptor \(descriptor) is not a regular file")
        }
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else {
            throw MagickIOError.errno("cannot duplicate descriptor \(descriptor)")
        }
        self.descriptor = duplicate
        self.size = Int(status.st_size)
        self.path = path ?? "/proc/self/fd/\(duplicate)"
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
        // No more than the file's size asks for (a 64 KiB window near the end reads what is
        // there), into uninitialised storage: no zeroing and no second copy.
        let wanted = offset < 0 ? 0 : max(0, min(length, size - offset))
        return [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            initialized = wanted == 0 ? 0 : read(at: offset, into: UnsafeMutableRawBufferPointer(buffer))
        }
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

