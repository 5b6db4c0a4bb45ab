import Foundation
import Hummingbird
import HummingbirdTesting
import MagickIO
import Testing
@testable import gallery

/// `GET /thumbnails/...` picks AVIF, then WebP, then JPEG from `Accept`, over real connections.
@Suite("Gallery: output format from Accept")
struct GalleryNegotiationTests {
    @Test("each Accept gets its format with Vary: Accept, its own ETag and cache entry, and 304 on a repeat")
    func perFormat() async throws {
        try #require(EncodingFormat.avif(quality: 60).isAvailable && EncodingFormat.webp(quality: 80).isAvailable)
        let folder = try GalleryFolder()
        let cases: [(accept: String, type: String, format: ImageFormat)] = [
            ("image/avif,image/webp", "image/avif", .avif),
            ("image/webp", "image/webp", .webp),
            ("*/*", "image/jpeg", .jpeg),
        ]
        try await folder.application().test(.live) { client in
            let port = try #require(client.port)
            var etags: [ImageFormat: String] = [:]
            for item in cases {
                let first = try await get(port: port, "/thumbnails/sub/alpha.png?size=32", accept: item.accept)
                #expect(first.status == 200, "\(item.accept)")
                #expect(first.headers["content-type"] == item.type)
                #expect(first.headers["vary"] == "Accept")
                let source = try ImageSource(data: first.body)
                #expect(source.format == item.format)
                let properties = try source.properties(at: 0)
                #expect(properties.pixelWidth == 32 && properties.pixelHeight == 24)
                // The half-transparent picture (its right half) keeps its alpha in AVIF and WebP, not in JPEG.
                #expect(properties.hasAlpha == (item.format != .jpeg), "\(item.format)")
                let etag = try #require(first.headers["etag"])
                etags[item.format] = etag

                let repeated = try await get(port: port, "/thumbnails/sub/alpha.png?size=32", accept: item.accept,
                                             headers: [("If-None-Match", etag)])
                #expect(repeated.status == 304, "\(item.accept)")
                #expect(repeated.headers["vary"] == "Accept")
                #expect(repeated.headers["etag"] == etag)
                #expect(repeated.body.isEmpty)
            }
            #expect(Set(etags.values).count == cases.count, "\(etags)")
            // Another format's ETag is no match: a JPEG client holding the AVIF and WebP gets the JPEG.
            let others = [etags[.avif], etags[.webp]].compactMap { $0 }.joined(separator: ", ")
            let crossed = try await get(port: port, "/thumbnails/sub/alpha.png?size=32", accept: "*/*",
                                        headers: [("If-None-Match", others)])
            #expect(crossed.status == 200)
            #expect(crossed.headers["content-type"] == "image/jpeg")
            #expect(crossed.headers["etag"] == etags[.jpeg])
            let cached = try FileManager.default.contentsOfDirectory(atPath: folder.cache.path)
            #expect(Set(cached.map { ($0 as NSString).pathExtension }) == ["avif", "webp", "jpg"], "\(cached)")
            #expect(cached.count == cases.count, "\(cached)")
        }
    }

    @Test("q-values decide, a tie goes to AVIF then WebP, and wildcards mean JPEG", arguments: [
        (nil, OutputFormat.jpeg),
        ("*/*", .jpeg),
        ("image/*", .jpeg),
        ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", .avif),
        ("image/webp,*/*", .webp),
        ("image/avif;q=0.5, image/webp", .webp),
        ("image/avif;q=0.8, image/jpeg", .jpeg),
        ("image/webp;q=0, image/avif;q=0", .jpeg),
        ("IMAGE/AVIF ; q=0.9, image/webp;q=0.9", .avif),
    ] as [(String?, OutputFormat)])
    func rule(accept: String?, expected: OutputFormat) throws {
        try #require(EncodingFormat.avif(quality: 60).isAvailable && EncodingFormat.webp(quality: 80).isAvailable)
        #expect(OutputFormat(accept: accept) == expected)
    }

    private func get(port: Int, _ path: String, accept: String, headers: [(String, String)] = []) async throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(port: port)
        try await connection.sendHead("GET", path, headers: [("Accept", accept), ("Connection", "close")] + headers)
        return try await connection.readResponse()
    }
}
