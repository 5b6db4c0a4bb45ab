import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// A 12 MP photo-like JPEG, written once per test run (a full decode takes tens of milliseconds).
let twelveMegapixels: URL = {
    try! LargeImages.cached("12mp.jpg") {
        try LargeImages.writeJPEG(to: $0, width: 4000, height: 3000, quality: 90, progressive: false)
    }
}()

@Suite("Cancellation and time limits")
struct CancellationTests {
    @Test("a time limit that has passed stops a decode and throws cancelled with the limit", .timeLimit(.minutes(10)))
    func timeLimitStopsDecode() throws {
        // A limit of zero has passed by the first check, however fast the machine: no clock race.
        let source = try ImageSource(url: twelveMegapixels, options: DecodingOptions(timeLimit: .zero))
        let error = #expect(throws: MagickIOError.self) { _ = try source.image(at: 0) }
        let stoppedItself = error?.kind == .cancelled && error?.limit?.name == "timeLimit" && error?.limit?.limit == 0
        // Under a sanitizer on a busy machine, a new worker may take longer than the grace second
        // to reach its first check, and its host stops it instead: the same limit, as `time`.
        let stoppedByHost = error?.kind == .limitExceeded && error?.limit?.name == "time" && error?.limit?.limit == 0
        #expect(stoppedItself || (runningUnderSanitizer && stoppedByHost), "\(String(describing: error))")
    }

    @Test("a time limit reaches a decode under way between two rows, once its clock has run out",
          .timeLimit(.minutes(10)), arguments: ["image", "thumbnail"])
    func deadlineBetweenRows(call: String) throws {
        let source = try ImageSource(url: twelveMegapixels, options: DecodingOptions().inProcess)
        // The clock starts at the decode's first progress point, with nothing left of its limit.
        let interrupt = Interrupt(timeLimit: .zero, startsNow: false)
        let outcome = Self.atFirstProgress(interrupt, do: { interrupt.begin() }) { () throws(MagickIOError) in
            if call == "image" {
                _ = try source.image(at: 0, interrupt: interrupt)
            } else {
                var options = ThumbnailOptions()
                options.ownDecoders = false
                _ = try source.thumbnail(.maxPixelSize(1024), at: 0, allowUpscale: false, options: options, interrupt: interrupt)
            }
        }
        #expect(outcome == .cancelled)
        #expect(interrupt.stopsByMonitor.load(ordering: .relaxed) >= 1, "a progress callback stopped it")
        #expect(interrupt.callbacks.load(ordering: .relaxed) < 3000, "before the last row")
    }

    @Test("a stop reaches a decode under way between two rows, through ImageMagick's progress callback",
          .timeLimit(.minutes(10)))
    func stopBetweenRows() throws {
        let source = try ImageSource(url: twelveMegapixels, options: DecodingOptions().inProcess)
        let interrupt = Interrupt()
        let outcome = Self.cancelAtFirstProgress(interrupt) { () throws(MagickIOError) in
            _ = try source.image(at: 0, interrupt: interrupt)
        }
        #expect(outcome == .cancelled)
        #expect(interrupt.stopsByMonitor.load(ordering: .relaxed) >= 1, "a progress callback stopped it")
        #expect(interrupt.callbacks.load(ordering: .relaxed) < 3000, "before the last row")
    }

    @Test("a stop reaches MagickIO's own JPEG and PNG decoders between two rows", .timeLimit(.minutes(10)),
          arguments: ["jpeg", "png"])
    func ownDecoderStopsBetweenRows(format: String) throws {
        let url = format == "jpeg" ? twelveMegapixels : try LargeImages.cached("12mp-rgba.png") {
            try LargeImages.writePNG(to: $0, width: 4000, height: 3000, alpha: true)
        }
        let source = try ImageSource(url: url, options: DecodingOptions().inProcess)
        let interrupt = Interrupt()
        let outcome = Self.cancelAtFirstProgress(interrupt) { () throws(MagickIOError) in
            _ = try source.thumbnail(.maxPixelSize(1024), at: 0, allowUpscale: false, options: ThumbnailOptions(),
                                     interrupt: interrupt)
        }
        #expect(outcome == .cancelled)
        #expect(interrupt.stopsByMonitor.load(ordering: .relaxed) >= 1, "a progress point stopped it")
    }

    @Test("a stop reaches libheif between a grid's tiles (libheif 1.19 and later: its cancel callback)",
          .enabled(if: LibHeif.takesLimitsAndStops,
                   "libheif 1.15 (Debian 12) has no cancel callback: it decodes a whole grid before MagickIO's rows can stop"),
          .timeLimit(.minutes(10)))
    func stopInsideLibheif() throws {
        // 992 tiles of 96x64: libheif asks the interrupt before each one.
        let source = try ImageSource(url: HostileFixtures.url("heif-grid-992.heic"), options: DecodingOptions().inProcess)
        let interrupt = Interrupt()
        let outcome = Self.cancelAtFirstProgress(interrupt) { () throws(MagickIOError) in
            _ = try source.thumbnail(.maxPixelSize(256), at: 0, allowUpscale: false, options: ThumbnailOptions(),
                                     interrupt: interrupt)
        }
        #expect(outcome == .cancelled)
        #expect(interrupt.stopsByMonitor.load(ordering: .relaxed) >= 1, "a progress point stopped it")
        #expect(interrupt.callbacks.load(ordering: .relaxed) < 992, "before the last tile")
    }

    /// Runs `work` on a thread of its own and cancels `interrupt` as soon as its first progress
    /// point has been seen; the error kind it ended with (`.io` for no error: it was never
    /// stopped). No clock involved: what the code guarantees is that a progress point then stops
    /// it, long before its last row.
    static func cancelAtFirstProgress(_ interrupt: Interrupt, _ work: @escaping @Sendable () throws(MagickIOError) -> Void)
        -> MagickIOError.Kind? {
        atFirstProgress(interrupt, do: { interrupt.cancel() }, work)
    }

    /// Runs `work` on a thread of its own and runs `stop` as soon as its first progress point has
    /// been seen; the error kind it ended with (`.io` for none).
    static func atFirstProgress(_ interrupt: Interrupt, do stop: () -> Void,
                                _ work: @escaping @Sendable () throws(MagickIOError) -> Void) -> MagickIOError.Kind? {
        let outcome = Locked<MagickIOError.Kind?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do throws(MagickIOError) {
                try work()
                outcome.withLock { $0 = .io }
            } catch {
                outcome.withLock { $0 = error.kind }
            }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        // The thread is owed its first progress point (or its end): a bounded wait, not a timing.
        try? waitUntil { interrupt.callbacks.load(ordering: .relaxed) > 0 || outcome.withLock({ $0 }) != nil }
        stop()
        done.wait()
        return outcome.withLock { $0 }
    }

    @Test("an async call's time limit counts from when its work starts, not from when it was queued",
          .timeLimit(.minutes(10)))
    func timeLimitStartsWithTheWork() async throws {
        let pool = WorkerPool(threads: 1)
        // The pool's only thread is held by a job until the test opens its gate; a job with a
        // time limit of zero queues behind it.
        let inside = Locked(false), gate = DispatchSemaphore(value: 0)
        async let busy: Void = pool.run(interrupt: Interrupt()) { inside.withLock { $0 = true }; gate.wait() }
        try await waitUntil { inside.withLock { $0 } }
        let queued = Interrupt(timeLimit: .zero, startsNow: false)
        let ran = Locked(false)
        let job = Task { try await pool.run(interrupt: queued) { () throws(MagickIOError) in ran.withLock { $0 = true } } }
        // Queued, however long: no clock runs for it (a zero limit would have passed at once).
        #expect(queued.stopReason == nil)
        gate.signal()
        try await busy
        // Once its work starts, the clock runs: with nothing left of its limit, it stops before its body.
        let error = await #expect(throws: MagickIOError.self) { try await job.value }
        #expect(error?.kind == .cancelled && error?.limit?.name == "timeLimit", "\(String(describing: error))")
        #expect(!ran.withLock { $0 })
        // An interrupt that starts now has no queue to wait in: a zero limit has passed at once.
        let started = Interrupt(timeLimit: .zero)
        let passed = #expect(throws: MagickIOError.self) { try started.check() }
        #expect(passed?.kind == .cancelled)
    }

    @Test("a generous time limit lets the work finish")
    func generousTimeLimit() throws {
        let source = try ImageSource(url: twelveMegapixels, options: DecodingOptions(timeLimit: .seconds(60)))
        let thumb = try source.thumbnail(maxPixelSize: 256)
        #expect(thumb.width == 256 && thumb.height == 192)
    }

    @Test("cancelling the task stops its decode and throws cancelled", .timeLimit(.minutes(10)))
    func taskCancellation() async throws {
        let source = try ImageSource(url: twelveMegapixels, options: DecodingOptions().inProcess)
        // The decode is under way (waiting at ImageMagick's cache gate, which a thread of the test
        // holds) when the task is cancelled. That thread, not the test's task, makes the task,
        // cancels it and lets the gate go: nothing it waits for needs Swift's cooperative threads,
        // which other tests' blocking decodes may hold.
        let made = AsyncGate(), taskBox = Locked<Task<Image, any Error>?>(nil)
        Thread {
            AdmissionGate.shared.exclusive(reserving: 0) {
                let task = Task { try await source.image(at: 0) }
                taskBox.withLock { $0 = task }
                made.open()
                try? waitUntil { AdmissionGate.shared.waitingCount >= 1 }
                task.cancel()
            }
        }.start()
        await made.wait()
        let task = try #require(taskBox.withLock { $0 })
        let result = await task.result
        switch result {
        case .success(let image):
            Issue.record("the cancelled decode returned a \(image.width)x\(image.height) image")
        case .failure(let error as MagickIOError):
            #expect(error.kind == .cancelled)
        case .failure(let error):
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("a task cancelled before its work starts never decodes")
    func cancelledBeforeStart() async throws {
        let source = try Fixture.source("photo.jpg")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await source.thumbnail(maxPixelSize: 64)
        }
        let result = await task.result
        let error = #expect(throws: MagickIOError.self) { try result.get() }
        #expect(error?.kind == .cancelled, "\(String(describing: error))")
    }

    @Test("the async forms give the same thumbnails as the blocking ones")
    func asyncMatchesSync() async throws {
        let source = try ImageSource(url: Fixture.url("orient-7.jpg"))
        let thumb = try await source.thumbnail(maxPixelSize: 48)
        try expectUprightQuadrants(thumb)
        let syncThumb: Image = try { () throws -> Image in try source.thumbnail(maxPixelSize: 48) }()
        #expect(try await thumb.encoded(as: .png) == syncThumb.encoded(as: .png))
        let image = try await source.image(at: 0)
        #expect(image.width == 64 && image.height == 96)
    }
}
