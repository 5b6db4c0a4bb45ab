import Foundation
import Hummingbird
import HummingbirdTesting
import MagickIO
import NIOCore
import Testing
@testable import gallery

@Suite("Gallery: POST /thumbnail, hostile uploads included")
struct GalleryUploadTests {
    /// photo.jpg with its frame header claiming `side` x `side` pixels: a decompression bomb's header.
    static func jpegBomb(side: UInt16 = 65000) throws -> Data {
        var data = try Fixture.data("photo.jpg")
        let sof = try #require((0..<data.count - 9).first { data[$0] == 0xFF && data[$0 + 1] == 0xC0 })
        for offset in [sof + 5, sof + 7] {  // height, then width, big-endian
            data[offset] = UInt8(side >> 8)
            data[offset + 1] = UInt8(side & 0xFF)
        }
        return data
    }

    /// A PNG's signature, an IHDR of 60000x60000 RGBA and the start of its first IDAT.
    static func pngBombHeader() -> Data {
        func chunk(_ type: String, _ body: [UInt8], declaredLength: Int? = nil) -> [UInt8] {
            let length = UInt32(declaredLength ?? body.count)
            return withUnsafeBytes(of: length.bigEndian, Array.init) + Array(type.utf8) + body
                + (declaredLength == nil ? [0, 0, 0, 0] : [])  // the CRC, unchecked by the walk
        }
        let side = withUnsafeBytes(of: UInt32(60000).bigEndian, Array.init)
        let ihdr = chunk("IHDR", side + side + [8, 6, 0, 0, 0])
        let idat = chunk("IDAT", [0x78, 0x9C, 0xEC, 0xC1, 0x01, 0x0D, 0x00, 0x00], declaredLength: 1 << 20)
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ihdr + idat)
    }

    private func post(_ body: Data, size: String = "64", uploads: UploadLimits = UploadLimits(),
                      _ check: @escaping @Sendable (TestResponse) throws -> Void) async throws {
        let folder = try GalleryFolder()
        try await folder.application(uploads: uploads).test(.live) { client in
            try await client.execute(uri: "/thumbnail?size=\(size)", method: .post, body: ByteBuffer(bytes: body)) { response in
                try check(response)
            }
        }
    }

    private func errorKind(_ response: TestResponse) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String: String]]
        return object?["error"]?["kind"]
    }

    @Test("an image in the body comes back as an upright JPEG thumbnail")
    func thumbnail() async throws {
        try await post(try Fixture.data("orient-6.jpg"), size: "48") { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/jpeg")
            let properties = try ImageSource(data: Data(buffer: response.body)).properties(at: 0)
            #expect(properties.pixelWidth == 48 && properties.pixelHeight == 32)
        }
    }

    @Test("a bomb's header is 413 limitExceeded", arguments: [0, 1])
    func bomb(which: Int) async throws {
        let body = which == 0 ? try Self.jpegBomb() : Self.pngBombHeader()
        try await post(body) { response in
            #expect(response.status == .contentTooLarge)
            #expect(self.errorKind(response) == "limitExceeded")
        }
    }

    @Test("text is 415 unsupportedFormat; a known format outside the allowlist 415 formatNotAllowed")
    func notAnImage() async throws {
        try await post(Data(String(repeating: "hello, world\n", count: 100).utf8)) { response in
            #expect(response.status == .unsupportedMediaType)
            #expect(self.errorKind(response) == "unsupportedFormat")
        }
        try await post(Data("%!PS-Adobe-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n".utf8)) { response in
            #expect(response.status == .unsupportedMediaType)
            #expect(["formatNotAllowed", "unsupportedFormat"].contains(self.errorKind(response)))
        }
    }

    @Test("a truncated image is 422 corruptImage, an empty body 422 too")
    func truncatedAndEmpty() async throws {
        try await post(try Fixture.data("truncated.jpg")) { response in
            #expect(response.status == .unprocessableContent)
            #expect(self.errorKind(response) == "corruptImage")
        }
        try await post(Data()) { response in
            #expect(response.status == .unprocessableContent)
        }
    }

    @Test("a body over the size limit is 413, a bad size 400")
    func limits() async throws {
        var small = UploadLimits()
        small.maxBytes = 1000
        try await post(try Fixture.data("photo.jpg"), uploads: small) { response in
            #expect(response.status == .contentTooLarge)
            #expect(self.errorKind(response) == "limitExceeded")
        }
        try await post(try Fixture.data("photo.jpg"), size: "9000") { response in
            #expect(response.status == .badRequest)
        }
    }

    @Test("over a real connection a bomb is refused from its header alone: the rest is never sent, the connection closes")
    func bombOverSocket() async throws {
        let folder = try GalleryFolder()
        let header = try Self.jpegBomb().prefix(4096)
        try await folder.application().test(.live) { client in
            let port = try #require(client.port)
            let connection = try RawHTTPConnection(port: port)
            try await connection.sendHead("POST", "/thumbnail", headers: [("Content-Length", "50000000"), ("Content-Type", "image/jpeg")])
            try await connection.send(Data(header))
            let response = try await connection.readResponse()
            #expect(response.status == 413)
            #expect(String(decoding: response.body, as: UTF8.self).contains("limitExceeded"))
            #expect(response.headers["connection"] == "close")
            #expect(await connection.serverClosed())
        }
    }

    @Test("over a real connection text is refused from its first bytes")
    func textOverSocket() async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            let connection = try RawHTTPConnection(port: try #require(client.port))
            try await connection.sendHead("POST", "/thumbnail", headers: [("Content-Length", "10000000")])
            try await connection.send(Data(String(repeating: "<html>", count: 100).utf8))
            let response = try await connection.readResponse()
            #expect(response.status == 415)
            #expect(await connection.serverClosed())
        }
    }

    @Test("a body that arrives slowly, in small pieces, still gets its thumbnail")
    func slowBody() async throws {
        let folder = try GalleryFolder()
        let image = try Fixture.data("photo.jpg")
        try await folder.application().test(.live) { client in
            let connection = try RawHTTPConnection(port: try #require(client.port))
            try await connection.sendHead("POST", "/thumbnail?size=32", headers: [("Content-Length", "\(image.count)")])
            try await connection.sendSlowly(image, piece: 700)
            let response = try await connection.readResponse()
            #expect(response.status == 200)
            let properties = try ImageSource(data: response.body).properties(at: 0)
            #expect(properties.pixelWidth == 32 && properties.pixelHeight == 24)
        }
    }

    @Test("a client that hangs up mid-body leaves the server answering the next one")
    func hangUpMidBody() async throws {
        let folder = try GalleryFolder()
        let image = try Fixture.data("photo.jpg")
        try await folder.application().test(.live) { client in
            let port = try #require(client.port)
            let quitter = try RawHTTPConnection(port: port)
            try await quitter.sendHead("POST", "/thumbnail", headers: [("Content-Length", "\(image.count)")])
            try await quitter.send(image.prefix(image.count / 2))
            quitter.hangUp()
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    /// `name` from scripts/hostile-fixtures.py (the hostile families' one generator), written into
    /// a scratch folder.
    static func hostile(_ name: String) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = Fixture.url("../../../scripts/hostile-fixtures.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, folder.path, "--only", name]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "hostile-fixtures.py --only \(name)")
        return try Data(contentsOf: folder.appendingPathComponent(name))
    }

    /// This process's children (the decode workers among them) and their states ("R" running,
    /// "S" sleeping, ...), read from /proc.
    static func childStates() -> [Int32: String] {
        var states: [Int32: String] = [:]
        let me = getpid()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After "pid (comm) ": state, ppid, ...
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == me { states[pid] = String(fields[0]) }
        }
        return states
    }

    @Test("four uploads at once of each costliest hostile family each get a typed answer, and leave no decode worker running",
          .serialized, arguments: ["webp-anim-2000.webp", "webp-lossy-alpha-8191.webp", "heif-iref-500k.heic", "heif-hvcc-nal-6m.heic"])
    func hostileUploadsAtOnce(name: String) async throws {
        let body = try Self.hostile(name)
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            let answers = try await withThrowingTaskGroup(of: (status: Int, body: Data).self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await client.execute(uri: "/thumbnail?size=256", method: .post, body: ByteBuffer(bytes: body)) {
                            (response: TestResponse) -> (status: Int, body: Data) in
                            (response.status.code, Data(buffer: response.body))
                        }
                    }
                }
                var all: [(status: Int, body: Data)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(answers.count == 4)
            for (status, answer) in answers {
                // An image, or the refusal of a file too costly (413) or damaged (422): never a 500.
                #expect([200, 413, 422].contains(status), "\(name): \(status) \(String(decoding: answer.prefix(300), as: UTF8.self))")
                if status == 200 {
                    let properties = try ImageSource(data: answer).properties(at: 0)
                    #expect(max(properties.pixelWidth, properties.pixelHeight) <= 256)
                }
            }
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
        // Every decode has answered: the workers kept for the next decodes wait, none decodes on.
        try await eventually { !Self.childStates().values.contains { $0 == "R" || $0 == "D" } }
    }
}
