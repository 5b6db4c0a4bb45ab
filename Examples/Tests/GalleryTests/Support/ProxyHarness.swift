import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import gallery

/// A gallery with its proxy on, an origin on loopback beside it, and signed URLs for both.
struct ProxyHarness: Sendable {
    let gallery: Gallery
    let origin: Origin
    let port: Int

    /// A key and salt pair as the flags give it.
    struct Pair: Sendable {
        var key: String
        var salt: String
    }

    static let pair = Pair(key: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
                           salt: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")

    /// Runs `body` against a live gallery whose proxy may fetch from loopback (`--allow-loopback-sources`),
    /// signing with `keys`, its settings changed by `change`; the loader is shut down afterwards.
    static func run(keys: [Pair] = [pair], jobs: Int = 2,
                    settings change: @escaping @Sendable (inout ProxySettings, Origin) -> Void = { _, _ in },
                    _ body: @escaping @Sendable (ProxyHarness) async throws -> Void) async throws {
        let folder = try GalleryFolder()
        let origin = Origin()
        try await origin.run {
            var settings = ProxySettings()
            settings.keys = keys.compactMap { ProxyKey(hexKey: $0.key, hexSalt: $0.salt) }
            settings.loader.allowLoopback = true
            change(&settings, origin)
            let gallery = try Gallery(root: folder.root, cache: folder.cache, jobs: jobs, memoryBudget: 256 << 20, proxy: settings)
            // The proxy's log lines (one a request) stay out of the test output.
            var logger = Logger(label: "gallery-proxy-tests")
            logger.logLevel = .warning
            do {
                try await gallery.application(address: .hostname("127.0.0.1", port: 0), logger: logger).test(.live) { client in
                    try await body(ProxyHarness(gallery: gallery, origin: origin, port: try #require(client.port)))
                }
            } catch {
                origin.releaseAll()
                try? await gallery.proxy.shutdown()
                throw error
            }
            origin.releaseAll()
            try await gallery.proxy.shutdown()
        }
    }

    /// `/proxy/<signature>/<options>/<base64url of the origin's path>`, signed with `pair` as the
    /// README says (nil: the signature `unsafe`), computed here apart from the gallery's own check.
    func path(_ options: String, _ originPath: String, signedWith pair: Pair? = ProxyHarness.pair) -> String {
        Self.path(options, source: origin.url(originPath), signedWith: pair)
    }

    static func path(_ options: String, source: String, signedWith pair: Pair?) -> String {
        let encoded = base64URL(Data(source.utf8))
        return "/proxy/\(pair.map { signature($0, "\(options)/\(encoded)") } ?? "unsafe")/\(options)/\(encoded)"
    }

    static func signature(_ pair: Pair, _ optionsAndSource: String) -> String {
        let key = SymmetricKey(data: ProxyKey.bytes(hex: pair.key)!)
        let message = ProxyKey.bytes(hex: pair.salt)! + Array("/\(optionsAndSource)".utf8)
        return base64URL(Data(HMAC<SHA256>.authenticationCode(for: message, using: key)))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// GET over a connection of its own (requests at once must not queue behind each other on one).
    func get(_ path: String, headers: [(String, String)] = []) async throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(port: port)
        try await connection.sendHead("GET", path, headers: [("Connection", "close")] + headers)
        return try await connection.readResponse()
    }

    /// The `kind` of a JSON error body.
    static func errorKind(_ response: RawHTTPConnection.Response) -> String? {
        let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: [String: String]]
        return object?["error"]?["kind"]
    }
}
