import Foundation

/// A file's first `size` bytes mapped read-only for one of the own decoders to read in place
/// (``JPEGRows``, ``PNGRows``), unmapped when the value goes: the one owner of such a mapping.
///
/// Only in a decode worker (``isAllowed(size:)``): a file cut short while it is mapped (or a page
/// the disk cannot read) ends its reader with `SIGBUS`, which a worker's host reports as the
/// decoder's crash (``MagickIOError/Kind/corruptImage``) and a process of the user's would not
/// survive. The worker maps a file at the size it finds when it opens it. The pages are the page
/// cache's, not the worker's heap: its data limit does not count them.
final class FileMapping {
    /// How the decoder will read the pages, which says how they are brought in.
    enum Access {
        /// All of them, soon: read in at once (`MAP_POPULATE`).
        case whole
        /// Front to back, as they are reached (`MADV_SEQUENTIAL`).
        case sequential
    }

    /// The first byte.
    let bytes: UnsafePointer<UInt8>
    let size: Int

    /// The file behind `descriptor` mapped from its start for `size` bytes; `nil` where it cannot
    /// be, or where the file is shorter now than `size` (cut short since its size was taken: the
    /// decoder reads it instead, and finds its end, rather than mapping past it).
    init?(descriptor: Int32, size: Int, access: Access) {
        var status = stat()
        guard descriptor >= 0, size > 0, fstat(descriptor, &status) == 0, status.st_size >= size,
              let base = mmap(nil, size, PROT_READ, MAP_PRIVATE | (access == .whole ? MAP_POPULATE : 0), descriptor, 0),
              base != MAP_FAILED else {
            return nil
        }
        if access == .sequential { _ = madvise(base, size, MADV_SEQUENTIAL) }
        bytes = UnsafePointer(base.assumingMemoryBound(to: UInt8.self))
        self.size = size
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: bytes), size)
    }

    /// Whether a file of `size` bytes may be mapped here: only in a decode worker (see the type).
    static func isAllowed(size: Int) -> Bool {
        Worker.isWorker && size > 0
    }
}
