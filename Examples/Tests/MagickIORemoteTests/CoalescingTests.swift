import Foundation
import MagickIO
import Testing
@testable import MagickIORemote

@Suite("Remote: identical requests in flight share one download, cancelled only when all have left")
struct CoalescingTests {
    /// Yields until `condition` holds (bounded: the test fails rather than hangs).
    private func until(_ condition: () -> Bool) async throws {
        for _ in 0..<5_000 where !condition() {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(condition())
    }

    @Test("20 identical requests: one origin fetch, 20 results")
    func twentyRequestsOneFetch() async throws {
        let origin = try TestOrigin()
        origin.serve("/a.jpg", .init(body: try Fixture.data("orient-6.jpg"), heldUntil: "a"))
        let loader = loopbackLoader()
        let url = origin.url("/a.jpg")
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask { try await loader.thumbnail(of: url, maxPixelSize: 32).width }
            }
            try await until { loader.waiting(for: url).callers == 20 }
            origin.release("a")
            var widths: [Int] = []
            for try await width in group { widths.append(width) }
            #expect(widths == Array(repeating: 32, count: 20))
        }
        #expect(origin.counts("/a.jpg").requests == 1)
        try await loader.shutdown()
    }

    @Test("a cancelled waiter returns at once; the download goes on for the others")
    func oneWaiterCancelled() async throws {
        let origin = try TestOrigin()
        origin.serve("/a.jpg", .init(body: try Fixture.data("orient-6.jpg"), heldUntil: "a"))
        let loader = loopbackLoader()
        let url = origin.url("/a.jpg")
        let leaving = Task { try await loader.source(for: url) }
        let staying = Task { try await loader.source(for: url) }
        try await until { loader.waiting(for: url).callers == 2 }
        leaving.cancel()
        #expect(await errorKind { _ = try await leaving.value } == .cancelled)
        #expect(loader.waiting(for: url).callers == 1)
        origin.release("a")
        #expect(try await staying.value.format == .jpeg)
        #expect(origin.counts("/a.jpg").requests == 1)
        try await loader.shutdown()
    }

    @Test("when every waiter cancels, the download is cancelled and its connection closed")
    func allWaitersCancelled() async throws {
        let origin = try TestOrigin()
        let body = try Fixture.jpegBomb(side: 64, totalBytes: 16 << 20)
        origin.serve("/slow.jpg", .init(body: body, pauseMicroseconds: 10_000))
        let loader = loopbackLoader()
        let url = origin.url("/slow.jpg")
        let tasks = (0..<3).map { _ in Task { try await loader.source(for: url) } }
        try await until { loader.waiting(for: url).callers == 3 }
        await origin.requestArrived("/slow.jpg")
        for task in tasks { task.cancel() }
        for task in tasks {
            #expect(await errorKind { _ = try await task.value } == .cancelled)
        }
        try await until { loader.waiting(for: url).downloads == 0 && origin.counts("/slow.jpg").closedEarly == 1 }
        #expect(origin.counts("/slow.jpg").bodyBytesSent < body.count)
        try await loader.shutdown()
    }
}
