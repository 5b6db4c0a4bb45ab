internal import CMagickMemory
internal import CMagickWand

/// The backstop under the pre-decode estimate: ImageMagick's own heap, counted on the decoding
/// thread while a read runs, and held to the decode's share.
///
/// MagickIO installs a counting allocator as ImageMagick's memory methods (`SetMagickMemoryMethods`,
/// once, before `MagickWandGenesis`; malloc, realloc and free underneath). While ``run(share:coder:_:)``
/// runs, every ImageMagick allocation on this thread counts against `share`, and a request that a
/// coder (or a library the coder hands ImageMagick's allocator to, such as libpng) makes past the
/// share fails as if the heap were exhausted. ImageMagick's own core is never refused: its fatal
/// paths end the process (see `CMagickMemory.c` for the rule and why it holds). The decode then
/// ends with ``MagickIOError/Kind/limitExceeded``, and the thread serves the next one as before.
///
/// Not counted: the pixel cache (posix_memalign or mmap, bounded by ``ResourceLimits/memory``),
/// what libtiff, libjpeg, libwebp or libheif allocate with malloc themselves, and allocations on
/// ImageMagick's OpenMP threads (one thread by MagickIO's default, ``ResourceLimits/threads``).
enum HeapBudget {
    /// Installs the counting methods. Called once, before ImageMagick allocates anything.
    static func install() {
        cmm_prepare()
        SetMagickMemoryMethods(cmm_acquire, cmm_resize, cmm_destroy)
    }

    /// What one budget saw.
    struct Outcome {
        var peak: Int
        /// The first request refused and what was in use then; nil when none was.
        var refused: (bytes: Int, inUse: Int)?
    }

    /// Runs `body`, a read by ImageMagick's `coder`, with ImageMagick's heap on this thread
    /// held to `share` bytes. When the budget refused a request, the read's outcome, failed or
    /// not (a coder may go on with a partial image), becomes a `memoryBudget` limit error.
    static func run<T>(share: Int, coder: ImageFormat, _ body: () throws(MagickIOError) -> T) throws(MagickIOError) -> T {
        let (result, outcome) = measure(share: share, body)
        if let refused = outcome.refused {
            // In use may be below zero: memory acquired before the read and freed during it.
            let inUse = max(refused.inUse, 0)
            throw MagickIOError.limit(
                "memoryBudget", requested: inUse.saturatingPlus(refused.bytes), limit: share,
                "ImageMagick's \(coder.magickName) coder asked for \(refused.bytes) bytes past the decode's share of \(share) bytes of its heap (\(inUse) in use)")
        }
        return try result.get()
    }

    /// Runs `body` under a budget of `share` bytes and says what it saw; the budget in force
    /// before (an enclosing read's) is restored afterwards.
    static func measure<T>(share: Int, _ body: () throws(MagickIOError) -> T) -> (Result<T, MagickIOError>, Outcome) {
        var budget = CMMBudget(limit: Int64(share), used: 0, peak: 0, refused_bytes: 0, used_at_refusal: 0, refusals: 0)
        let result = withUnsafeMutablePointer(to: &budget) { pointer -> Result<T, MagickIOError> in
            let previous = cmm_swap_budget(pointer)
            defer { cmm_swap_budget(previous) }
            return Result { () throws(MagickIOError) -> T in try body() }
        }
        let refused = budget.refusals > 0 ? (Int(budget.refused_bytes), Int(budget.used_at_refusal)) : nil
        return (result, Outcome(peak: Int(budget.peak), refused: refused))
    }
}
