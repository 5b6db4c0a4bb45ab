import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MagickIO
import Testing
@testable import gallery

@Suite("Gallery: the page, thumbnails, info and placeholders")
struct GalleryTests {
    @Test("the page has one lazy image per image, painted first from its ThumbHash")
    func page() async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                let html = String(buffer: response.body)
                for path in ["photo.jpg", "turned.jpg", "sub/alpha.png", "inside-link.jpg", "with%20space.jpg"] {
                    #expect(html.contains("src=\"/thumbnails/\(path)?size=256\""), "\(path) is missing")
                }
                for absent in ["hidden", "notes.txt", "escape.jpg", "outdir", "secret", "text.jpg"] {
                    #expect(!html.contains(absent), "\(absent) is listed")
                }
                #expect(html.components(separatedBy: "loading=\"lazy\"").count - 1 == 5)
                #expect(html.components(separatedBy: "data-thumbhash=").count - 1 == 5)
                #expect(html.contains("function thumbHashToRGBA"))
                // Sized in advance, upright: the EXIF-6 picture is stored 64x96 and shown 96x64.
                #expect(html.contains("src=\"/thumbnails/turned.jpg?size=256\" width=\"96\" height=\"64\""))
            }
        }
    }

    @Test("a thumbnail is an upright JPEG of the size asked, with an ETag a repeat can match")
    func thumbnail() async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            let etag = try await client.execute(uri: "/thumbnails/turned.jpg?size=48", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                let source = try ImageSource(data: Data(buffer: response.body))
                #expect(source.format == .jpeg)
                let properties = try source.properties(at: 0)
                #expect(properties.pixelWidth == 48 && properties.pixelHeight == 32 && properties.orientation == .up)
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/thumbnails/turned.jpg?size=48", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/thumbnails/turned.jpg?size=64", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] != etag)
            }
            // Served again from the cache folder, the same bytes.
            let first = try await client.execute(uri: "/thumbnails/photo.jpg", method: .get) { Data(buffer: $0.body) }
            let again = try await client.execute(uri: "/thumbnails/photo.jpg", method: .get) { Data(buffer: $0.body) }
            #expect(first == again)
            let cached = try FileManager.default.contentsOfDirectory(atPath: folder.cache.path)
            #expect(cached.filter { $0.hasSuffix(".jpg") }.count >= 3)
        }
    }

    @Test("AVIF for a browser that names it, WebP when Accept prefers it, JPEG otherwise")
    func negotiated() async throws {
        try #require(EncodingFormat.webp(quality: 80).isAvailable && EncodingFormat.avif(quality: 60).isAvailable)
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            let chromium = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
            try await client.execute(uri: "/thumbnails/photo.jpg", method: .get, headers: [.accept: chromium]) { response in
                #expect(response.headers[.contentType] == "image/avif")
                let format = try ImageSource(data: Data(buffer: response.body)).format
                #expect(format == .avif)
            }
            let firefoxBefore = "image/webp,*/*"
            try await client.execute(uri: "/thumbnails/photo.jpg", method: .get, headers: [.accept: firefoxBefore]) { response in
                #expect(response.headers[.contentType] == "image/webp")
                let format = try ImageSource(data: Data(buffer: response.body)).format
                #expect(format == .webp)
            }
            try await client.execute(uri: "/thumbnails/photo.jpg", method: .get,
                                     headers: [.accept: "image/jpeg, image/webp;q=0.5"]) { response in
                #expect(response.headers[.contentType] == "image/jpeg")
            }
        }
    }

    @Test("a size outside 16...2048, or not a number, is 400 with a JSON error", arguments: ["0", "15", "2049", "abc", "-1", "1e3"])
    func badSize(size: String) async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            try await client.execute(uri: "/thumbnails/photo.jpg?size=\(size)", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).hasPrefix("{\"error\": {\"kind\": \"badSize\""))
            }
        }
    }

    @Test("info is imageinfo's JSON object, placeholder the ThumbHash, health 200")
    func infoPlaceholderHealth() async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            try await client.execute(uri: "/info/turned.jpg", method: .get) { response in
                #expect(response.status == .ok)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect(object["input"] as? String == "turned.jpg")
                #expect(object["format"] as? String == "jpeg")
                #expect(object["orientation"] as? Int == 6)
                #expect(object["orientedWidth"] as? Int == 96 && object["orientedHeight"] as? Int == 64)
            }
            try await client.execute(uri: "/placeholder/sub/alpha.png", method: .get) { response in
                #expect(response.status == .ok)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String])
                let hash = try #require(object["thumbHash"].flatMap { ThumbHash(base64: $0) })
                #expect(hash == (try ImageSource(url: folder.root.appendingPathComponent("sub/alpha.png")).thumbHash()))
                #expect(hash.hasAlpha)
            }
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("a file that is no image is 415, never 500, on every endpoint")
    func notAnImage() async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            for uri in ["/thumbnails/text.jpg", "/info/text.jpg", "/placeholder/text.jpg"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .unsupportedMediaType, "\(uri)")
                    #expect(String(buffer: response.body).contains("\"unsupportedFormat\""), "\(uri)")
                }
            }
        }
    }

    @Test("paths that leave the folder, hidden or non-image files, are 404", arguments: [
        "../outside/secret.jpg", "%2e%2e/outside/secret.jpg", "sub/..%2F..%2Foutside%2Fsecret.jpg", "sub/../photo.jpg",
        "./photo.jpg", "/etc/hostname.jpg", "%2Fetc%2Fpasswd.jpg", "escape.jpg", "outdir/secret.jpg", ".hidden.jpg",
        "notes.txt", "missing.jpg", "sub", "photo.jpg%00.png", "sub//alpha.png",
    ])
    func escapes(path: String) async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            for route in ["thumbnails", "info", "placeholder"] {
                try await client.execute(uri: "/\(route)/\(path)", method: .get) { response in
                    #expect(response.status == .notFound, "/\(route)/\(path) is \(response.status)")
                }
            }
        }
    }

    @Test("a link inside the folder, and a name with a space, are served")
    func insideLinkAndSpace() async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            for uri in ["/thumbnails/inside-link.jpg", "/thumbnails/with%20space.jpg"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                }
            }
        }
    }

    @Test("a client that goes away cancels its job: it leaves the queue and nothing is made")
    func disconnectCancels() async throws {
        let folder = try GalleryFolder()
        let gallery = try Gallery(root: folder.root, cache: folder.cache, jobs: 1, memoryBudget: 256 << 20)
        let app = gallery.application(address: .hostname("127.0.0.1", port: 0))
        let thumbnailer = gallery.thumbnails.thumbnailer
        try await thumbnailer.gate.enter(cost: 0)  // the only place taken: the request's job must wait
        try await app.test(.live) { client in
            let connection = try RawHTTPConnection(port: try #require(client.port))
            try await connection.sendHead("GET", "/thumbnails/photo.jpg?size=99", headers: [])
            try await eventually { thumbnailer.waitingJobs == 1 }
            connection.hangUp()
            try await eventually { thumbnailer.waitingJobs == 0 }
        }
        thumbnailer.gate.leave(cost: 0)
        let made = try FileManager.default.contentsOfDirectory(atPath: folder.cache.path)
        #expect(made.isEmpty, "\(made)")
    }

    @Test("a decode past its time limit is the server's 503; a client that left is 499")
    func timeouts() {
        let late = MagickIOError(.cancelled, "the operation took longer than its time limit of 10 ms",
                                 limit: .init(name: "timeLimit", requested: 11, limit: 10))
        #expect(GalleryError(late).status.code == 503)
        #expect(GalleryError(MagickIOError(.cancelled, "the client went away")).status.code == 499)
        // A decode worker killed at its time limit, or at its memory limit (the file's cost).
        let killed = MagickIOError(.limitExceeded, "the decode worker ran past its time limit", limit: .init(name: "time", requested: 12_000, limit: 11_000))
        #expect(GalleryError(killed).status.code == 503)
        let memory = MagickIOError(.limitExceeded, "the decode worker ran out of memory", limit: .init(name: "memory", requested: 1 << 30, limit: 1 << 28))
        #expect(GalleryError(memory).status.code == 413)
    }
}
