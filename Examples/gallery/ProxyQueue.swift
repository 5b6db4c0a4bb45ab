import Synchronization

/// The proxy's admission: at most `jobs` requests download and process at once, at most `queue`
/// more wait for a place, and one more than that is turned away (429) at once rather than left
/// to pile up. A waiter whose task is cancelled (its client left) leaves the queue.
/// Like imgproxy's concurrency and queue size: a place covers the download as well as the work.
final class ProxyQueue: Sendable {
    let jobs: Int
    let queue: Int

    private struct State {
        var running = 0
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    init(jobs: Int, queue: Int) {
        self.jobs = max(jobs, 1)
        self.queue = max(queue, 0)
    }

    /// The requests running and waiting now.
    var counts: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waiting.count) }
    }

    /// Runs `body` once a place is free; throws 429 `queueFull` when the queue is full, and
    /// `CancellationError` when the task is cancelled while it waits.
    func run<T>(_ body: () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await body()
    }

    private enum Entry {
        case admitted, full, waiting, cancelled
    }

    private func enter() async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided and queued under one lock, so that a place freed meanwhile is not missed.
                let entry: Entry = state.withLock { state in
                    if state.running < jobs {
                        state.running += 1
                        return .admitted
                    }
                    guard state.waiting.count < queue else { return .full }
                    guard !Task.isCancelled else { return .cancelled }
                    state.waiting.append((id, continuation))
                    return .waiting
                }
                switch entry {
                case .admitted: continuation.resume()
                case .full: continuation.resume(throwing: GalleryError.queueFull(jobs: jobs, queue: queue))
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let removed = state.withLock { state in
                state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0).continuation }
            }
            removed?.resume(throwing: CancellationError())
        }
    }

    /// Hands the place to the first waiter, or frees it.
    private func leave() {
        let next = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil as CheckedContinuation<Void, any Error>?
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}

extension GalleryError {
    static func queueFull(jobs: Int, queue: Int) -> GalleryError {
        GalleryError(.tooManyRequests, kind: "queueFull", "the proxy is busy: \(jobs) running and \(queue) waiting; try again later")
    }
}
