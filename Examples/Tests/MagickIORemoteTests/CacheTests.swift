import Foundation
import MagickIO
import Testing
@testable import MagickIORemote

@Suite("Remote: memory and disk caches bounded by bytes, least recently used first out; ETag revalidation")
struct CacheTests {
    /// Three sources of about the same size, fresh for an hour.
    private func origin() throws -> (TestOrigin, Int) {
        let origin = try TestOrigin()
        let image = try Fixture.data("photo.jpg")  // tens of KB: each entry's small JSON record is noise
        for name in ["a", "b", "c"] {
            origin.serve("/\(name).jpg", .init(headers: [("Cache-Control", "public, max-age=3600")], body: image))
        }
        return (origin, image.count)
    }

    @Test("the memory cache keeps within its bytes and drops the least recently used")
    func memoryBound() async throws {
        let (origin, size) = try origin()
        let loader = loopbackLoader { $0.memoryCacheBytes = size * 2 + size / 2 }
        for name in ["a", "b", "a", "c"] {  // a used after b: b is the one dropped for c
            _ = try await loader.source(for: origin.url("/\(name).jpg"))
        }
        _ = try await loader.source(for: origin.url("/a.jpg"))
        _ = try await loader.source(for: origin.url("/c.jpg"))
        #expect(origin.counts("/a.jpg").requests == 1)
        #expect(origin.counts("/c.jpg").requests == 1)
        _ = try await loader.source(for: origin.url("/b.jpg"))
        #expect(origin.counts("/b.jpg").requests == 2)
        #expect(loader.receivedByteCount == size * 4)  // a, b, c, b again: cache hits count nothing
        try await loader.shutdown()
    }

    @Test("the disk cache keeps within its bytes, drops the least recently used, and serves a new loader")
    func diskBound() async throws {
        let (origin, size) = try origin()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magickio-remote-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk = RemoteImageLoader.DiskCache(directory: folder, maxBytes: size * 2 + 4096)
        let first = loopbackLoader { $0.memoryCacheBytes = 0; $0.diskCache = disk }
        for name in ["a", "b", "c"] {
            _ = try await first.source(for: origin.url("/\(name).jpg"))
        }
        try await first.shutdown()
        let store = DiskStore(disk)
        #expect(store.totalBytes <= disk.maxBytes)
        let second = loopbackLoader { $0.memoryCacheBytes = 0; $0.diskCache = disk }
        _ = try await second.source(for: origin.url("/c.jpg"))
        _ = try await second.source(for: origin.url("/b.jpg"))
        #expect(origin.counts("/c.jpg").requests == 1 && origin.counts("/b.jpg").requests == 1)
        _ = try await second.source(for: origin.url("/a.jpg"))
        #expect(origin.counts("/a.jpg").requests == 2)
        #expect(store.totalBytes <= disk.maxBytes)
        try await second.shutdown()
    }

    @Test("a stale source is revalidated with If-None-Match; a 304 keeps the cached bytes and thumbnails")
    func revalidation() async throws {
        let origin = try TestOrigin()
        let image = try Fixture.data("orient-6.jpg")
        origin.route("/a.jpg") { request in
            request.headers["if-none-match"] == "\"v1\""
                ? .init(status: 304, headers: [("ETag", "\"v1\"")])
                : .init(headers: [("ETag", "\"v1\""), ("Last-Modified", "Wed, 21 Oct 2026 07:28:00 GMT")], body: image)
        }
        let loader = loopbackLoader()
        let first = try await loader.thumbnail(of: origin.url("/a.jpg"), maxPixelSize: 24)
        let second = try await loader.thumbnail(of: origin.url("/a.jpg"), maxPixelSize: 24)
        #expect(first.width == second.width)
        let counts = origin.counts("/a.jpg")
        #expect(counts.requests == 2)
        #expect(counts.lastHeaders["if-none-match"] == "\"v1\"")
        #expect(counts.lastHeaders["if-modified-since"] == "Wed, 21 Oct 2026 07:28:00 GMT")
        #expect(counts.bodyBytesSent == image.count)
        #expect(loader.receivedByteCount == image.count)  // the 304 brought no body
        try await loader.shutdown()
    }
}
