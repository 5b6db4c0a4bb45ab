import Foundation
import Synchronization
import Testing
@testable import MagickIO

/// Bytes in use by the jobs of a test, and the most at once.
private final class Usage: Sendable {
    private let state = Locked<(now: Int, peak: Int)>((0, 0))

    func add(_ bytes: Int) {
        state.withLock { $0.now += bytes; $0.peak = max($0.peak, $0.now) }
    }

    var peak: Int { state.withLock { $0.peak } }
    var now: Int { state.withLock { $0.now } }
}

/// A file input that counts how often the thumbnailer opens it.
private struct CountingInput: ThumbnailInput {
    var url: URL
    var opened: Usage

    func openSource(options: DecodingOptions) async throws(MagickIOError) -> ImageSource {
        opened.add(1)
        return try await url.openSource(options: options)
    }
}

@Suite("Thumbnailer")
struct ThumbnailerTests {
    @Test("every input gets one result, tagged with it; failures are typed and do not stop the others")
    func mixedInputs() async throws {
        let names = ["photo.jpg", "text.jpg", "orient-6.jpg", "empty.jpg", "alpha.png", "truncated.jpg", "animated.gif"]
        let urls = names.map(Fixture.url) + [URL(fileURLWithPath: "/nonexistent/x.jpg")]
        var results: [Int: ThumbnailResult<URL>] = [:]
        for await result in Thumbnailer(maxConcurrentJobs: 3).thumbnails(of: urls, maxPixelSize: 32) {
            #expect(results[result.index] == nil)
            #expect(result.input == urls[result.index])
            results[result.index] = result
        }
        #expect(results.count == urls.count)
        func kind(_ index: Int) -> MagickIOError.Kind? {
            if case .failure(let error) = results[index]?.result { return error.kind }
            return nil
        }
        #expect(kind(1) == .unsupportedFormat)
        #expect(kind(3) == .emptyData)
        #expect(kind(5) == .corruptImage)
        #expect(kind(7) == .fileNotFound)
        let upright = try #require(try results[2]?.result.get())
        #expect(upright.width == 32 && upright.height == 21)
        try expectUprightQuadrants(upright)
        #expect(try results[0]?.result.get().width == 32)
    }

    @Test("Data and open sources are inputs too")
    func otherInputs() async throws {
        let data = try Fixture.data("orient-8.jpg")
        var sizes: [Int] = []
        for await result in Thumbnailer().thumbnails(of: [data, data], maxPixelSize: 48) {
            sizes.append(try result.result.get().width)
        }
        #expect(sizes == [48, 48])
        let sources = try ["orient-2.jpg", "orient-5.tif"].map { name in try Fixture.source(name) }
        for await result in Thumbnailer().thumbnails(of: sources, maxPixelSize: 48) {
            try expectUprightQuadrants(try result.result.get())
        }
    }

    @Test("a job larger than the whole budget fails at once with limitExceeded; the others go on")
    func jobLargerThanBudget() async throws {
        // photo.png (320x240, no shrink-on-load) costs more than orient-1.jpg at 16 px (decoded at
        // 1/8): a budget between the two runs the second and refuses the first.
        let urls = [Fixture.url("photo.png"), Fixture.url("orient-1.jpg")]
        let costs = try urls.map { try ImageSource(url: $0).thumbnailCost(.maxPixelSize(16), at: 0, allowUpscale: false) }
        try #require(costs[0] > costs[1] + 1000, "costs \(costs)")
        let budget = (costs[0] + costs[1]) / 2
        var outcomes: [Int: Result<Image, MagickIOError>] = [:]
        for await result in Thumbnailer(memoryBudget: budget).thumbnails(of: urls, maxPixelSize: 16) {
            outcomes[result.index] = result.result
        }
        guard case .failure(let error) = outcomes[0] else {
            Issue.record("the \(costs[0]) B job ran within a \(budget) B budget")
            return
        }
        #expect(error.kind == .limitExceeded)
        #expect(error.limit == MagickIOError.Limit(name: "memoryBudget", requested: costs[0], limit: budget))
        #expect(try outcomes[1]?.get().width == 16)
    }

    @Test("the memory budget admits jobs only while their predicted costs fit")
    func admission() async throws {
        let budget = MemoryBudget(total: 100)
        let usage = Usage()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await budget.acquire(40)
                    usage.add(40)
                    try await Task.sleep(for: .milliseconds(2))
                    usage.add(-40)
                    budget.release(40)
                }
            }
            try await group.waitForAll()
        }
        #expect(usage.peak == 80, "two 40-byte jobs fit in 100, three never")
    }

    @Test("leaving the loop stops queued jobs at once; delivered results stay valid", .timeLimit(.minutes(10)))
    func cancellation() async throws {
        let opened = Usage()
        let inputs = (0..<40).map { _ in CountingInput(url: twelveMegapixels, opened: opened) }
        var first: Image?
        for await result in Thumbnailer(maxConcurrentJobs: 2).results(of: inputs, .maxPixelSize(64), at: 0, allowUpscale: false, options: ThumbnailOptions()) {
            first = try result.result.get()
            break
        }
        try await Task.sleep(for: .seconds(1))
        let started = opened.now
        #expect(started <= 4, "\(started) of 40 jobs started: the first, the one beside it, at most two more")
        try await Task.sleep(for: .milliseconds(500))
        #expect(opened.now == started, "no job starts after the loop is left")
        let delivered = try #require(first)
        let reread = try ImageSource(data: try await delivered.encoded(as: .png))
        #expect(try reread.properties(at: 0).pixelWidth == 64)
    }

    @Test("cancelling the consuming task ends the sequence", .timeLimit(.minutes(10)))
    func cancellingTheConsumer() async throws {
        let urls = Array(repeating: twelveMegapixels, count: 40)
        let consumer = Task {
            var count = 0
            for try await _ in Thumbnailer(maxConcurrentJobs: 2).thumbnails(of: urls, maxPixelSize: 64) {
                count += 1
            }
            return count
        }
        try await Task.sleep(for: .milliseconds(100))
        consumer.cancel()
        let count = try await consumer.value
        #expect(count < 40)
    }
}
