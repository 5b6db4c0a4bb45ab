import Foundation
import Testing
@testable import MagickIO

/// A 12 MP photo-like JPEG, written once per test run (a full decode takes tens of milliseconds).
let twelveMegapixels: URL = {
    try! LargeImages.cached("12mp.jpg") {
        try LargeImages.writeJPEG(to: $0, width: 4000, height: 3000, quality: 90, progressive: false)
    }
}()

@Suite("Cancellation and time limits")
struct CancellationTests {
    @Test("a time limit stops a decode and throws cancelled with the limit", .timeLimit(.minutes(10)))
    func timeLimitStopsDecode() throws {
        let source = try ImageSource(url: twelveMegapixels, options: DecodingOptions(timeLimit: .milliseconds(5)))
        do {
            _ = try source.image(at: 0)
            Issue.record("a 12 MP decode finished within 5 ms")
        } catch let error as MagickIOError {
            #expect(error.kind == .cancelled)
            #expect(error.limit?.name == "timeLimit")
            #expect(error.limit?.limit == 5)
        }
    }

    @Test("a stop reaches a decode under way between two rows, through ImageMagick's progress callback",
          .timeLimit(.minutes(10)))
    func stopBetweenRows() throws {
        let source = try ImageSource(url: twelveMegapixels)
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
        let source = try ImageSource(url: url)
        let interrupt = Interrupt()
        let outcome = Self.cancelAtFirstProgress(interrupt) { () throws(MagickIOError) in
            _ = try source.thumbnail(.maxPixelSize(1024), at: 0, allowUpscale: false, options: ThumbnailOptions(),
                                     interrupt: interrupt)
        }
        #expect(outcome == .cancelled)
        #expect(interrupt.stopsByMonitor.load(ordering: .relaxed) >= 1, "a progress point stopped it")
    }

    /// Runs `work` on a thread of its own and cancels `interrupt` as soon as its first progress
    /// point has been seen; the error kind it ended with (`.io` for no error: it was never
    /// stopped). No clock involved: what the code guarantees is that a progress point then stops
    /// it, long before its last row.
    static func cancelAtFirstProgress(_ interrupt: Interrupt, _ work: @escaping @Sendable () throws(MagickIOError) -> Void)
        -> MagickIOError.Kind? {
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
        while interrupt.callbacks.load(ordering: .relaxed) == 0, outcome.withLock({ $0 }) == nil {
            usleep(100)
        }
        interrupt.cancel()
        done.wait()
        return outcome.withLock { $0 }
    }

    @Test("an async call's time limit counts from when its work starts, not from when it was queued",
          .timeLimit(.minutes(10)))
    func timeLimitStartsWithTheWork() async throws {
        let pool = WorkerPool(threads: 1)
        // The pool's only thread is busy for 300 ms; a job with a 100 ms limit waits behind it.
        async let busy: Void = pool.run(interrupt: Interrupt()) { usleep(300_000) }
        try await Task.sleep(for: .milliseconds(20))
        let queued = Interrupt(timeLimit: .milliseconds(100), startsNow: false)
        let result = try await pool.run(interrupt: queued) { () throws(MagickIOError) -> Int in
            try queued.check()
            return 42
        }
        #expect(result == 42)
        try await busy
        let started = Interrupt(timeLimit: .milliseconds(1))
        usleep(5_000)
        #expect(throws: MagickIOError.self) { try started.check() }
    }

    @Test("a generous time limit lets the work finish")
    func generousTimeLimit() throws {
        let source = try ImageSource(url: twelveMegapixels, options: DecodingOptions(timeLimit: .seconds(60)))
        let thumb = try source.thumbnail(maxPixelSize: 256)
        #expect(thumb.width == 256 && thumb.height == 192)
    }

    @Test("cancelling the task stops its decode and throws cancelled", .timeLimit(.minutes(10)))
    func taskCancellation() async throws {
        let source = try ImageSource(url: twelveMegapixels)
        let task = Task { try await source.image(at: 0) }
        try await Task.sleep(for: .milliseconds(2))
        task.cancel()
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
        #expect(throws: MagickIOError.self) { try result.get() }
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
