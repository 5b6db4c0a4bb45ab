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
    private let started = ContinuousClock.now
    private let timeLimit: Duration?

    init(timeLimit: Duration? = nil) {
        self.timeLimit = timeLimit
    }

    /// Asks the work to stop at its next progress callback.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// Why the work must stop, or nil to go on.
    var stopReason: Reason? {
        if cancelled.load(ordering: .relaxed) { return .cancelled }
        if let timeLimit, ContinuousClock.now - started > timeLimit { return .deadline(timeLimit) }
        return nil
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


