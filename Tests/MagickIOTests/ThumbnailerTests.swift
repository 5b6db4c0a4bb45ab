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

/// A file input that counts how often the thumbnailer opens it. With a `gate`, its opening
/// waits there until the test opens it, then fails (counted in `refused`), so that its job ends
/// at once.
private struct CountingInput: ThumbnailInput {
    var url: URL
    var opened: Usage
    var gate: AsyncGate?
    var refused: Usage?

    func openSource(options: DecodingOptions) async throws(MagickIOError) -> ImageSource {
        opened.add(1)
        if let gate {
            await gate.wait()
            refused?.add(1)
            throw MagickIOError(.io, "refused by the test")
        }
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

    @Test("a thumbnailer's places hold across calls: a single-image call waits while another call holds its one place",
          .timeLimit(.minutes(10)))
    func placesAcrossCalls() async throws {
        let thumbnailer = Thumbnailer(maxConcurrentJobs: 1)
        try await thumbnailer.gate.enter(cost: 0)  // another call's job, under way
        let call = Task { try await thumbnailer.thumbnail(of: Fixture.url("orient-6.jpg"), maxPixelSize: 32) }
        try await waitUntil { thumbnailer.waitingJobs == 1 }
        #expect(thumbnailer.runningJobs == 1)
        thumbnailer.gate.leave(cost: 0)
        let image = try await call.value
        #expect(image.width == 32 && image.height == 21, "upright: orient-6 is stored on its side, 64x96")
        #expect(thumbnailer.runningJobs == 0 && thumbnailer.waitingJobs == 0)
    }

    @Test("the memory budget admits jobs only while their predicted costs fit")
    func admission() async throws {
        let budget = AdmissionGate(places: 16, bytes: 100)
        let usage = Usage()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await budget.enter(cost: 40)
                    usage.add(40)
                    // Held until two jobs have been inside at once: the budget must admit a second
                    // (else this never ends) and never a third (else the peak is 120).
                    try await waitUntil { usage.peak >= 80 }
                    usage.add(-40)
                    budget.leave(cost: 40)
                }
            }
            try await group.waitForAll()
        }
        #expect(usage.peak == 80, "two 40-byte jobs fit in 100, three never")
    }

    @Test("leaving the loop stops queued jobs at once; delivered results stay valid", .timeLimit(.minutes(10)))
    func cancellation() async throws {
        // Every job but the first waits at a gate while it opens its input: until the test opens
        // it, no job but the first can finish, so what has started is exact.
        let opened = Usage(), refused = Usage(), gate = AsyncGate()
        let inputs = (0..<40).map { CountingInput(url: twelveMegapixels, opened: opened, gate: $0 == 0 ? nil : gate, refused: refused) }
        var first: Image?
        for await result in Thumbnailer(maxConcurrentJobs: 2).results(of: inputs, .maxPixelSize(64), at: 0, allowUpscale: false, options: ThumbnailOptions()) {
            first = try result.result.get()
            break
        }
        gate.open()
        // The jobs under way end (their openings fail at once), and none starts after them: the
        // loop was left, where each end would start the next job otherwise. At most the first, the
        // one beside it, and the one the first's end started before the loop was left.
        try await waitUntil { refused.now == opened.now - 1 }
        #expect(opened.now <= 3, "\(opened.now) of 40 jobs started")
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
                // Cancelled once the first result is in, as a caller's task would be.
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return count
        }
        let count = try await consumer.value
        // The first, and at most one result of each of the two jobs beside it already delivered.
        #expect(count <= 3, "the sequence ends at the cancellation, after \(count) results")
    }
}
