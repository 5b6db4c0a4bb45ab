import Foundation

/// ImageMagick's pixel cache as one pool for the whole process: its memory limit
/// (``ResourceLimits/memory``) counts every image of every thread, and with MagickIO's map and disk
/// limits at 0 an image that does not fit fails ("cache resources exhausted").
enum MagickCache {
    /// Bytes of pixel cache in use now, process-wide.
    static var inUse: Int { MagickResources.memoryInUse }

    /// The memory limit in force.
    static var limit: Int { MagickResources.memoryLimit }

    /// Whether `bytes` more would not fit in the pool now.
    static func wouldOverflow(adding bytes: Int) -> Bool {
        inUse.saturatingPlus(bytes) > limit
    }
}

/// Admission to ImageMagick's pixel cache. Each decode reserves the cache its estimate says it
/// will hold (``DecodeEstimate/cacheBytes``) and runs beside others only while the reservations,
/// with what is held outside them (images callers keep), fit in the pool; otherwise it waits its
/// turn, first come first served. A decode that still fails because the pool was full while
/// others ran (an estimate short of what a coder took) runs again alone ("exclusive"): it waits
/// for the decodes under way to finish, and new ones wait for it. So an image that decodes alone
/// never fails in a batch for want of cache.
///
/// Waiting, not failing, matters beyond the retry: ImageMagick 6.9.11 loses an image's pixels
/// when a coder reopens its cache (a colorspace change after the size is set, as the HEIC coder
/// does) and the pool cannot take the new copy. The old pixels and their count in the pool are
/// never given back, and the pool stays that much smaller for the life of the process.
///
/// Only the decode itself holds the gate, never a caller's wait, and a decode is admitted at once
/// when none runs, so it cannot deadlock.
/// `@unchecked Sendable`: its counters are read and written only under `condition`'s lock, and
/// `pool` is set once at init and only called.
final class CacheGate: @unchecked Sendable {
    static let shared = CacheGate()

    private let condition = NSCondition()
    private var running = 0
    private var reserved = 0
    private var nextTicket = 0
    private var servedTicket = 0
    private var exclusiveWaiting = 0
    private var exclusive = false
    /// The pool's use when no decode last ran: what is held outside the gate, as far as known.
    private var idleInUse = 0
    private let pool: () -> (inUse: Int, limit: Int)

    /// A gate over ImageMagick's pool, or over `pool` (bytes in use and the limit) in tests.
    init(pool: @escaping () -> (inUse: Int, limit: Int) = { (MagickCache.inUse, MagickCache.limit) }) {
        self.pool = pool
    }

    /// Decodes running now.
    var runningCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return running
    }

    /// Decodes waiting for their turn in ``shared(reserving:_:)``.
    var waitingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return nextTicket - servedTicket
    }

    /// Bytes the running decodes have reserved.
    var reservedBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return reserved
    }

    /// Runs `body` beside other shared decodes once `bytes` more fit in the pool (or none runs),
    /// after any exclusive one and every decode that asked before it.
    func shared<T, E: Error>(reserving bytes: Int, _ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        while exclusive || exclusiveWaiting > 0 || ticket != servedTicket || !fits(bytes) { condition.wait() }
        servedTicket += 1
        running += 1
        reserved = reserved.saturatingPlus(bytes)
        condition.broadcast()  // the next ticket may fit too
        condition.unlock()
        defer { leave(bytes) }
        return try body()
    }

    /// Runs a decode reserving `bytes` of the pool (nil: it reserves none and does not wait):
    /// beside others (``shared(reserving:_:)``), and once more alone (``exclusive(reserving:_:)``)
    /// when it failed because the pool was full while others ran (an estimate short of what a
    /// coder took). `body` starts from a clear wand each time.
    func admitting<T>(_ bytes: Int?, _ body: () throws(MagickIOError) -> T) throws(MagickIOError) -> T {
        guard let bytes else { return try body() }
        do {
            return try shared(reserving: bytes, body)
        } catch where error.kind == .limitExceeded && error.limit == nil {
            return try exclusive(reserving: bytes, body)
        }
    }

    /// Runs `body` once no other decode is under way, holding new ones back until it is done.
    func exclusive<T, E: Error>(reserving bytes: Int, _ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        exclusiveWaiting += 1
        while running > 0 || exclusive { condition.wait() }
        exclusiveWaiting -= 1
        exclusive = true
        idleInUse = pool().inUse
        running += 1
        reserved = reserved.saturatingPlus(bytes)
        condition.unlock()
        defer {
            condition.lock()
            exclusive = false
            condition.unlock()
            leave(bytes)
        }
        return try body()
    }

    /// Whether a decode reserving `bytes` may start now (called with the lock held). With none
    /// running, always: waiting would free nothing (the pool's use then, all of it held outside
    /// the gate, is noted). Otherwise the reservations and what is held outside them must fit in
    /// the pool. Outside is at least the use noted when none ran (images held then, unless freed
    /// since: counting them still is the safe side), and at least the pool's use beyond the
    /// reservations (images held since): a running decode that has not allocated yet hides
    /// nothing that way.
    private func fits(_ bytes: Int) -> Bool {
        let (inUse, limit) = pool()
        guard running > 0 else {
            idleInUse = inUse
            return true
        }
        let outside = max(idleInUse, inUse - reserved, 0)
        return reserved.saturatingPlus(bytes).saturatingPlus(outside) <= limit
    }

    private func leave(_ bytes: Int) {
        condition.lock()
        running -= 1
        reserved -= bytes
        if running == 0 {
            idleInUse = pool().inUse
        }
        condition.broadcast()
        condition.unlock()
    }
}
