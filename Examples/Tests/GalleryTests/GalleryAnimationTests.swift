import Foundation
import Hummingbird
import HummingbirdTesting
import MagickIO
import Testing
@testable import gallery

/// An animated GIF or WebP is served animated: an animated WebP to a client that accepts WebP,
/// an animated GIF to the others.
@Suite("Gallery: animations served animated")
struct GalleryAnimationTests {
    @Test("an animated GIF comes back as an animated WebP or GIF of every frame, by Accept", arguments: [
        ("image/avif,image/webp,*/*", "image/webp", ImageFormat.webp),
        ("image/avif,*/*", "image/gif", .gif),
        ("*/*", "image/gif", .gif),
    ])
    func animated(accept: String, type: String, format: ImageFormat) async throws {
        let folder = try GalleryFolder()
        try FileManager.default.copyItem(at: Fixture.url("anim-dispose.gif"), to: folder.root.appendingPathComponent("anim.gif"))
        try await folder.application().test(.live) { client in
            let port = try #require(client.port)
            let connection = try RawHTTPConnection(port: port)
            try await connection.sendHead("GET", "/thumbnails/anim.gif?size=32", headers: [("Accept", accept), ("Connection", "close")])
            let response = try await connection.readResponse()
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == type)
            #expect(response.headers["vary"] == "Accept")
            let source = try ImageSource(data: response.body)
            #expect(source.format == format)
            #expect(source.count == 4)
            let properties = try source.properties(at: 0)
            #expect(properties.pixelWidth == 32 && properties.pixelHeight == 32)
        }
    }

    @Test("an animation's format: WebP when accepted, GIF otherwise; a still image's is unchanged", arguments: [
        (nil, true, OutputFormat.gif),
        ("*/*", true, .gif),
        ("image/avif", true, .gif),
        ("image/avif,image/webp;q=0.5", true, .webp),
        ("image/webp;q=0", true, .gif),
        ("image/avif,image/webp", false, .avif),
    ] as [(String?, Bool, OutputFormat)])
    func rule(accept: String?, animated: Bool, expected: OutputFormat) throws {
        try #require(EncodingFormat.avif(quality: 60).isAvailable)
        #expect(OutputFormat(accept: accept, animated: animated) == expected)
    }
}
