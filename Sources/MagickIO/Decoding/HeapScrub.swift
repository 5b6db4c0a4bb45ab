internal import CMagickMemory

/// libheif's decodes, with a zeroed heap: so that a picture whose stream does not code every block
/// shows zeros there, never what the process's heap held before (another file's pixels, in a
/// decode worker that has served others).
///
/// libde265, libheif's HEVC decoder, allocates its picture with malloc and writes only the blocks
/// the stream codes; a slice cut short leaves the rest unwritten, and libheif 1.15 reports success
/// without a warning. While ``run(if:_:)`` runs, glibc's malloc zeroes what it takes from its arenas
/// (`M_PERTURB`, process-wide, for every thread, until the last scrubbed decode ends). Not what a
/// thread's cache of small chunks (tcache) hands out: a decode worker runs without one
/// (`mio_worker_spawn`), so there every allocation but a realloc's grown tail is zeroed; in process
/// the calling thread's cached chunks are held aside, which is best effort (see `heap_scrub.c`).
/// Both paths that reach libheif run under it: MagickIO's own HEIF decode and ImageMagick's HEIC
/// and AVIF coders.
///
/// MagickIO's own decode of a file whose pictures are all AV1 does not
/// (``HEIFItems/decodesBeyondAV1``): libheif's AV1 decoder allocates about 19 MB that a 4 MP
/// picture never touches, which zeroing would make resident (a 256-pixel thumbnail's peak 29.5 ->
/// 48.2 MB), and AV1 files damaged as the HEVC one was (58 variants) were refused (14) or decoded
/// the same on four dirtied heaps (44).
///
/// Under a sanitizer (its allocator in place of glibc's) nothing is zeroed, and ``isEffective``
/// says so; a malloc preloaded in glibc's place is not noticed.
enum HeapScrub {
    /// Whether ``run(if:_:)`` zeroes the heap in this process: glibc's `mallopt` took `M_PERTURB`,
    /// and no sanitizer's allocator stands in for glibc's.
    static let isEffective: Bool = {
        defer { cmm_scrub_leave() }
        return cmm_scrub_enter() == 1 && !DecodeWorker.underSanitizer
    }()

    /// Runs `body`, a decode by libheif, with the heap zeroed (when ``isEffective``), or as it is
    /// when not `needed`.
    static func run<T, E: Error>(if needed: Bool = true, _ body: () throws(E) -> T) throws(E) -> T {
        guard needed else { return try body() }
        _ = cmm_scrub_enter()
        defer { cmm_scrub_leave() }
        return try body()
    }
}
