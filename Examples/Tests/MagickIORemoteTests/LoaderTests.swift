import Foundation
import MagickIO
import Testing
@testable import MagickIORemote

@Suite("Remote: thumbnails of remote images, redirects and the source's answers")
struct LoaderTests {
    @Test("a thumbnail of a remote JPEG is upright, at the asked size, with its colours where a viewer sees them")
    func thumbnail() async throws {
        let origin = try TestOrigin()
        origin.serve("/orient-6.jpg", .init(body: try Fixture.data("orient-6.jpg")))  // stored 64x96, shown 96x64
        let loader = loopbackLoader()
        let thumb = try await loader.thumbnail(of: origin.url("/orient-6.jpg"), maxPixelSize: 48)
        #expect(thumb.width == 48 && thumb.height == 32)
        let pixels = try thumb.pixels(.rgba8)
        func pixel(_ x: Int, _ y: Int) -> [Int] {
            let at = y * pixels.bytesPerRow + x * 4
            return pixels.bytes[at..<at + 3].map(Int.init)
        }
        for (x, y, colour) in [(12, 8, [255, 0, 0]), (36, 8, [0, 255, 0]), (12, 24, [0, 0, 255]), (36, 24, [255, 255, 0])] {
            let got = pixel(x, y)
            #expect(zip(got, colour).allSatisfy { abs($0 - $1) <= 40 }, "(\(x), \(y)): \(got), want \(colour)")
        }
        try await loader.shutdown()
    }

    @Test("redirects are followed up to maxRedirects; one more is sourceUnavailable")
    func redirects() async throws {
        let origin = try TestOrigin()
        origin.serve("/a.jpg", .init(body: try Fixture.data("orient-6.jpg")))
        for hop in 1...3 {
            origin.serve("/hop\(hop)", .redirect(to: hop == 1 ? "/a.jpg" : "/hop\(hop - 1)", status: hop == 2 ? 301 : 307))
        }
        let loader = loopbackLoader { $0.maxRedirects = 2 }
        #expect(try await loader.source(for: origin.url("/hop2")).format == .jpeg)
        let error = await magickError { _ = try await loader.source(for: origin.url("/hop3")) }
        #expect(error?.kind == .sourceUnavailable && error?.message.contains("redirects") == true, "\(String(describing: error))")
        try await loader.shutdown()
    }

    @Test("an error status is sourceUnavailable with the status")
    func errorStatus() async throws {
        let origin = try TestOrigin()
        origin.serve("/gone.jpg", .init(status: 404))
        origin.serve("/broken.jpg", .init(status: 500))
        let loader = loopbackLoader()
        for (path, status) in [("/gone.jpg", 404), ("/broken.jpg", 500)] {
            let error = await magickError { _ = try await loader.source(for: origin.url(path)) }
            #expect(error?.kind == .sourceUnavailable && error?.source?.status == status, "\(String(describing: error))")
        }
        try await loader.shutdown()
    }

    @Test("a source slower than downloadTimeout is sourceUnavailable, marked timed out")
    func downloadTimeout() async throws {
        let origin = try TestOrigin()
        let image = try Fixture.data("photo.jpg")
        origin.serve("/slow.jpg", .init(body: image, chunkSize: 512, pauseMicroseconds: 100_000))
        let loader = loopbackLoader { $0.downloadTimeout = .milliseconds(300) }
        let error = await magickError { _ = try await loader.source(for: origin.url("/slow.jpg")) }
        #expect(error?.kind == .sourceUnavailable && error?.source?.timedOut == true, "\(String(describing: error))")
        try await loader.shutdown()
    }
}
