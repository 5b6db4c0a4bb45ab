#if Remote
import MagickIO
import Synchronization

/// Identical requests in flight share one piece of work: the first starts it, the others wait for
/// it, and it is cancelled only when every waiter has gone (the way Nuke and Kingfisher coalesce).
/// A waiter that is cancelled returns at once with `MagickIOError/Kind/cancelled`.
final class Coalescer<Value: Sendable>: Sendable {
    private struct Entry {
        var generation: UInt64
        var task: Task<Void, Never>
        var waiters: [UInt64: CheckedContinuation<Result<Value, MagickIOError>, Never>]
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The number of pieces of work running.
    var inFlight: Int {
        state.withLock { $0.entries.count }
    }

    /// The callers waiting for the work on `key`.
    func waiters(for key: String) -> Int {
        state.withLock { $0.entries[key]?.waiters.count ?? 0 }
    }

    /// The result of `work` for `key`, joining the one under way when there is one.
    func value(for key: String, _ work: @escaping @Sendable () async throws(MagickIOError) -> Value) async throws(MagickIOError) -> Value {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, MagickIOError>, Never>) in
                state.withLock { state in
                    // A waiter cancelled before it got here has run its handler already.
                    guard !Task.isCancelled else {
                        continuation.resume(returning: .failure(Self.cancelled))
                        return
                    }
                    if state.entries[key] != nil {
                        state.entries[key]!.waiters[id] = continuation
                        return
                    }
                    state.nextID += 1
                    let generation = state.nextID
                    let task = Task { await self.run(key, generation: generation, work) }
                    state.entries[key] = Entry(generation: generation, task: task, waiters: [id: continuation])
                }
            }
        } onCancel: {
            leave(key, id)
        }
        return try result.get()
    }

    private func run(_ key: String, generation: UInt64, _ work: @Sendable () async throws(MagickIOError) -> Value) async {
        let result: Result<Value, MagickIOError>
        do throws(MagickIOError) {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Value, MagickIOError>, Never>] in
            guard let entry = state.entries[key], entry.generation == generation else { return [] }
            state.entries[key] = nil
            return Array(entry.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// A waiter's cancellation: it returns now; the work is cancelled when it was the last.
    private func leave(_ key: String, _ id: UInt64) {
        let (waiter, abandoned) = state.withLock { state -> (CheckedContinuation<Result<Value, MagickIOError>, Never>?, Task<Void, Never>?) in
            guard var entry = state.entries[key], let waiter = entry.waiters.removeValue(forKey: id) else { return (nil, nil) }
            if entry.waiters.isEmpty {
                state.entries[key] = nil
                return (waiter, entry.task)
            }
            state.entries[key] = entry
            return (waiter, nil)
        }
        waiter?.resume(returning: .failure(Self.cancelled))
        abandoned?.cancel()
    }

    /// Cancels everything in flight (the loader's shutdown).
    func cancelAll() {
        let entries = state.withLock { state in
            defer { state.entries = [:] }
            return Array(state.entries.values)
        }
        for entry in entries {
            for waiter in entry.waiters.values { waiter.resume(returning: .failure(Self.cancelled)) }
            entry.task.cancel()
        }
    }

    private static var cancelled: MagickIOError {
        MagickIOError(.cancelled, "the request was cancelled")
    }
}
#endif
