import Foundation

/// The threads MagickIO runs blocking MagickWand work on for its `async` API, so that a decode
/// never occupies a thread of Swift's cooperative pool. As many jobs run at once as there are
/// active processors; jobs start in submission order.
///
/// A job that waits at an admission step (``AdmissionGate``: ImageMagick's pool full of held images or
/// other decodes) gives its place to the next job while it waits (``leavePlaceToWait()``), a thread being
/// started for it when none is free: otherwise the jobs that would give the pool back (the encode
/// of a held result, a decode that fits) would queue behind the ones waiting for them.
/// `@unchecked Sendable`: the job list and the counters are touched only under `condition`'s lock.
final class WorkerPool: @unchecked Sendable {
    static let shared = WorkerPool(threads: ProcessInfo.processInfo.activeProcessorCount)

    private let condition = NSCondition()
    /// Jobs in submission order; a slot is emptied when its job starts, so that nothing a job
    /// captured outlives it.
    private var jobs: [(() -> Void)?] = []
    private var head = 0
    /// Jobs that may run at once (not counting those that wait at a gate).
    private let places: Int
    /// The most threads, waiting ones included: a bound on what a pile of waiters can start.
    private let maxThreads: Int
    private var threads = 0
    /// Threads with no job, waiting for one.
    private var idle = 0
    /// Jobs running and not waiting at a gate.
    private var running = 0

    /// Marks a pool's thread with its pool.
    private static let poolThread = ThreadMark()

    init(threads: Int) {
        places = max(threads, 1)
        maxThreads = places * 16
        condition.withLock {
            for _ in 0..<places { startThread() }
        }
    }

    /// Runs `body` on a pool thread and returns its result; cancelling the calling task trips
    /// `interrupt`, which stops `body` at its next progress callback, or before it starts.
    func run<T: Sendable>(interrupt: Interrupt, _ body: @escaping @Sendable () throws(MagickIOError) -> T) async throws(MagickIOError) -> T {
        let result: Result<T, MagickIOError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                submit {
                    do throws(MagickIOError) {
                        interrupt.begin()  // a time limit counts from here, not from the queue
                        try interrupt.check()
                        continuation.resume(returning: .success(try body()))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
        } onCancel: {
            interrupt.cancel()
        }
        return try result.get()
    }

    /// Gives the calling pool thread's place to the next job, for a wait at an admission step;
    /// returns the pool, whose ``retakePlace()`` ends the wait, or nil on any other thread.
    static func leavePlaceToWait() -> WorkerPool? {
        guard let mark = poolThread.current else { return nil }
        let pool = Unmanaged<WorkerPool>.fromOpaque(mark).takeUnretainedValue()
        pool.condition.withLock {
            pool.running -= 1
            pool.wakeOrStart()
        }
        return pool
    }

    /// Ends a wait begun with ``leavePlaceToWait()``: the job runs on (for a while beside as many
    /// others as there are places).
    func retakePlace() {
        condition.withLock { running += 1 }
    }

    private func submit(_ job: @escaping () -> Void) {
        condition.withLock {
            jobs.append(job)
            wakeOrStart()
        }
    }

    /// Lets a waiting thread take the next job, or starts one (called with the lock held).
    private func wakeOrStart() {
        guard head < jobs.count, running < places else { return }
        if idle > 0 {
            condition.signal()
        } else if threads < maxThreads {
            startThread()
        }
    }

    /// Called with the lock held.
    private func startThread() {
        threads += 1
        let thread = Thread { [unowned self] in self.work() }
        thread.name = "MagickIO worker \(threads)"
        thread.stackSize = 8 << 20  // the main thread's usual size: room for ImageMagick's coders
        thread.start()
    }

    private func work() {
        Self.poolThread.set(Unmanaged.passUnretained(self).toOpaque())
        while true {
            condition.lock()
            // A thread beyond the pool's own that finds nothing to do ends (one started for a
            // waiter's place).
            while head == jobs.count || running >= places {
                if threads > places, head == jobs.count {
                    threads -= 1
                    condition.unlock()
                    return
                }
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head > 1024, head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            running += 1
            condition.unlock()
            job?()
            condition.withLock {
                running -= 1
                wakeOrStart()
            }
        }
    }
}
