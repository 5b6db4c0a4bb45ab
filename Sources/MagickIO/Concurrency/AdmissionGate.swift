import Foundation

/// MagickIO's one admission mechanism: a first-come-first-served gate that lets work in only while
/// the bytes it reserves fit, used at two levels.
///
/// - **ImageMagick's pixel cache** (`AdmissionGate.shared`): the one process-wide step that every decode and
///   every thumbnail passes, whoever calls it (a plain call, a ``Thumbnailer`` job, an `async`
///   call), in this process or in a decode worker, which asks its host (``WorkerGate``). Its
///   callers wait on MagickIO's own threads.
/// - **A ``Thumbnailer``'s budget** (``init(places:bytes:)``): at most `places` jobs of that
///   thumbnailer under way, whose predicted costs fit together in `bytes`, across all of its
///   calls. Its jobs wait in `async` code (``enter(cost:)``), holding no thread, before they go on
///   to the pool's gate.
///
/// At the pool, each decode reserves the cache its estimate says it will hold: the decoded picture
/// (``DecodeEstimate/cacheBytes``) and what the thumbnail's build makes beside it
/// (``ThumbnailFill/Admission``). It runs beside others only while the reservations, with what is
/// held outside them (images callers keep), fit in the pool; otherwise it waits its turn, first come
/// first served. A decode that still fails because the pool was full while others ran (an estimate
/// short of what a coder took) runs again alone ("exclusive"): it waits for the decodes under way
/// to finish, and new ones wait for it. So an image that decodes alone never fails beside others
/// for want of cache.
///
/// Images that callers hold (results not yet encoded and dropped) fill the pool too, once they
/// are ImageMagick images (a decode worker's thumbnail is one only when something needs it:
/// ``Image/Storage``). A decode that
/// does not fit beside them waits for them to be given back (``poolChanged()``, called whenever a
/// wand is destroyed) rather than starting into a full pool and failing; when nothing has been
/// given back for ``heldImagesPatience`` and no decode runs, the holder is keeping them, and the
/// decode starts anyway (it fails as it would alone, unless its estimate was pessimistic). A
/// budget holds nothing outside its gate: what does not fit waits only for work to leave.
///
/// Waiting, not failing, matters beyond the retry: ImageMagick 6.9.11 loses an image's pixels
/// when a coder reopens its cache (a colorspace change after the size is set, as the HEIC coder
/// does) and the pool cannot take the new copy. The old pixels and their count in the pool are
/// never given back, and the pool stays that much smaller for the life of the process.
///
/// Only the decode itself holds the gate, never a caller's wait, and a decode is admitted within
/// ``heldImagesPatience`` when none runs, so it cannot deadlock. A worker's turn is held by its
/// host's call only between the worker's question and its word that it is done, never past the
/// worker's answer (``WorkerGate/Held``): a worker that answers still holding it is ended. A
/// waiter whose `interrupt` stops (cancelled, past its time limit), or whose task is cancelled,
/// leaves the queue and throws.
/// `@unchecked Sendable`: its counters and its waiting tasks are read and written only under
/// `condition`'s lock, and `pool`, `places` and `budget` are set once at init.
final class AdmissionGate: @unchecked Sendable {
    /// The gate of ImageMagick's pixel cache.
    static let shared = AdmissionGate()

    private let condition = NSCondition()
    private var running = 0
    private var reserved = 0
    private var nextTicket = 0
    private var servedTicket = 0
    /// Tickets given up by waiters that stopped: skipped when their turn comes.
    private var abandoned: Set<Int> = []
    /// The tasks waiting in ``enter(cost:)``, by ticket: let in by whoever changes the gate when
    /// their turn comes and they fit (a waiting thread looks for itself).
    private var waitingTasks: [Int: (bytes: Int, continuation: CheckedContinuation<Void, Error>)] = [:]
    private var exclusiveWaiting = 0
    private var exclusive = false
    /// The pool's use when no decode last ran: what is held outside the gate, as far as known.
    private var idleInUse = 0
    /// When the pool last gave something back (a decode ended, a wand was destroyed).
    private var lastRelease = monotonicNanoseconds()
    private let pool: () -> (inUse: Int, limit: Int)
    /// The most work under way at once.
    let places: Int
    /// For a budget, its bytes (nothing is held outside it); nil for a pool.
    let budget: Int?
    /// How long a decode that does not fit beside held images waits, with no decode running, for
    /// one of them to be given back before it starts anyway; nil at a budget, where nothing is
    /// held and nothing starts past its bytes.
    let heldImagesPatience: Duration?
    private let patienceNanoseconds: UInt64

    /// A gate over ImageMagick's pool, or over `pool` (bytes in use and the limit) in tests.
    init(pool: @escaping () -> (inUse: Int, limit: Int) = { (MagickCache.inUse, MagickCache.limit) },
         heldImagesPatience: Duration = .seconds(1)) {
        self.pool = pool
        places = .max
        budget = nil
        self.heldImagesPatience = heldImagesPatience
        let (seconds, attoseconds) = heldImagesPatience.components
        patienceNanoseconds = UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
    }

    /// A budget: at most `places` (at least one) under way at once, whose costs fit together in
    /// `bytes`.
    init(places: Int, bytes: Int) {
        let bytes = max(bytes, 0)
        pool = { (0, bytes) }
        self.places = max(places, 1)
        budget = bytes
        heldImagesPatience = nil
        patienceNanoseconds = .max
    }

    /// Work under way now (decodes at the pool, jobs at a budget).
    var runningCount: Int {
        condition.withLock { running }
    }

    /// Work waiting for its turn: in ``shared(reserving:_:)``, ``admitting(_:interrupt:_:)`` or
    /// ``hold(reserving:interrupt:)`` (a worker's) at the pool, in ``enter(cost:)`` at a budget.
    /// A task counts from when it takes its ticket, a moment before it waits.
    var waitingCount: Int {
        condition.withLock { nextTicket - servedTicket - abandoned.count }
    }

    /// Tasks waiting in ``enter(cost:)`` now (for tests).
    var waitingTaskCount: Int {
        condition.withLock { waitingTasks.count }
    }

    /// Bytes the work under way has reserved.
    var reservedBytes: Int {
        condition.withLock { reserved }
    }

    /// Tells the waiters that the pool may have room now: an image was given back.
    func poolChanged() {
        let ready = condition.withLock {
            lastRelease = monotonicNanoseconds()
            condition.broadcast()
            return takeReadyTasks()
        }
        ready.forEach { $0.resume() }
    }

    /// Waits, in `async` code and holding no thread, until this budget has a place and `cost`
    /// fits beside the work under way, after all work that asked before it; ``leave(cost:)`` gives
    /// both back. A cost over the whole budget fails at once (it would wait forever); a cancelled
    /// task leaves the queue at once, and its wait ends as `cancelled`.
    func enter(cost: Int) async throws(MagickIOError) {
        // Tasks wait only at a budget: at the pool, held images are looked at again by the
        // waiting threads themselves (``heldImagesPatience``).
        guard let budget else { preconditionFailure("a task waits only at a budget") }
        guard cost <= budget else {
            throw MagickIOError.limit("memoryBudget", requested: cost, limit: budget,
                                      "this image alone needs more than the thumbnailer's whole budget")
        }
        let ticket = condition.withLock {
            defer { nextTicket += 1 }
            return nextTicket
        }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                    let (ready, cancelled) = condition.withLock { () -> ([CheckedContinuation<Void, Error>], Bool) in
                        guard !Task.isCancelled else { return (abandon(ticket), true) }
                        waitingTasks[ticket] = (max(cost, 0), continuation)
                        return (takeReadyTasks(), false)
                    }
                    ready.forEach { $0.resume() }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                let (ready, cancelled) = condition.withLock { () -> ([CheckedContinuation<Void, Error>], CheckedContinuation<Void, Error>?) in
                    guard let task = waitingTasks.removeValue(forKey: ticket) else { return ([], nil) }
                    return (abandon(ticket), task.continuation)
                }
                ready.forEach { $0.resume() }
                cancelled?.resume(throwing: CancellationError())
            }
        } catch {
            throw MagickIOError(.cancelled, "the job was cancelled while it waited for its turn")
        }
    }

    /// Gives back the place and the cost that ``enter(cost:)`` took.
    func leave(cost: Int) {
        leave(max(cost, 0))
    }

    /// Runs `body` beside other shared decodes once `bytes` more fit in the pool (or none runs and
    /// nothing held has been given back for ``heldImagesPatience``), after any exclusive one and
    /// every decode that asked before it.
    func shared<T, E: Error>(reserving bytes: Int, _ body: () throws(E) -> T) throws(E) -> T {
        _ = enter(reserving: bytes, interrupt: nil)
        defer { leave(bytes) }
        return try body()
    }

    /// Runs a decode reserving `bytes` of the pool: beside others (``shared(reserving:_:)``), and
    /// once more alone (``exclusive(reserving:_:)``) when it failed because the pool was full while
    /// others ran (an estimate short of what a coder took). `body` starts from a clear wand each
    /// time. A wait that `interrupt` stops throws its error without running `body`. Work admitted
    /// inside work this thread was already admitted for (an image encoded while a thumbnail is
    /// built) runs at once, on the outer reservation: a second wait there could only wait for itself.
    ///
    /// In a decode worker the host's gate admits (``WorkerGate``): the worker's pool holds its one
    /// request only, so a retry alone there would fail as the first try did.
    func admitting<T>(_ bytes: Int, interrupt: Interrupt? = nil,
                      _ body: (_ idleCore: Bool) throws(MagickIOError) -> T) throws(MagickIOError) -> T {
        guard Self.admitted.current == nil else { return try body(false) }
        if let host = Self.host {
            guard let idleCore = host.enter(bytes) else { throw Self.stopped }
            defer { host.leave(bytes) }
            return try Self.admitted.marking { () throws(MagickIOError) -> T in try body(idleCore) }
        }
        guard let running = enter(reserving: bytes, interrupt: interrupt) else {
            try interrupt?.check()
            throw Self.stopped
        }
        return try firstThenAlone(bytes) { () throws(MagickIOError) -> T in
            defer { leave(bytes) }
            return try body(Self.idleCore(running: running))
        } alone: { () throws(MagickIOError) -> T in
            try body(Self.idleCore(running: 1))
        }
    }

    /// Why a wait for the gate ended with no turn taken (its interrupt's reason, when it has one, comes first).
    static let stopped = MagickIOError(.cancelled, "the decode was stopped while it waited for ImageMagick's pixel cache")

    /// In a decode worker: its host, whose gate admits the worker's decodes (set once, before the
    /// worker's first request; nil in any other process).
    nonisolated(unsafe) static var host: WorkerGate.Host?

    /// A shared decode's turn taken for a decode that runs in a decode worker (``WorkerGate``), held
    /// until ``giveBack(_:)``.
    struct Reservation {
        let bytes: Int
        /// Whether a core is idle for the decode (``admitting(_:interrupt:_:)``'s `idleCore`).
        let idleCore: Bool
        /// False when the thread was already running admitted work, which the decode runs on.
        fileprivate let entered: Bool
    }

    /// Waits for a shared decode's turn reserving `bytes`, as ``admitting(_:interrupt:_:)`` does,
    /// for a decode a worker runs; nil when `interrupt` stopped the wait. A thread already running
    /// admitted work is let in at once, on that work's reservation.
    func hold(reserving bytes: Int, interrupt: Interrupt?) -> Reservation? {
        guard Self.admitted.current == nil else { return Reservation(bytes: bytes, idleCore: false, entered: false) }
        guard let running = enter(reserving: bytes, interrupt: interrupt) else { return nil }
        return Reservation(bytes: bytes, idleCore: Self.idleCore(running: running), entered: true)
    }

    /// Gives back what ``hold(reserving:interrupt:)`` took.
    func giveBack(_ reservation: Reservation) {
        if reservation.entered { leave(reservation.bytes) }
    }

    /// Whether a decode that runs beside `running - 1` others has a core to itself to spare: one
    /// big image pipelines its decoder and resampler on two threads only while fewer decodes than
    /// cores run (a batch already keeps every core busy with one image each).
    private static func idleCore(running: Int) -> Bool {
        idleCoreOverride ?? (running < cores)
    }

    static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Set by tests to force the choice either way.
    @TaskLocal static var idleCoreOverride: Bool?

    /// Runs work on an image already held (an encode, a turn, an export of its copy), which needs
    /// more of the pool only if it writes the copy: at once, beside anything, without waiting
    /// behind decodes (the image it holds goes back only once it is done, and decodes may be
    /// waiting for exactly that); and, when it failed because the pool was full, once more alone
    /// (``exclusive(reserving:_:)``, reserving `bytes`, asked for only then).
    func retryingAlone<T>(_ bytes: @autoclosure () -> Int, _ body: () throws(MagickIOError) -> T) throws(MagickIOError) -> T {
        guard Self.admitted.current == nil else { return try body() }
        return try firstThenAlone(bytes(), first: body, alone: body)
    }

    /// Runs `first` marked as admitted work; when it failed because the pool was full (a
    /// `limitExceeded` that names no limit of MagickIO's), runs `alone` once no other decode runs,
    /// reserving `bytes`. `first` has left the gate by then.
    private func firstThenAlone<T>(_ bytes: @autoclosure () -> Int, first: () throws(MagickIOError) -> T,
                                   alone: () throws(MagickIOError) -> T) throws(MagickIOError) -> T {
        do {
            return try Self.admitted.marking(first)
        } catch where error.kind == .limitExceeded && error.limit == nil {
            return try exclusive(reserving: bytes()) { () throws(MagickIOError) -> T in try Self.admitted.marking(alone) }
        }
    }

    /// Marks a thread running admitted work.
    private static let admitted = ThreadMark()

    /// Waits for a shared decode's turn and takes it, and returns how many decodes run then (this
    /// one included); nil when `interrupt` stopped the wait (the turn is given up).
    private func enter(reserving bytes: Int, interrupt: Interrupt?) -> Int? {
        var ready: [CheckedContinuation<Void, Error>] = []
        defer { ready.forEach { $0.resume() } }  // once the lock is given up
        condition.lock()
        defer { condition.unlock() }
        // At a budget, more than it holds would wait for ever (``enter(cost:)`` refuses it).
        precondition(budget.map { bytes <= $0 } ?? true, "more than the whole budget")
        let ticket = nextTicket
        nextTicket += 1
        let asked = monotonicNanoseconds()
        // A pool thread that waits here long gives its place to the next job meanwhile (the
        // encode that gives a held image back may be that job).
        var place = WaitingPlace(since: asked)
        defer { place.retake() }
        while exclusive || exclusiveWaiting > 0 || ticket != servedTicket || !fits(bytes, waitingSince: asked) {
            // Only held images in the way, or an interrupt to watch, or a place that may yet be
            // given: look again shortly.
            let heldOnly = ticket == servedTicket && !exclusive && exclusiveWaiting == 0 && running == 0
            if place.giveIfLong() || heldOnly || interrupt != nil {
                _ = condition.wait(until: Date().addingTimeInterval(0.05))
            } else {
                condition.wait()
            }
            if interrupt?.stopReason != nil {
                ready = abandon(ticket)
                return nil
            }
        }
        take(bytes)
        condition.broadcast()  // the next ticket may fit too
        ready = takeReadyTasks()
        return running
    }

    /// Takes the turn being served, reserving `bytes` (called with the lock held).
    private func take(_ bytes: Int) {
        servedTicket += 1
        skipAbandoned()
        running += 1
        reserved = reserved.saturatingPlus(bytes)
    }

    /// Lets in, in order, the waiting tasks whose turn has come and that fit (called with the lock
    /// held), and returns them, to be resumed once the lock is given up.
    private func takeReadyTasks() -> [CheckedContinuation<Void, Error>] {
        var ready: [CheckedContinuation<Void, Error>] = []
        while !exclusive, exclusiveWaiting == 0, let task = waitingTasks[servedTicket], fits(task.bytes, waitingSince: 0) {
            waitingTasks[servedTicket] = nil
            take(task.bytes)
            ready.append(task.continuation)
        }
        if !ready.isEmpty { condition.broadcast() }  // a waiting thread's turn may have come
        return ready
    }

    /// Runs `body` once no other decode is under way and `bytes` fit beside what is held (within
    /// ``heldImagesPatience``), holding new ones back until it is done.
    func exclusive<T, E: Error>(reserving bytes: Int, _ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        exclusiveWaiting += 1
        let asked = monotonicNanoseconds()
        var place = WaitingPlace(since: asked)
        while running > 0 || exclusive || !fits(bytes, waitingSince: asked) {
            if place.giveIfLong() || (running == 0 && !exclusive) {
                _ = condition.wait(until: Date().addingTimeInterval(0.05))
            } else {
                condition.wait()
            }
        }
        place.retake()
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

    /// Whether a decode reserving `bytes` may start now (called with the lock held): only while a
    /// place is free (always, at the pool), and then, with none
    /// running: when `bytes` fit beside what the pool holds, or when nothing has been given back
    /// for ``heldImagesPatience`` since it asked (waiting longer would free nothing; the pool's use
    /// then, all of it held outside the gate, is noted). With others running, the reservations and
    /// what is held outside them must fit in the pool. Outside is at least the use noted when none
    /// ran (images held then, unless freed since: counting them still is the safe side), and at
    /// least the pool's use beyond the reservations (images held since): a running decode that has
    /// not allocated yet hides nothing that way.
    private func fits(_ bytes: Int, waitingSince asked: UInt64) -> Bool {
        guard running < places else { return false }
        let (inUse, limit) = pool()
        guard running > 0 else {
            idleInUse = inUse
            return inUse.saturatingPlus(bytes) <= limit || monotonicNanoseconds() - max(asked, lastRelease) >= patienceNanoseconds
        }
        let outside = max(idleInUse, inUse - reserved, 0)
        return reserved.saturatingPlus(bytes).saturatingPlus(outside) <= limit
    }

    /// Gives up `ticket`'s turn (called with the lock held), and returns the waiting tasks it lets in.
    private func abandon(_ ticket: Int) -> [CheckedContinuation<Void, Error>] {
        if ticket == servedTicket {
            servedTicket += 1
            skipAbandoned()
        } else {
            abandoned.insert(ticket)
        }
        condition.broadcast()
        return takeReadyTasks()
    }

    private func skipAbandoned() {
        while abandoned.remove(servedTicket) != nil { servedTicket += 1 }
    }

    private func leave(_ bytes: Int) {
        condition.lock()
        running -= 1
        reserved -= bytes
        if running == 0 {
            idleInUse = pool().inUse
        }
        lastRelease = monotonicNanoseconds()
        condition.broadcast()
        let ready = takeReadyTasks()
        condition.unlock()
        ready.forEach { $0.resume() }
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the gate's clock (`ContinuousClock` would bring Swift's
/// concurrency runtime into every synchronous decode, a few hundred KiB of it resident).
private func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// A pool thread's place while it waits at the gate: kept for a short wait (a turn behind a decode
/// that is being let in), given to the next job once the wait is long (memory that only other work
/// can give back), so that a thread is started for a waiter only when that is needed.
private struct WaitingPlace {
    private let since: UInt64
    private var worker: WorkerPool?
    private var given = false
    /// How long a wait keeps its place: 20 ms.
    private static let keptFor: UInt64 = 20_000_000

    init(since: UInt64) {
        self.since = since
    }

    /// Gives the place once the wait has lasted ``keptFor``; true while it is not given yet (the
    /// caller then waits with a timeout, so that it comes back to give it).
    mutating func giveIfLong() -> Bool {
        guard !given else { return false }
        guard monotonicNanoseconds() - since >= Self.keptFor else { return true }
        given = true
        worker = WorkerPool.leavePlaceToWait()
        return false
    }

    mutating func retake() {
        worker?.retakePlace()
        worker = nil
    }
}
