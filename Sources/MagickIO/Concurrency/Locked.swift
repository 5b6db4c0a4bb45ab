import Foundation

/// A value behind a lock, like `Synchronization.Mutex`, but on a pthread mutex (`NSLock`):
/// ThreadSanitizer understands pthread mutexes, while the futex `Mutex` uses on Linux is invisible
/// to it and every access behind one would be reported as a race.
/// `@unchecked Sendable`: the value is touched only under the lock (a caller's `Value` must not
/// escape `withLock`).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
