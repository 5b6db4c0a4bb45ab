import Foundation

/// Thumbnails images with a bounded number of jobs and a memory budget it promises in advance,
/// across every call made on it: a long-lived object that a service shares between its request
/// handlers, as it would share a connection pool.
///
/// ```swift
/// let thumbnailer = Thumbnailer(maxConcurrentJobs: 2, memoryBudget: 512 << 20)   // one for the process
/// let image = try await thumbnailer.thumbnail(of: upload, maxPixelSize: 256)       // one image, in a handler
/// for await result in thumbnailer.thumbnails(of: urls, maxPixelSize: 256) {        // many, as they finish
///     switch result.result {
///     case .success(let image): try await image.write(to: output(for: result.input), as: .jpeg(quality: 85))
///     case .failure(let error): print(result.input, error.kind)
///     }
/// }
/// ```
///
/// - Each job opens its input (header only), predicts its cost from the header (after JPEG
///   shrink-on-load, see ``DecodingOptions``) and starts only when a place is free and that cost fits
///   in what is left of `memoryBudget`, beside the jobs of every other call on this thumbnailer; a
///   job that would not fit even in the whole budget fails at once with
///   ``MagickIOError/Kind/limitExceeded`` rather than waiting forever. Jobs start in arrival order.
/// - Beyond this thumbnailer, every decode in the process waits its turn for ImageMagick's pixel
///   cache (one pool, ``ResourceLimits/memory``), so that independent calls at once never fail
///   where one alone succeeds: several thumbnailers, and plain `thumbnail` calls, only wait.
/// - The decodes run on MagickIO's own threads, never on Swift's cooperative pool.
/// - Results of ``thumbnails(of:maxPixelSize:at:allowUpscale:options:)-([URL],_,_,_,_)`` come in
///   completion order, each tagged with its input and its index in the input list. One input
///   failing never stops the others.
/// - Cancelling the waiting task (or leaving the loop) stops queued jobs at once and running ones at
///   their next progress callback; results already delivered stay valid.
public final class Thumbnailer: Sendable {
    /// The most jobs under way at once, across every call on this thumbnailer.
    public let maxConcurrentJobs: Int
    /// The most bytes the jobs under way may need together, as predicted from their headers (see
    /// ``DecodingOptions`` for the cost model), across every call on this thumbnailer. Each source
    /// is opened with a ``DecodingOptions/memoryBudget`` of at least this, so one job may take all
    /// of it. The part of a decode that goes to ImageMagick's pixel cache is bounded besides by
    /// that pool (``ResourceLimits/memory``), for which every decode in the process waits its turn.
    public let memoryBudget: Int
    /// The options each source is opened with (their own `memoryBudget` is raised to the
    /// thumbnailer's, which is the one that governs here).
    public let decodingOptions: DecodingOptions
    /// This thumbnailer's budget, the first step of every job's admission (places and bytes);
    /// ImageMagick's pool is the next (``AdmissionGate``).
    let gate: AdmissionGate

    /// - Parameters:
    ///   - maxConcurrentJobs: default: the number of active processors.
    ///   - memoryBudget: default: 256 MiB.
    ///   - decodingOptions: how each input is opened (``DecodingOptions``).
    public init(maxConcurrentJobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                memoryBudget: Int = 256 << 20, decodingOptions: DecodingOptions = .default) {
        self.maxConcurrentJobs = max(maxConcurrentJobs, 1)
        self.memoryBudget = max(memoryBudget, 0)
        var opening = decodingOptions
        opening.memoryBudget = max(opening.memoryBudget, self.memoryBudget)
        self.decodingOptions = opening
        gate = AdmissionGate(places: self.maxConcurrentJobs, bytes: self.memoryBudget)
    }

    /// Jobs of this thumbnailer waiting for a place or for memory now (a service may refuse new
    /// work when this grows).
    public var waitingJobs: Int { gate.waitingCount }

    /// Jobs of this thumbnailer under way now.
    public var runningJobs: Int { gate.runningCount }

    // MARK: - One image

    /// A thumbnail of the image file at `url`, upright with its longest side `maxPixelSize` (see
    /// `ImageSource/thumbnail(maxPixelSize:at:allowUpscale:options:)`), admitted beside this
    /// thumbnailer's other jobs: it waits for a place and for its memory, never fails for want of them
    /// unless it alone needs more than the whole budget.
    ///
    /// - Throws: ``MagickIOError``: what opening the file or its thumbnail throws, `limitExceeded`
    ///   when its cost is over the whole budget, `cancelled` when the task is cancelled.
    public func thumbnail(of url: URL, maxPixelSize: Int, at frame: Int = 0, allowUpscale: Bool = false,
                          options: ThumbnailOptions = ThumbnailOptions()) async throws -> Image {
        try await job(url, .maxPixelSize(maxPixelSize), at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// A thumbnail of an image held in memory, as ``thumbnail(of:maxPixelSize:at:allowUpscale:options:)-(URL,_,_,_,_)``.
    public func thumbnail(of data: Data, maxPixelSize: Int, at frame: Int = 0, allowUpscale: Bool = false,
                          options: ThumbnailOptions = ThumbnailOptions()) async throws -> Image {
        try await job(data, .maxPixelSize(maxPixelSize), at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// A thumbnail of a source already open (its own ``DecodingOptions`` stay in force), as
    /// ``thumbnail(of:maxPixelSize:at:allowUpscale:options:)-(URL,_,_,_,_)``.
    public func thumbnail(of source: ImageSource, maxPixelSize: Int, at frame: Int = 0, allowUpscale: Bool = false,
                          options: ThumbnailOptions = ThumbnailOptions()) async throws -> Image {
        try await job(source, .maxPixelSize(maxPixelSize), at: frame, allowUpscale: allowUpscale, options: options)
    }

    // MARK: - Many images

    /// Thumbnails of the image files at `urls`, each upright with its longest side `maxPixelSize`
    /// (see `ImageSource/thumbnail(maxPixelSize:at:allowUpscale:options:)`), in completion order.
    ///
    /// The sequence never throws: each ``ThumbnailResult`` carries its own outcome.
    public func thumbnails(of urls: [URL], maxPixelSize: Int, at frame: Int = 0, allowUpscale: Bool = false,
                           options: ThumbnailOptions = ThumbnailOptions()) -> AsyncStream<ThumbnailResult<URL>> {
        results(of: urls, .maxPixelSize(maxPixelSize), at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// Thumbnails of images held in memory, as ``thumbnails(of:maxPixelSize:at:allowUpscale:options:)-([URL],_,_,_,_)``.
    public func thumbnails(of images: [Data], maxPixelSize: Int, at frame: Int = 0, allowUpscale: Bool = false,
                           options: ThumbnailOptions = ThumbnailOptions()) -> AsyncStream<ThumbnailResult<Data>> {
        results(of: images, .maxPixelSize(maxPixelSize), at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// Thumbnails of sources already open (their own ``DecodingOptions`` stay in force), as
    /// ``thumbnails(of:maxPixelSize:at:allowUpscale:options:)-([URL],_,_,_,_)``.
    public func thumbnails(of sources: [ImageSource], maxPixelSize: Int, at frame: Int = 0, allowUpscale: Bool = false,
                           options: ThumbnailOptions = ThumbnailOptions()) -> AsyncStream<ThumbnailResult<ImageSource>> {
        results(of: sources, .maxPixelSize(maxPixelSize), at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// One job: the input opened (header only), its thumbnail planned (its cost and its limits,
    /// checked once), its turn taken at ``gate``, then the plan run on MagickIO's threads.
    func job<Input: ThumbnailInput>(_ input: Input, _ request: ThumbnailRequest, at frame: Int, allowUpscale: Bool,
                                    options thumbnailOptions: ThumbnailOptions) async throws(MagickIOError) -> Image {
        let source = try await input.openSource(options: decodingOptions)
        let plan = try source.thumbnailPlan(request, at: frame, allowUpscale: allowUpscale, options: thumbnailOptions)
        let cost = try plan.cost.get()
        try await gate.enter(cost: cost)
        defer { gate.leave(cost: cost) }
        // An animation's pipeline plans its frames itself (AnimatedThumbnail.swift); a decode
        // worker plans its own thumbnail (the plan here was for the cost).
        if thumbnailOptions.animated || source.isolatesDecodes {
            return try await source.asyncThumbnail(request, at: frame, allowUpscale: allowUpscale, options: thumbnailOptions)
        }
        return try await source.asyncThumbnail(plan, options: thumbnailOptions)
    }

    func results<Input: ThumbnailInput>(of inputs: [Input], _ request: ThumbnailRequest, at frame: Int, allowUpscale: Bool,
                                        options thumbnailOptions: ThumbnailOptions) -> AsyncStream<ThumbnailResult<Input>> {
        let (stream, continuation) = AsyncStream.makeStream(of: ThumbnailResult<Input>.self)
        // The sequence keeps no more jobs in flight than the thumbnailer has places: the rest of
        // the inputs are not even opened until a job of this sequence ends.
        let jobs = maxConcurrentJobs
        let task = Task {
            await withTaskGroup(of: ThumbnailResult<Input>?.self) { group in
                var next = 0
                func startNext() {
                    guard next < inputs.count, !Task.isCancelled else { return }
                    let index = next
                    next += 1
                    group.addTask {
                        guard !Task.isCancelled else { return nil }
                        let input = inputs[index]
                        do throws(MagickIOError) {
                            let image = try await self.job(input, request, at: frame, allowUpscale: allowUpscale,
                                                           options: thumbnailOptions)
                            return ThumbnailResult(input: input, index: index, result: .success(image))
                        } catch {
                            return ThumbnailResult(input: input, index: index, result: .failure(error))
                        }
                    }
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
