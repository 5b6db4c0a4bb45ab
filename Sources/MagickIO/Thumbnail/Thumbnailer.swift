import Foundation

/// Thumbnails many images at once, with a bounded number of jobs and a memory budget it promises
/// in advance, yielding each result as it finishes.
///
/// ```swift
/// let thumbnailer = Thumbnailer(maxConcurrentJobs: 2, memoryBudget: 512 << 20)
/// for await result in thumbnailer.thumbnails(of: urls, maxPixelSize: 256) {
///     switch result.result {
///     case .success(let image): try await image.write(to: output(for: result.input), as: .jpeg(quality: 85))
///     case .failure(let error): print(result.input, error.kind)
///     }
/// }
/// ```
///
/// - Each job opens its input (header only), predicts its decode's cost from the header (after
///   JPEG shrink-on-load, see ``DecodingOptions``) and starts only when that cost fits in what is
///   left of `memoryBudget`; a job that would not fit even in the whole budget fails at once with
///   ``MagickIOError/Kind/limitExceeded`` rather than waiting forever.
/// - At most `maxConcurrentJobs` jobs are under way; the decodes run on MagickIO's own threads,
///   never on Swift's cooperative pool.
/// - Results come in completion order, each tagged with its input and its index in the input list.
///   One input failing never stops the others.
/// - Cancelling the consuming task (or leaving the loop) stops queued jobs at once and running
///   ones at their next progress callback; results already delivered stay valid.
public struct Thumbnailer: Sendable {
    /// The most jobs under way at once.
    public var maxConcurrentJobs: Int
    /// The most bytes the decodes under way may need together, as predicted from their headers
    /// (see ``DecodingOptions`` for the cost model). A budget above ImageMagick's memory limit in
    /// force (``ResourceLimits/memory``, after the system policy's clamp) is clamped to it when the
    /// thumbnails start: that limit is one pool for the whole process, and decodes admitted beyond
    /// it would fail for want of pixel cache. Raise both together to run more at once.
    public var memoryBudget: Int
    /// The options each source is opened with (their own `memoryBudget` is raised to the
    /// thumbnailer's, which is the one that governs here).
    public var decodingOptions: DecodingOptions

    /// - Parameters:
    ///   - maxConcurrentJobs: default: the number of active processors.
    ///   - memoryBudget: default: 256 MiB, ImageMagick's default memory limit.
    ///   - decodingOptions: how each input is opened (``DecodingOptions``).
    public init(maxConcurrentJobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                memoryBudget: Int = 256 << 20, decodingOptions: DecodingOptions = .default) {
        self.maxConcurrentJobs = max(maxConcurrentJobs, 1)
        self.memoryBudget = max(memoryBudget, 0)
        self.decodingOptions = decodingOptions
    }

    /// Thumbnails of the image files at `urls`, each upright with its longest side `maxPixelSize`
    /// (see `ImageSource/thumbnail(maxPixelSize:at:allowUpscale:options:)`), in completion order.
    ///
    /// The sequence never throws: each ``ThumbnailResult`` carries its own outcome.
    public func thumbnails(of urls: [URL], maxPixelSize: Int, at frame: Int = 0, allowUpscale: Bool = false,
                           options: ThumbnailOptions = ThumbnailOptions()) -> AsyncStream<ThumbnailResult<URL>> {
        results(of: urls, maxPixelSize: maxPixelSize, at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// Thumbnails of images held in memory, as ``thumbnails(of:maxPixelSize:at:allowUpscale:options:)->AsyncStream<ThumbnailResult<URL>>``.
    public func thumbnails(of images: [Data], maxPixelSize: Int, at frame: Int = 0, allowUpscale: Bool = false,
                           options: ThumbnailOptions = ThumbnailOptions()) -> AsyncStream<ThumbnailResult<Data>> {
        results(of: images, maxPixelSize: maxPixelSize, at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// Thumbnails of sources already open (their own ``DecodingOptions`` stay in force), as
    /// ``thumbnails(of:maxPixelSize:at:allowUpscale:options:)->AsyncStream<ThumbnailResult<URL>>``.
    public func thumbnails(of sources: [ImageSource], maxPixelSize: Int, at frame: Int = 0, allowUpscale: Bool = false,
                           options: ThumbnailOptions = ThumbnailOptions()) -> AsyncStream<ThumbnailResult<ImageSource>> {
        results(of: sources, maxPixelSize: maxPixelSize, at: frame, allowUpscale: allowUpscale, options: options)
    }

    func results<Input: ThumbnailInput>(of inputs: [Input], maxPixelSize: Int, at frame: Int, allowUpscale: Bool,
                                                options thumbnailOptions: ThumbnailOptions) -> AsyncStream<ThumbnailResult<Input>> {
        let (stream, continuation) = AsyncStream.makeStream(of: ThumbnailResult<Input>.self)
        // ImageMagick's pixel cache is one pool for the process: a budget above its limit would
        // admit decodes that cannot all fit in it.
        let budget = MemoryBudget(total: min(memoryBudget, MagickCache.limit))
        var opening = decodingOptions
        opening.memoryBudget = max(opening.memoryBudget, memoryBudget)
        let options = opening
        let jobs = maxConcurrentJobs
        let job = { @Sendable (index: Int) async -> ThumbnailResult<Input> in
            let input = inputs[index]
            do throws(MagickIOError) {
                let source = try await input.openSource(options: options)
                let cost = try source.thumbnailCost(.maxPixelSize(maxPixelSize), at: frame, allowUpscale: allowUpscale,
                                                    options: thumbnailOptions)
                try await budget.acquire(cost)
                defer { budget.release(cost) }
                let image = try await source.asyncThumbnail(.maxPixelSize(maxPixelSize), at: frame, allowUpscale: allowUpscale,
                                                            options: thumbnailOptions)
                return ThumbnailResult(input: input, index: index, result: .success(image))
            } catch {
                return ThumbnailResult(input: input, index: index, result: .failure(error))
            }
        }
        let task = Task {
            await withTaskGroup(of: ThumbnailResult<Input>?.self) { group in
                var next = 0
                func startNext() {
                    guard next < inputs.count, !Task.isCancelled else { return }
                    let index = next
                    next += 1
                    group.addTask { Task.isCancelled ? nil : await job(index) }
                }
                for _ in 0..<jobs { startNext() }
                for await result in group {
                    if let result, !Task.isCancelled, result.result.cancelledError == nil {
                        continuation.yield(result)
                    }
                    startNext()
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// One thumbnail's outcome, tagged with its input.
public struct ThumbnailResult<Input: Sendable>: Sendable {
    /// The input as given.
    public var input: Input
    /// Its position in the input list.
    public var index: Int
    /// The thumbnail, or why there is none.
    public var result: Result<Image, MagickIOError>
}

/// What ``Thumbnailer`` takes: something it can open as an ``ImageSource``.
protocol ThumbnailInput: Sendable {
    /// Opens the input, reading its header only, on MagickIO's threads.
    func openSource(options: DecodingOptions) async throws(MagickIOError) -> ImageSource
}

extension URL: ThumbnailInput {
    func openSource(options: DecodingOptions) async throws(MagickIOError) -> ImageSource {
        try await WorkerPool.shared.run(interrupt: Interrupt()) { () throws(MagickIOError) in
            try ImageSource.open(url: self, options: options)
        }
    }
}

extension Data: ThumbnailInput {
    func openSource(options: DecodingOptions) async throws(MagickIOError) -> ImageSource {
        try await WorkerPool.shared.run(interrupt: Interrupt()) { () throws(MagickIOError) in
            try ImageSource(bytes: .memory(self), options: options)
        }
    }
}

extension ImageSource: ThumbnailInput {
    /// The source itself: it is already open (its own options stay in force).
    func openSource(options: DecodingOptions) async throws(MagickIOError) -> ImageSource {
        self
    }
}

extension Result where Failure == MagickIOError {
    var cancelledError: MagickIOError? {
        if case .failure(let error) = self, error.kind == .cancelled, error.limit == nil { return error }
        return nil
    }
}

/// The thumbnailer's memory admission: a job waits until its predicted cost fits in what is left.
/// Waiters are served in arrival order; a cancelled waiter leaves the queue at once.
/// `@unchecked Sendable`: what is used and who waits are touched only under `lock`.
final class MemoryBudget: @unchecked Sendable {
    private let total: Int
    private var used = 0
    private var waiters: [(id: Int, cost: Int, continuation: CheckedContinuation<Void, Error>)] = []
    private var nextID = 0
    private let lock = NSLock()

    init(total: Int) {
        self.total = total
    }

    func acquire(_ cost: Int) async throws(MagickIOError) {
        guard cost <= total else {
            throw MagickIOError.limit("memoryBudget", requested: cost, limit: total,
                                      "this image alone needs more than the thumbnailer's whole budget")
        }
        let id = lock.withLock { () -> Int in nextID += 1; return nextID }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                    lock.withLock {
                        if Task.isCancelled {
                            continuation.resume(throwing: CancellationError())
                        } else if waiters.isEmpty, used + cost <= total {
                            used += cost
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
            throw MagickIOError(.cancelled, "the job was cancelled while it waited for memory")
        }
    }

    func release(_ cost: Int) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Error>] in
            used -= cost
            var ready: [CheckedContinuation<Void, Error>] = []
            while let first = waiters.first, used + first.cost <= total {
                used += first.cost
                ready.append(waiters.removeFirst().continuation)
            }
            return ready
        }
        ready.forEach { $0.resume() }
    }
}
