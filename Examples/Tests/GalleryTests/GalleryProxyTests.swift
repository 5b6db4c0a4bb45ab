import Foundation
import MagickIO
import Testing
@testable import gallery

/// `GET /proxy/<signature>/<options>/<source>`: signed URLs, sources fetched from an origin on
/// loopback through MagickIORemote, and every answer the contract names.
@Suite("Gallery: the image proxy")
struct GalleryProxyTests {
    typealias Harness = ProxyHarness

    @Test("a signed request is a JPEG of the asked size, its colours in place, cacheable, and a repeat with its ETag is 304")
    func signed() async throws {
        try await Harness.run { proxy in
            proxy.origin.serve("/orient-6.jpg", try Fixture.data("orient-6.jpg"))  // stored 64x96, shown 96x64
            let path = proxy.path("w:48", "/orient-6.jpg")
            let response = try await proxy.get(path)
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            #expect(response.headers["content-type"] == "image/jpeg")
            #expect(response.headers["cache-control"] == "public, max-age=31536000")
            #expect(response.headers["vary"] == "Accept")
            let etag = try #require(response.headers["etag"])
            let image = try await ImageSource(data: response.body).image(at: 0)
            #expect(image.width == 48 && image.height == 32)
            let pixels = try image.pixels(.rgba8)
            for (x, y, colour) in [(12, 8, [255, 0, 0]), (36, 8, [0, 255, 0]), (12, 24, [0, 0, 255]), (36, 24, [255, 255, 0])] {
                let at = y * pixels.bytesPerRow + x * 4
                let got = pixels.bytes[at..<at + 3].map(Int.init)
                #expect(zip(got, colour).allSatisfy { abs($0 - $1) <= 40 }, "(\(x), \(y)): \(got), want \(colour)")
            }

            let repeated = try await proxy.get(path, headers: [("If-None-Match", etag)])
            #expect(repeated.status == 304)
            #expect(repeated.headers["etag"] == etag)
            #expect(repeated.body.isEmpty)
            #expect(proxy.origin.requests("/orient-6.jpg") == 1)
        }
    }

    @Test("fill, exact and a free side size as the options say, in any order")
    func options() async throws {
        try await Harness.run { proxy in
            proxy.origin.serve("/orient-6.jpg", try Fixture.data("orient-6.jpg"))
            for (options, width, height) in [("m:fill/h:40/w:40/c:entropy", 40, 40), ("w:30/h:30/m:exact", 30, 30), ("w:0/h:16", 24, 16)] {
                let response = try await proxy.get(proxy.path(options, "/orient-6.jpg"))
                #expect(response.status == 200, "\(options)")
                let properties = try ImageSource(data: response.body).properties(at: 0)
                #expect(properties.pixelWidth == width && properties.pixelHeight == height, "\(options)")
            }
            let unknown = try await proxy.get(proxy.path("w:48/q:80", "/orient-6.jpg"))
            #expect(unknown.status == 400 && Harness.errorKind(unknown) == "badOption")
        }
    }

    @Test("a signature that does not sign the path is 403, and nothing is fetched")
    func badSignature() async throws {
        try await Harness.run { proxy in
            proxy.origin.serve("/orient-6.jpg", try Fixture.data("orient-6.jpg"))
            let good = proxy.path("w:48", "/orient-6.jpg")
            let other = proxy.path("w:64", "/orient-6.jpg")
            // The signature of w:64 on the path of w:48; a signature that is no base64url; unsafe.
            let swapped = "/proxy/" + other.split(separator: "/")[1] + "/w:48/" + good.split(separator: "/").last!
            for path in [swapped, "/proxy/not*base64/w:48/" + good.split(separator: "/").last!, proxy.path("w:48", "/orient-6.jpg", signedWith: nil)] {
                let response = try await proxy.get(path)
                #expect(response.status == 403, "\(path)")
                #expect(Harness.errorKind(response) == "badSignature")
            }
            #expect(proxy.origin.requests("/orient-6.jpg") == 0)
        }
    }

    @Test("with two key and salt pairs both sign, a third does not")
    func rotation() async throws {
        let second = Harness.Pair(key: "0f0e0d0c0b0a09080706050403020100", salt: "")
        let third = Harness.Pair(key: "00112233445566778899aabbccddeeff", salt: "abcd")
        try await Harness.run(keys: [Harness.pair, second]) { proxy in
            proxy.origin.serve("/orient-6.jpg", try Fixture.data("orient-6.jpg"))
            #expect(try await proxy.get(proxy.path("w:48", "/orient-6.jpg", signedWith: Harness.pair)).status == 200)
            #expect(try await proxy.get(proxy.path("w:48", "/orient-6.jpg", signedWith: second)).status == 200)
            #expect(try await proxy.get(proxy.path("w:48", "/orient-6.jpg", signedWith: third)).status == 403)
        }
    }

    @Test("with no key set, unsafe is accepted and a signature is not")
    func unsafe() async throws {
        try await Harness.run(keys: []) { proxy in
            proxy.origin.serve("/orient-6.jpg", try Fixture.data("orient-6.jpg"))
            #expect(try await proxy.get(proxy.path("w:48", "/orient-6.jpg", signedWith: nil)).status == 200)
            #expect(try await proxy.get(proxy.path("w:48", "/orient-6.jpg")).status == 403)
        }
    }

    @Test("a source outside --allow-source, or on loopback when loopback is not allowed, is 403 sourceNotAllowed")
    func refusedSources() async throws {
        try await Harness.run(settings: { settings, origin in settings.loader.allowedSources = [origin.url("/allowed/")] }) { proxy in
            proxy.origin.serve("/allowed/a.jpg", try Fixture.data("orient-6.jpg"))
            proxy.origin.serve("/other/a.jpg", try Fixture.data("orient-6.jpg"))
            #expect(try await proxy.get(proxy.path("w:48", "/allowed/a.jpg")).status == 200)
            let outside = try await proxy.get(proxy.path("w:48", "/other/a.jpg"))
            #expect(outside.status == 403 && Harness.errorKind(outside) == "sourceNotAllowed")
            #expect(proxy.origin.requests("/other/a.jpg") == 0)
        }
        try await Harness.run(settings: { settings, _ in settings.loader.allowLoopback = false }) { proxy in
            proxy.origin.serve("/a.jpg", try Fixture.data("orient-6.jpg"))
            let loopback = try await proxy.get(proxy.path("w:48", "/a.jpg"))
            #expect(loopback.status == 403 && Harness.errorKind(loopback) == "sourceNotAllowed")
            #expect(proxy.origin.requests("/a.jpg") == 0)
        }
    }

    @Test("an origin's 404 is 502; an origin that stalls past the download timeout is 504")
    func upstreamFailures() async throws {
        try await Harness.run(settings: { settings, _ in settings.loader.downloadTimeout = .milliseconds(300) }) { proxy in
            proxy.origin.serve("/stalls.jpg", try Fixture.data("orient-6.jpg"), held: true)
            let missing = try await proxy.get(proxy.path("w:48", "/missing.jpg"))
            #expect(missing.status == 502 && Harness.errorKind(missing) == "sourceUnavailable")
            let stalled = try await proxy.get(proxy.path("w:48", "/stalls.jpg"))
            #expect(stalled.status == 504 && Harness.errorKind(stalled) == "sourceUnavailable")
        }
    }

    @Test("a 16383x16383 header is 413, text 415, a truncated image 422: as for uploads")
    func badSources() async throws {
        try await Harness.run { proxy in
            proxy.origin.serve("/bomb.jpg", try GalleryUploadTests.jpegBomb(side: 16383))
            proxy.origin.serve("/text.jpg", Data(String(repeating: "not an image\n", count: 100).utf8))
            proxy.origin.serve("/cut.jpg", try Fixture.data("truncated.jpg"))
            for (path, status, kind) in [("/bomb.jpg", 413, "limitExceeded"), ("/text.jpg", 415, "unsupportedFormat"),
                                         ("/cut.jpg", 422, "corruptImage")] {
                let response = try await proxy.get(proxy.path("w:48", path))
                #expect(response.status == status && Harness.errorKind(response) == kind,
                        "\(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
            }
        }
    }

    @Test("with one job and a queue of one, a third request at once is 429; the other two are served")
    func queueFull() async throws {
        try await Harness.run(jobs: 1, settings: { settings, _ in settings.queue = 1 }) { proxy in
            proxy.origin.serve("/slow.jpg", try Fixture.data("orient-6.jpg"), held: true)
            let path = proxy.path("w:48", "/slow.jpg")
            async let first = proxy.get(path)
            try await eventually { proxy.origin.requests("/slow.jpg") == 1 }
            async let second = proxy.get(path)
            try await eventually { proxy.gallery.proxy.queue.counts == (running: 1, waiting: 1) }
            let third = try await proxy.get(path)
            #expect(third.status == 429 && Harness.errorKind(third) == "queueFull")
            proxy.origin.releaseAll()
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
        }
    }

    @Test("Accept picks the format (WebP when it asks), f: overrides it, and each format has its own ETag")
    func formats() async throws {
        try #require(EncodingFormat.webp(quality: 80).isAvailable)
        try await Harness.run { proxy in
            proxy.origin.serve("/orient-6.jpg", try Fixture.data("orient-6.jpg"))
            let webp = try await proxy.get(proxy.path("w:48", "/orient-6.jpg"), headers: [("Accept", "image/webp,*/*")])
            #expect(webp.headers["content-type"] == "image/webp")
            #expect(try ImageSource(data: webp.body).format == .webp)
            let jpeg = try await proxy.get(proxy.path("w:48", "/orient-6.jpg"), headers: [("Accept", "*/*")])
            #expect(jpeg.headers["content-type"] == "image/jpeg")
            #expect(webp.headers["etag"] != jpeg.headers["etag"])
            let png = try await proxy.get(proxy.path("f:png/w:48", "/orient-6.jpg"), headers: [("Accept", "image/webp,*/*")])
            #expect(png.headers["content-type"] == "image/png")
            #expect(try ImageSource(data: png.body).format == .png)
            #expect(png.headers["vary"] == "Accept")
        }
    }

    @Test("/metrics has the request counts, the phase histograms, the source bytes and the requests in flight")
    func metrics() async throws {
        try await Harness.run { proxy in
            let image = try Fixture.data("orient-6.jpg")
            proxy.origin.serve("/orient-6.jpg", image)
            #expect(try await proxy.get(proxy.path("w:48", "/orient-6.jpg")).status == 200)
            #expect(try await proxy.get(proxy.path("w:32", "/orient-6.jpg", signedWith: nil)).status == 403)
            let response = try await proxy.get("/metrics")
            #expect(response.status == 200)
            let lines = String(decoding: response.body, as: UTF8.self).split(separator: "\n").map(String.init)
            func value(_ name: String, _ labels: [String] = []) -> String? {
                lines.first { $0.hasPrefix(name + (labels.isEmpty ? " " : "{")) && labels.allSatisfy($0.contains) }?
                    .split(separator: " ").last.map(String.init)
            }
            #expect(value("magickio_requests_total", ["route=\"/proxy\"", "status=\"200\""]) == "1", "\(lines)")
            #expect(value("magickio_requests_total", ["route=\"/proxy\"", "status=\"403\""]) == "1")
            for phase in ["queue", "download", "process"] {
                #expect(value("magickio_request_duration_seconds_count", ["phase=\"\(phase)\""]) == "1", "\(phase)")
                #expect(value("magickio_request_duration_seconds_bucket", ["phase=\"\(phase)\"", "le=\"+Inf\""]) == "1", "\(phase)")
            }
            #expect(value("magickio_source_bytes_total") == "\(image.count)")
            #expect(value("magickio_in_flight").flatMap(Double.init) == 1)  // the scrape itself
        }
    }

    @Test("the README's worked example: the openssl one-liner's path is signed, and the harness signs alike")
    func readmeExample() throws {
        let path = "SpUIHCUC3tZ0hixbgV-GlOvOg_XakFv5eDkzAfU9yVA/w:300/h:200/m:fill/c:attention/"
            + "aHR0cHM6Ly9pbWFnZXMuZXhhbXBsZS5jb20vY2F0LmpwZw"
        var request = try #require(ProxyRequest(path: path[...]))
        let key = try #require(ProxyKey(hexKey: Harness.pair.key, hexSalt: Harness.pair.salt))
        #expect(request.isSigned(by: [key]))
        #expect(try request.parse().absoluteString == "https://images.example.com/cat.jpg")
        #expect(request.size == ImageSize(width: 300, height: 200) && request.mode == .fill && request.crop == .attention)
        #expect(Harness.path("w:300/h:200/m:fill/c:attention", source: "https://images.example.com/cat.jpg",
                             signedWith: Harness.pair) == "/proxy/" + path)
    }
}
