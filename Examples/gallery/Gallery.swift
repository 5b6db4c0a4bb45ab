import ExamplesShared
import Foundation
import Hummingbird
import Logging
import MagickIO
import NIOCore

/// The gallery service: the folder, the thumbnail service, the image proxy and the routes over them.
struct Gallery: Sendable {
    /// The sizes `?size=N` may ask for.
    static let sizes = 16...2048
    static let defaultSize = 256

    let library: ImageLibrary
    let thumbnails: ThumbnailService
    let placeholders = PlaceholderCache()
    let uploads: UploadLimits
    let proxy: ProxyService
    let metrics: GalleryMetrics

    /// `proxy`: what `/proxy/` may fetch; its sources are held to the uploads' decoding limits.
    /// `metrics`: the registry `/metrics` shows (a new one by default).
    init(root: URL, cache: URL, jobs: Int, memoryBudget: Int, timeLimit: Duration? = .seconds(10),
         uploads: UploadLimits = UploadLimits(), proxy: ProxySettings = ProxySettings(),
         metrics: GalleryMetrics = GalleryMetrics()) throws {
        library = ImageLibrary(root: root)
        thumbnails = try ThumbnailService(cache: cache, jobs: jobs, memoryBudget: memoryBudget, timeLimit: timeLimit)
        self.uploads = uploads
        self.proxy = ProxyService(settings: proxy, jobs: jobs, decoding: uploads.decodingOptions)
        self.metrics = metrics
    }

    /// The service on `address`: HTTP/1.1 with a ``HangUpWatcher`` on each connection.
    func application(address: BindAddress, logger: Logger? = nil) -> some ApplicationProtocol {
        Application(router: router(), server: .http1(configuration: .init(additionalChannelHandlers: [HangUpWatcher()])),
                    configuration: .init(address: address, serverName: "gallery"), logger: logger)
    }

    func router() -> Router<GalleryContext> {
        let router = Router(context: GalleryContext.self)
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware())
        router.get("/") { _, _ in try await page() }
        router.get("/health") { _, _ in HTTPResponse.Status.ok }
        router.get("/thumbnails/**") { request, context in
            try await thumbnail(request, context, path: try path(of: request, below: "/thumbnails/"))
        }
        router.get("/info/**") { request, _ in try await info(path: try path(of: request, below: "/info/")) }
        router.get("/placeholder/**") { request, context in
            let entry = try entry(try path(of: request, below: "/placeholder/"))
            let made = try await context.cancellingOnDisconnect { try await placeholder(entry) }
            return json(JSONLine.line([("thumbHash", .string(made.thumbHash.base64))]))
        }
        router.post("/thumbnail") { request, context in try await upload(request, context) }
        router.get("/proxy/**") { request, context in try await proxyImage(request, context) }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: metrics.text())))
        }
        return router
    }

    // MARK: - Routes

    private func page() async throws -> Response {
        let entries = library.entries()
        let tiles = await withTaskGroup(of: (Int, Page.Tile?).self) { group in
            for (index, entry) in entries.enumerated() {
                group.addTask { (index, await tile(entry)) }
            }
            var tiles = [Page.Tile?](repeating: nil, count: entries.count)
            for await (index, tile) in group { tiles[index] = tile }
            return tiles.compactMap { $0 }
        }
        let html = Page.html(title: "gallery", tiles: tiles)
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    private func thumbnail(_ request: Request, _ context: GalleryContext, path: Substring) async throws -> Response {
        let entry = try entry(path)
        let size = try size(of: request)
        let crop = try crop(of: request)
        let animated = ThumbnailService.isAnimated(file: entry.file)
        let format = OutputFormat(accept: request.headers[.accept], animated: animated)
        guard let key = ThumbnailService.Key(file: entry.file, size: size, format: format, crop: crop, animated: animated) else {
            throw GalleryError.notFound(String(path))
        }
        var headers: HTTPFields = [.eTag: key.etag, .vary: "Accept", .cacheControl: "no-cache"]
        if let match = request.headers[.ifNoneMatch], Self.matches(match, key.etag) {
            return Response(status: .notModified, headers: headers)
        }
        let data: Data
        if let cached = thumbnails.cached(key) {
            data = cached
        } else {
            data = try await context.cancellingOnDisconnect {
                try await thumbnails.make(key, file: entry.file, size: size, crop: crop)
            }
        }
        headers[.contentType] = format.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private func info(path: Substring) async throws -> Response {
        let entry = try entry(path)
        var info = try FileInfo(path: entry.file)
        info.input = entry.relativePath
        // From the placeholder's thumbnail, made once per version of the file.
        info.dominantColor = try await placeholder(entry).dominantColor
        return json(info.jsonLine)
    }

    /// An image's place on the page: its thumbnail's size, from the header, and its placeholder.
    /// Files MagickIO cannot open are left off the page.
    private func tile(_ entry: ImageLibrary.Entry) async -> Page.Tile? {
        guard let source = try? ImageSource(url: URL(fileURLWithPath: entry.file)),
              let properties = try? source.properties(at: 0) else { return nil }
        let width = properties.orientedWidth, height = properties.orientedHeight
        let scale = min(1, Double(Self.defaultSize) / Double(max(width, height, 1)))
        return Page.Tile(path: entry.relativePath, width: max(1, Int((Double(width) * scale).rounded())),
                         height: max(1, Int((Double(height) * scale).rounded())), placeholder: try? await placeholder(entry))
    }

    /// The picture's ThumbHash and dominant colour, from one 100-pixel thumbnail made once per
    /// version of the file.
    func placeholder(_ entry: ImageLibrary.Entry) async throws -> Placeholder {
        guard let key = ThumbnailService.Key(file: entry.file, size: 100, format: .jpeg) else {
            throw MagickIOError(.fileNotFound, "\(entry.relativePath) is gone")
        }
        if let placeholder = placeholders[key.tag] { return placeholder }
        let thumbnail = try await thumbnails.thumbnail(of: URL(fileURLWithPath: entry.file), size: 100)
        let placeholder = Placeholder(thumbHash: try thumbnail.thumbHash(), dominantColor: try thumbnail.dominantColor())
        placeholders[key.tag] = placeholder
        return placeholder
    }

    // MARK: - Request parts

    /// The path after `prefix`, still percent-encoded, from the request's own path (never the
    /// router's decoded parameters, so that an encoded `/` or `..` is seen as such).
    func path(of request: Request, below prefix: String) throws -> Substring {
        let path = request.uri.path
        guard path.hasPrefix(prefix) else { throw GalleryError.notFound(path) }
        return path.dropFirst(prefix.count)
    }

    private func entry(_ path: Substring) throws -> ImageLibrary.Entry {
        guard let entry = library.resolve(encodedPath: path) else { throw GalleryError.notFound(String(path)) }
        return entry
    }

    func size(of request: Request) throws -> Int {
        guard let text = request.uri.queryParameters["size"].map(String.init) else { return Self.defaultSize }
        guard let size = Int(text), Self.sizes.contains(size) else { throw GalleryError.badSize(text) }
        return size
    }

    func crop(of request: Request) throws -> SquareCrop? {
        guard let text = request.uri.queryParameters["crop"].map(String.init) else { return nil }
        guard let crop = SquareCrop(rawValue: text) else { throw GalleryError.badCrop(text) }
        return crop
    }

    /// Whether an `If-None-Match` value names `etag` (or is `*`).
    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch == "*" || ifNoneMatch.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag }
    }

    func json(_ line: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: line + "\n")))
    }
}

/// What paints an image's box before its thumbnail arrives.
struct Placeholder: Sendable {
    var thumbHash: ThumbHash
    var dominantColor: RGBColor
}

/// Placeholders already made, by cache key.
/// `@unchecked Sendable`: the placeholders are touched only under `lock`.
final class PlaceholderCache: @unchecked Sendable {
    private let lock = NSLock()
    private var hashes: [String: Placeholder] = [:]

    subscript(tag: String) -> Placeholder? {
        get { lock.withLock { hashes[tag] } }
        set { lock.withLock { hashes[tag] = newValue } }
    }
}
