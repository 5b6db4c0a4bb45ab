import Foundation

/// A ``Thumbnailer``'s admission, held across all of its calls: at most `places` jobs under way,
/// whose predicted costs fit together in `bytes`. Jobs are served in arrival order (one that does
/// not fit holds back those behind it, so a large job is never starved); a job whose task is
/// cancelled leaves the queue at once.
/// `@unchecked Sendable`: the counters and the waiters are touched only under `lock`.
final class JobQueue: @unchecked Sendable {
    let places: Int
    let bytes: Int
    private let lock = NSLock()
    private var running = 0
    private var used = 0
    private var waiters: [(id: UInt64, cost: Int, continuation: CheckedContinuation<Void, Error>)] = []
    private var nextID: UInt64 = 0

    init(places: Int, bytes: Int) {
        self.places = max(places, 1)
        self.bytes = max(bytes, 0)
    }

    /// Jobs under way.
    var runningCount: Int { lock.withLock { running } }

    /// Jobs waiting for their turn.
    var waitingCount: Int { lock.withLock { waiters.count } }

    /// Waits until a place is free and `cost` fits beside the jobs under way. A cost over the whole
    /// budget fails at once (it would wait forever); a cancelled task's wait ends as `cancelled`.
    func enter(cost: Int) async throws(MagickIOError) {
        guard cost <= bytes else {
            throw MagickIOError.limit("memoryBudget", requested: cost, limit: bytes,
                                      "this image alone needs more than the thumbnailer's whole budget")
        }
        let id = lock.withLock { () -> UInt64 in nextID += 1; return nextID }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                    lock.withLock {
                        if Task.isCancelled {
                            continuation.resume(throwing: CancellationError())
                        } else if waiters.isEmpty, fits(cost) {
                            take(cost)
                            continuation.resume()
                        } else {
                            waiters.append((id, cost, continuation))
                        }
                    }
                }
            } onCancel: {
                let cancelled = lock.withLock { () -> CheckedContinuation<Void, Error>? in
                    guard let at = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return waiters.remove(at: at).continuation
                }
                cancelled?.resume(throwing: CancellationError())
            }
        } catch {
            throw MagickIOError(.cancelled, "the job was cancelled while it waited for its turn")
        }
    }

    /// Gives back a job's place and cost, and lets in the waiters that now fit, in order.
    func leave(cost: Int) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Error>] in
            running -= 1
            used -= cost
            var ready: [CheckedContinuation<Void, Error>] = []
            while let first = waiters.first, fits(first.cost) {
                take(first.cost)
                ready.append(waiters.removeFirst().continuation)
            }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    private func fits(_ cost: Int) -> Bool {
        running < places && used.saturatingPlus(cost) <= bytes
    }

    private func take(_ cost: Int) {
        running += 1
        used += cost
    }
}
