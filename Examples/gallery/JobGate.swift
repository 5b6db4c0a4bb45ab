import Foundation
import MagickIO

/// At most `places` jobs at once, served in arrival order; a waiter whose task is cancelled (its
/// client left) leaves the queue at once.
/// `@unchecked Sendable`: the free places and the waiters are touched only under `lock`.
final class JobGate: @unchecked Sendable {
    private let lock = NSLock()
    private var free: Int
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, Error>)] = []
    private var nextID: UInt64 = 0

    init(places: Int) {
        free = max(places, 1)
    }

    func enter() async throws(MagickIOError) {
        let id = lock.withLock { () -> UInt64 in nextID += 1; return nextID }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                    lock.withLock {
                        if Task.isCancelled {
                            continuation.resume(throwing: CancellationError())
                        } else if free > 0 {
                            free -= 1
                            continuation.resume()
                        } else {
                            waiters.append((id, continuation))
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
            throw MagickIOError(.cancelled, "the request was cancelled while it waited for a place")
        }
    }

    /// The jobs waiting for a place.
    var waiting: Int {
        lock.withLock { waiters.count }
    }

    func leave() {
        let next = lock.withLock { () -> CheckedContinuation<Void, Error>? in
            guard !waiters.isEmpty else {
                free += 1
                return nil
            }
            return waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
