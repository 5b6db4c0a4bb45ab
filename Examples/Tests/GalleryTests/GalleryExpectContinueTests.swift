import Foundation
import MagickIO
import Testing
@testable import gallery

/// `POST /thumbnail` and `Expect: 100-continue` (what curl sends with a body over 1 MB), over raw
/// connections: the body is asked for only once the request's head has passed the checks.
@Suite("Gallery: uploads with Expect: 100-continue")
struct GalleryExpectContinueTests {
    @Test("Expect: 100-continue gets 100 Continue before the body is sent, then the thumbnail")
    func continues() async throws {
        let folder = try GalleryFolder()
        let image = try Fixture.data("photo.jpg")
        try await folder.application().test(.live) { client in
            let connection = try RawHTTPConnection(port: try #require(client.port))
            try await connection.sendHead("POST", "/thumbnail?size=32", headers: [
                ("Content-Length", "\(image.count)"), ("Expect", "100-continue"), ("Connection", "close"),
            ])
            let interim = try await connection.readResponse()
            #expect(interim.status == 100)
            try await connection.send(image)
            let response = try await connection.readResponse()
            #expect(response.status == 200)
            let properties = try ImageSource(data: response.body).properties(at: 0)
            #expect(properties.pixelWidth == 32 && properties.pixelHeight == 24)
        }
    }

    @Test("a Content-Length over the limit is 413 at once, no 100 Continue, and the connection closes", arguments: [true, false])
    func refusedByLength(expectContinue: Bool) async throws {
        let folder = try GalleryFolder()
        var uploads = UploadLimits()
        uploads.maxBytes = 100_000
        try await folder.application(uploads: uploads).test(.live) { client in
            let connection = try RawHTTPConnection(port: try #require(client.port))
            try await connection.sendHead("POST", "/thumbnail?size=32", headers: [("Content-Length", "100001")]
                + (expectContinue ? [("Expect", "100-continue")] : []))
            let response = try await connection.readResponse()
            #expect(response.status == 413)
            let object = try JSONSerialization.jsonObject(with: response.body) as? [String: [String: String]]
            #expect(object?["error"]?["kind"] == "limitExceeded")
            #expect(response.headers["connection"] == "close")
            #expect(await connection.serverClosed())
        }
    }
}
