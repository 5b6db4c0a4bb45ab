import Foundation

/// A file replaced whole: the bytes go into a new file beside it, which is then renamed over it,
/// so that a reader of the path finds the old file or the new one, never part of either
/// (``Image/write(to:as:metadata:)``). The new file is not flushed to disk before the rename
/// (no `fsync`, as ImageIO, libvips and Pillow write images): after a power loss or a kernel crash
/// the path may hold the old file, or an empty one. Its permissions are the replaced file's
/// (read, write and execute bits; where the file system takes them), or a new file's (0666 less
/// the umask); while the new file is written in place of an old one, only its owner can read it.
/// A symbolic link at the path is replaced by the file, not followed. The file beside it is named
/// `.magickio-` and a random suffix, whatever the target's name.
enum AtomicFile {
    static func write(_ data: Data, to url: URL) throws(MagickIOError) {
        let path = url.path
        func failure(_ doing: String, _ code: Int32 = errno) -> MagickIOError {
            MagickIOError(.io, "cannot write \(path): \(doing): \(String(cString: strerror(code)))")
        }
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        guard !name.isEmpty, name != "/" else { throw failure("not a file name", EISDIR) }
        // A file replaced keeps its permissions: the new one is made readable by its owner only,
        // and given them once it exists (best effort: some file systems refuse fchmod).
        var existing = stat()
        let replaced = lstat(path, &existing) == 0 && existing.st_mode & S_IFMT == S_IFREG
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<16 {
            temporary = directory + "/.magickio-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, replaced ? 0o600 : 0o666)
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw failure("cannot create a file beside it") }
        var done = false
        defer {
            if descriptor >= 0 { close(descriptor) }
            if !done { unlink(temporary) }
        }
        if replaced {
            _ = fchmod(descriptor, existing.st_mode & 0o777)
        }
        let code = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int32 in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return written < 0 ? errno : EIO }
                offset += written
            }
            return 0
        }
        guard code == 0 else { throw failure("write", code) }
        let closed = close(descriptor)
        descriptor = -1
        guard closed == 0 else { throw failure("close") }
        guard rename(temporary, path) == 0 else { throw failure("rename") }
        done = true
    }
}
