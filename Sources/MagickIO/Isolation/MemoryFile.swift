internal import CWorker
import Foundation

/// An anonymous file in memory (`memfd_create`): what a decode worker reads an in-memory source
/// from, and the corrected copy of a file ImageMagick would read wrongly (an OS/2 2.x BMP). Its
/// pages are the kernel's, not the process's heap: they count in no data-segment limit.
enum MemoryFile {
    /// A new memory file holding `head`, then `bytes` from `offset` up to `end` (nil: their end),
    /// read back from the start; the caller closes the descriptor.
    static func make(_ name: String, head: [UInt8] = [], then bytes: SourceBytes, from offset: Int = 0,
                     upTo end: Int? = nil) throws(MagickIOError) -> Int32 {
        let file = mio_memory_file(name)
        guard file >= 0 else { throw MagickIOError.errno("cannot make a memory file") }
        let end = min(end ?? bytes.count, bytes.count)
        var written = head.withUnsafeBytes { writeAll(file, $0) }
        if case .memory(let data) = bytes, written, offset < end {
            written = data.withUnsafeBytes { writeAll(file, UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
        } else if case .file = bytes, written {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            var at = offset
            while written, at < end {
                let got = bytes.copy(at: at, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, end - at)]))
                guard got > 0 else { written = false; break }
                written = writeAll(file, UnsafeRawBufferPointer(rebasing: buffer[..<got]))
                at += got
            }
        }
        guard written else {
            let failure = MagickIOError.errno("cannot write a memory file")
            close(file)
            throw failure
        }
        return file
    }

    private static func writeAll(_ file: Int32, _ raw: UnsafeRawBufferPointer) -> Bool {
        var at = 0
        while at < raw.count {
            let got = write(file, raw.baseAddress! + at, raw.count - at)
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return false }
            at += got
        }
        return true
    }
}
