import Glibc

/// A mark a thread carries (a pthread key's value): whether it is a ``WorkerPool`` thread, whether
/// it runs work ``AdmissionGate`` admitted. Read and written with no allocation and no lock, on the
/// paths every decode takes (Foundation's thread dictionary allocates on a thread's first use).
final class ThreadMark: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no pthread key left for MagickIO's thread marks")
        self.key = key
    }

    /// The calling thread's mark, nil when it has none.
    var current: UnsafeMutableRawPointer? {
        pthread_getspecific(key)
    }

    /// Sets the calling thread's mark (nil removes it).
    func set(_ mark: UnsafeMutableRawPointer?) {
        pthread_setspecific(key, mark)
    }

    /// Runs `body` with the calling thread marked, and restores the mark it had.
    func marking<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let previous = current
        set(UnsafeMutableRawPointer(bitPattern: 1))
        defer { set(previous) }
        return try body()
    }
}
