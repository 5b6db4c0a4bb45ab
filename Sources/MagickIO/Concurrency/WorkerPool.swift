import Foundation

/// The threads MagickIO runs blocking MagickWand work on for its `async` API, so that a decode
/// never occupies a thread of Swift's cooperative pool. One thread per active processor; jobs
/// start in submission order.
/// `@unchecked Sendable`: the job list is touched only under `condition`'s lock.
final class WorkerPool: @unchecked Sendable {
    static let shared = WorkerPool(threads: ProcessInfo.processInfo.activeProcessorCount)

    private let condition = NSCondition()
    /// Jobs in submission order; a slot is emptied when its job starts, so that nothing a job
    /// captured outlives it.
    private var jobs: [(() -> Void)?] = []
    private var head = 0

    init(threads: Int) {
        for index in 0..<max(threads, 1) {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "MagickIO worker \(index)"
            thread.stackSize = 8 << 20  // the main thread's usual size: room for ImageMagick's coders
            thread.start()
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

    private func submit(_ job: @escaping () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count {
                condition.wait()
            }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head > 1024, head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job?()
        }
    }
}
