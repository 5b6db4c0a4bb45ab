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
    @Test("a time limit stops a decode between rows and throws cancelled with the limit", .timeLimit(.minutes(10)))
    func timeLimitStopsDecode() throws {
        let source = try ImageSource(url: twelveMegapixels, options: DecodingOptions(timeLimit: .milliseconds(5)))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try source.image(at: 0)
            Issue.record("a 12 MP decode finished within 5 ms")
        } catch {
            #expect(error.kind == .cancelled)
            #expect(error.limit?.name == "timeLimit")
            #expect(error.limit?.limit == 5)
        }
        let stopped = clock.now - start
        let fullStart = clock.now
        let full = try ImageSource(url: twelveMegapixels).image(at: 0)
        let fullTime = clock.now - fullStart
        #expect(full.width == 4000)
        #expect(stopped < fullTime, "stopped after \(stopped), a full decode takes \(fullTime)")
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
        let syncThumb: Image = try { () throws(MagickIOError) -> Image in try source.thumbnail(maxPixelSize: 48) }()
        #expect(try await thumb.encoded(as: .png) == syncThumb.encoded(as: .png))
        let image = try await source.image(at: 0)
        #expect(image.width == 64 && image.height == 96)
    }
}
