import Synchronization

/// Stops a decode or a resize between two rows: when it is cancelled, or when its deadline has
/// passed. Stands on `MagickSetProgressMonitor` and `MagickSetImageProgressMonitor`, whose callback
/// ImageMagick calls as it goes and which stops the work by returning false.
///
/// ImageMagick returns success with a partial image after a stopped JPEG decode, so the caller
/// asks ``stopReason`` after every step rather than trusting the status.
final class Interrupt: Sendable {
    enum Reason {
        case cancelled
        case deadline(Duration)
    }

    private let cancelled = Atomic<Bool>(false)
    /// When the work started, in nanoseconds of the continuous clock since `origin`; 0 until then.
    private let started = Atomic<Int>(0)
    private let origin = ContinuousClock.now
    private let timeLimit: Duration?
    /// How many progress callbacks the work made, and how many of them stopped it (for tests:
    /// proof that it stopped between rows).
    let callbacks = Atomic<Int>(0)
    let stopsByMonitor = Atomic<Int>(0)

    /// An interrupt whose time limit starts counting when ``begin()`` is called (work queued for a
    /// busy pool has not started), or at once when `startsNow`.
    init(timeLimit: Duration? = nil, startsNow: Bool = true) {
        self.timeLimit = timeLimit
        if startsNow { begin() }
    }

    /// Starts the time limit's clock, once: the work begins now.
    func begin() {
        let elapsed = ContinuousClock.now - origin
        let nanoseconds = max(Int(elapsed.components.seconds) * 1_000_000_000 + Int(elapsed.components.attoseconds / 1_000_000_000), 1)
        _ = started.compareExchange(expected: 0, desired: nanoseconds, ordering: .relaxed)
    }

    /// Asks the work to stop at its next progress callback.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// How long the work has run since ``begin()`` (zero before).
    var elapsed: Duration {
        let start = started.load(ordering: .relaxed)
        return start > 0 ? ContinuousClock.now - (origin + .nanoseconds(start)) : .zero
    }

    /// Why the work must stop, or nil to go on.
    var stopReason: Reason? {
        if cancelled.load(ordering: .relaxed) { return .cancelled }
        if let timeLimit, elapsed > timeLimit { return .deadline(timeLimit) }
        return nil
    }

    /// A progress point of the work (ImageMagick's progress callback, a row of MagickIO's own
    /// decoders): counted, and true to go on, false (also counted) to stop.
    func progressPoint() -> Bool {
        callbacks.add(1, ordering: .relaxed)
        guard stopReason == nil else {
            stopsByMonitor.add(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Throws ``MagickIOError/Kind/cancelled`` if the work must stop.
    func check() throws(MagickIOError) {
        switch stopReason {
        case nil: return
        case .cancelled: throw MagickIOError(.cancelled, "the operation was cancelled")
        case .deadline(let limit):
            let milliseconds = Int(limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000)
            throw MagickIOError(.cancelled, "the operation took longer than its time limit of \(milliseconds) ms",
                                limit: MagickIOError.Limit(name: "timeLimit", requested: milliseconds + 1, limit: milliseconds))
        }
    }
}


