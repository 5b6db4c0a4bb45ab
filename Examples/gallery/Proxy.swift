import Crypto
import Foundation
import Hummingbird
import Logging
import MagickIO
import MagickIORemote
import NIOCore
import Synchronization

/// What the proxy route may fetch and how it answers (the `--proxy-*`, `--allow-*`,
/// `--max-source-mib`, `--queue` and `--ttl` flags).
struct ProxySettings: Sendable {
    /// The key and salt pairs a URL may be signed with; none: only the signature `unsafe`.
    var keys: [ProxyKey] = []
    /// The loader's allowed sources, address guard, size limit and timeouts. Its `decoding` is
    /// replaced by the uploads' limits, so that a source is held to what an upload is.
    var loader = RemoteImageLoader.Configuration()
    /// Requests that may wait for a place; nil: twice the jobs.
    var queue: Int?
    /// `Cache-Control: public, max-age=` of a thumbnail.
    var ttl = 31_536_000
}

/// The proxy's long-lived parts: one loader for the service, the queue, the keys.
final class ProxyService: Sendable {
    let settings: ProxySettings
    let loader: RemoteImageLoader
    let queue: ProxyQueue
    /// The loader's byte count already added to `magickio_source_bytes_total`.
    private let countedBytes = Mutex(0)

    init(settings: ProxySettings, jobs: Int, decoding: DecodingOptions) {
        self.settings = settings
        var configuration = settings.loader
        configuration.decoding = decoding
        loader = RemoteImageLoader(configuration: configuration)
        queue = ProxyQueue(jobs: jobs, queue: settings.queue ?? 2 * jobs)
    }

    /// The loader's new bytes since the last call.
    func newSourceBytes() -> Int {
        let total = loader.receivedByteCount
        return countedBytes.withLock { counted in
            defer { counted = max(counted, total) }
            return max(total - counted, 0)
        }
    }

    /// Stops the loader; call it once, when the service has stopped.
    func shutdown() async throws {
        try await loader.shutdown()
    }
}

extension Gallery {
    /// `GET /proxy/<signature>/<options>/<base64url of the source URL>`: the source fetched
    /// through the loader, sized and encoded as the options say, cacheable for `ttl`. One log
    /// line per request, with its status and the time of each phase it reached.
    func proxyImage(_ request: Request, _ context: GalleryContext) async throws -> Response {
        let times = PhaseTimes()
        var status = 500
        defer {
            var metadata: Logger.Metadata = ["status": "\(status)"]
            for (phase, time) in times.all {
                metrics.record(phase, time)
                metadata["\(phase.rawValue)_ms"] = "\(time.milliseconds)"
            }
            context.logger.info("proxy", metadata: metadata)
        }
        do {
            let response = try await proxyResponse(request, context, times: times)
            status = Int(response.status.code)
            return response
        } catch let error as GalleryError {
            status = Int(error.status.code)
            throw error
        } catch let error as MagickIOError {
            status = Int(GalleryError(error).status.code)
            throw error
        } catch {
            // A cancellation is the client that left (499, as nginx logs it); anything else, a 500.
            status = Int((error as? any HTTPResponseError)?.status.code ?? (error is CancellationError ? 499 : 500))
            throw error
        }
    }

    private func proxyResponse(_ request: Request, _ context: GalleryContext, times: PhaseTimes) async throws -> Response {
        let path = try path(of: request, below: "/proxy/")
        guard var parts = ProxyRequest(path: path) else { throw GalleryError.notFound(String(path)) }
        guard parts.isSigned(by: proxy.settings.keys) else {
            throw GalleryError(.forbidden, kind: "badSignature", "the signature does not sign this path")
        }
        let url = try parts.parse()
        let options = parts
        let format = options.format ?? OutputFormat(accept: request.headers[.accept])
        let etag = Self.proxyETag(options, format: format)
        var headers: HTTPFields = [.eTag: etag, .vary: "Accept", .cacheControl: "public, max-age=\(proxy.settings.ttl)"]
        if let match = request.headers[.ifNoneMatch], Self.matches(match, etag) {
            return Response(status: .notModified, headers: headers)
        }
        let arrived = ContinuousClock.now
        let data = try await context.cancellingOnDisconnect { [self] in
            try await proxy.queue.run {
                times.record(.queue, ContinuousClock.now - arrived)
                let source = try await times.measure(.download) { try await proxy.loader.source(for: url) }
                metrics.addSourceBytes(proxy.newSourceBytes())
                return try await times.measure(.process) {
                    let image = try await thumbnails.thumbnailer.thumbnail(of: source, size: options.size, mode: options.mode,
                                                                          options: ThumbnailOptions(crop: options.crop.option))
                    return try await image.encoded(as: format.encoding)
                }
            }
        }
        headers[.contentType] = format.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Names what the answer depends on: the options, the source URL and the format (a source
    /// served under an unchanging URL, as the long `max-age` assumes).
    static func proxyETag(_ parts: ProxyRequest, format: OutputFormat) -> String {
        let digest = SHA256.hash(data: Data("\(parts.optionsText)/\(parts.encodedSource)|\(format.fileExtension)".utf8))
        return "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }
}

/// The time each phase of one proxy request took, as far as it got.
final class PhaseTimes: Sendable {
    private let times = Mutex<[GalleryMetrics.Phase: Duration]>([:])

    func record(_ phase: GalleryMetrics.Phase, _ duration: Duration) {
        times.withLock { $0[phase] = duration }
    }

    /// Runs `body`, its time noted as `phase`'s whether it returns or throws.
    func measure<T>(_ phase: GalleryMetrics.Phase, _ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer { record(phase, ContinuousClock.now - start) }
        return try await body()
    }

    var all: [(GalleryMetrics.Phase, Duration)] {
        times.withLock { times in GalleryMetrics.Phase.allCases.compactMap { phase in times[phase].map { (phase, $0) } } }
    }
}

extension Duration {
    /// Whole milliseconds, for log lines.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
