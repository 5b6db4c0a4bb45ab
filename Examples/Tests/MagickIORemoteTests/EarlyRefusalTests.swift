import Foundation
import MagickIO
import Testing
@testable import MagickIORemote

@Suite("Remote: a source over the limits is refused from its header or its length, before the body arrives")
struct EarlyRefusalTests {
    @Test("a 16383x16383 header ends the download: at most 1 MiB of a 24 MiB body is ever sent")
    func headerBomb() async throws {
        let origin = try TestOrigin()
        let bomb = try Fixture.jpegBomb(totalBytes: 24 << 20)
        // The first 64 KiB (the header and more), then up to 10 s for the loader to hang up before
        // the rest follows: a loader that waited for more bytes would get all 24 MiB.
        origin.serve("/bomb.jpg", .init(body: bomb, pauseMicroseconds: 5_000, firstPauseMicroseconds: 10_000_000))
        let loader = loopbackLoader { $0.decoding = DecodingOptions(maxPixelCount: 100_000_000) }
        let error = await magickError { _ = try await loader.source(for: origin.url("/bomb.jpg")) }
        #expect(error?.kind == .limitExceeded, "\(String(describing: error))")
        #expect(error?.limit?.name == "maxPixelCount")
        try await loader.shutdown()
        let counts = origin.counts("/bomb.jpg")
        #expect(counts.requests == 1)
        #expect(counts.bodyBytesSent <= 1 << 20, "the origin sent \(counts.bodyBytesSent) bytes")
    }

    @Test("a Content-Length over maxSourceBytes is refused before the body is read")
    func contentLengthOverLimit() async throws {
        let origin = try TestOrigin()
        let image = try Fixture.data("orient-6.jpg")
        origin.serve("/big.jpg", .init(body: image + Data(count: 4 << 20), pauseMicroseconds: 5_000, firstPauseMicroseconds: 10_000_000))
        let loader = loopbackLoader { $0.maxSourceBytes = 1 << 20 }
        let error = await magickError { _ = try await loader.source(for: origin.url("/big.jpg")) }
        #expect(error?.kind == .limitExceeded && error?.limit?.name == "maxSourceBytes", "\(String(describing: error))")
        try await loader.shutdown()
        #expect(origin.counts("/big.jpg").bodyBytesSent <= 1 << 20)
    }

    @Test("a body that grows past maxSourceBytes is cut, whatever its Content-Length said", arguments: [
        TestOrigin.Length.none, .declared(1 << 20),
    ])
    func bodyOverLimit(_ length: TestOrigin.Length) async throws {
        let origin = try TestOrigin()
        let body = try Fixture.data("alpha.png") + Data(count: 32 << 20)
        origin.serve("/long.png", .init(body: body, contentLength: length, pauseMicroseconds: 2_000))
        let loader = loopbackLoader { $0.maxSourceBytes = 256 << 10 }
        let error = await magickError { _ = try await loader.source(for: origin.url("/long.png")) }
        if case .declared = length {
            // The declared length is over the limit too: refused before the body.
            #expect(error?.kind == .limitExceeded, "\(String(describing: error))")
        } else {
            #expect(error?.kind == .limitExceeded && error?.limit?.name == "maxSourceBytes", "\(String(describing: error))")
        }
        try await loader.shutdown()
        // Cut: the origin finds the connection closed long before the end (kernel buffers hold
        // what it sent meanwhile, so the count is not the loader's).
        try await Task.sleep(for: .milliseconds(100))
        #expect(origin.counts("/long.png").bodyBytesSent < body.count / 2)
    }

    @Test("a body shorter than its Content-Length is a source that broke off: sourceUnavailable")
    func shortBody() async throws {
        let origin = try TestOrigin()
        let image = try Fixture.data("orient-6.jpg")
        origin.serve("/short.jpg", .init(body: image.prefix(image.count / 2), contentLength: .declared(image.count)))
        let loader = loopbackLoader()
        #expect(await errorKind { _ = try await loader.source(for: origin.url("/short.jpg")) } == .sourceUnavailable)
        try await loader.shutdown()
    }

    @Test("text served as an image is unsupportedFormat; an empty body is emptyData")
    func whatTheBytesAre() async throws {
        let origin = try TestOrigin()
        origin.serve("/text.jpg", .init(body: Data(String(repeating: "not an image ", count: 100).utf8)))
        origin.serve("/empty.jpg", .init(body: Data()))
        let loader = loopbackLoader()
        #expect(await errorKind { _ = try await loader.source(for: origin.url("/text.jpg")) } == .unsupportedFormat)
        #expect(await errorKind { _ = try await loader.source(for: origin.url("/empty.jpg")) } == .emptyData)
        try await loader.shutdown()
    }
}
