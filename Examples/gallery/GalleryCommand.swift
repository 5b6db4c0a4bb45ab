import ArgumentParser
import ExamplesShared
import Foundation
import Hummingbird
import Logging
import MagickIORemote
import Metrics
import Prometheus

struct GalleryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "Serves a folder of images as a web page, with thumbnails made on demand.",
        discussion: """
            GET / is the page; GET /thumbnails/<path>?size=N a JPEG (or WebP) thumbnail; \
            GET /info/<path> the image's properties; GET /placeholder/<path> its ThumbHash; \
            POST /thumbnail?size=N a thumbnail of the image in the body; \
            GET /proxy/<signature>/<options>/<base64url of a URL> a thumbnail of a remote image \
            (the README's proxy section); GET /metrics Prometheus metrics; GET /health.
            """
    )

    @Argument(help: ArgumentHelp("The folder of images (default: the bundled samples).", valueName: "DIR"))
    var directory: String?

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    @Option(help: ArgumentHelp("Where thumbnails are kept (default: a gallery-cache folder in the temporary directory).",
                               valueName: "DIR"))
    var cache: String?

    @Option(help: "The most thumbnails made at once (default: the number of active processors).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .customLong("memory-budget"), help: "The thumbnailer's memory budget, in MiB.")
    var memoryBudget = 256

    @Option(name: .customLong("time-limit"), help: ArgumentHelp("The most time one thumbnail may take, in seconds (0: no limit).",
                                                                valueName: "SECONDS"))
    var timeLimit: Double = 10

    @Option(help: ArgumentHelp("Where uploads are decoded: process (worker processes held to the budget and the time "
                               + "limit) or in-process.", valueName: "process|in-process"))
    var isolation: IsolationChoice = .process

    @Option(name: .customLong("proxy-key"), help: ArgumentHelp(
        "A key that signs /proxy/ URLs, in hex; each goes with the --proxy-salt in the same place. "
            + "Repeat the pair to accept several (key rotation). None: only the signature unsafe.", valueName: "HEX"))
    var proxyKeys: [String] = []

    @Option(name: .customLong("proxy-salt"), help: ArgumentHelp("The salt of the --proxy-key in the same place, in hex.", valueName: "HEX"))
    var proxySalts: [String] = []

    @Option(name: .customLong("allow-source"), help: ArgumentHelp(
        "A URL prefix /proxy/ may fetch from (repeatable; none: any source the address guard allows).", valueName: "PREFIX"))
    var allowedSources: [String] = []

    @Flag(name: .customLong("allow-loopback-sources"), help: "Let /proxy/ fetch from loopback addresses (127.0.0.0/8, ::1).")
    var allowLoopbackSources = false

    @Flag(name: .customLong("allow-private-sources"),
          help: "Let /proxy/ fetch from private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7).")
    var allowPrivateSources = false

    @Option(name: .customLong("max-source-mib"), help: ArgumentHelp("The largest source /proxy/ downloads, in MiB.", valueName: "N"))
    var maxSourceMiB = 32

    @Option(help: ArgumentHelp("The most /proxy/ requests that wait for a place; one more is 429 (default: 2 x jobs).", valueName: "N"))
    var queue: Int?

    @Option(help: ArgumentHelp("How long a /proxy/ thumbnail may be cached (Cache-Control max-age).", valueName: "SECONDS"))
    var ttl = 31_536_000

    func validate() throws {
        guard proxyKeys.count == proxySalts.count else {
            throw ValidationError("each --proxy-key needs its --proxy-salt (got \(proxyKeys.count) keys and \(proxySalts.count) salts).")
        }
        guard zip(proxyKeys, proxySalts).allSatisfy({ ProxyKey(hexKey: $0, hexSalt: $1) != nil }) else {
            throw ValidationError("--proxy-key and --proxy-salt take hex (an even number of 0-9a-f digits; a key not empty).")
        }
        guard (1...4096).contains(maxSourceMiB) else { throw ValidationError("--max-source-mib must be in 1...4096.") }
        guard (queue ?? 0) >= 0, ttl >= 0 else { throw ValidationError("--queue and --ttl must not be negative.") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1 (got \(jobs)).") }
        guard memoryBudget >= 1 else { throw ValidationError("--memory-budget must be at least 1 MiB.") }
        guard timeLimit.isFinite, (0...86_400).contains(timeLimit) else {
            throw ValidationError("--time-limit must be 0 (no limit) to 86400 seconds.")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535.") }
    }

    /// The samples `thumbnail` bundles, in the source tree this executable was built from (one
    /// copy of them: `swift run gallery` finds them from a checkout).
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("thumbnail/Samples")

    func run() async throws {
        let root: URL
        if let directory {
            root = URL(fileURLWithPath: directory)
        } else {
            root = Self.samples
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(root.path) is not a directory\(directory == nil ? " (the samples of the checkout this was built from)" : "").")
        }
        let cacheFolder = URL(fileURLWithPath: cache ?? NSTemporaryDirectory() + "gallery-cache")
        var uploads = UploadLimits()
        uploads.decodingOptions.timeLimit = timeLimit > 0 ? .milliseconds(Int64((timeLimit * 1000).rounded(.up))) : nil
        uploads.decodingOptions.isolation = isolation == .process ? .process : .inProcess
        var proxy = ProxySettings()
        proxy.keys = zip(proxyKeys, proxySalts).compactMap { ProxyKey(hexKey: $0, hexSalt: $1) }
        proxy.loader.allowedSources = allowedSources
        proxy.loader.allowLoopback = allowLoopbackSources
        proxy.loader.allowPrivateNetworks = allowPrivateSources
        proxy.loader.maxSourceBytes = maxSourceMiB << 20
        proxy.queue = queue
        proxy.ttl = ttl
        // The process-wide metrics system, bootstrapped once here: what other libraries record
        // lands in the registry /metrics shows, beside the gallery's own.
        let metrics = GalleryMetrics()
        MetricsSystem.bootstrap(metrics.factory)
        let gallery = try Gallery(root: root, cache: cacheFolder, jobs: jobs, memoryBudget: memoryBudget << 20,
                                  timeLimit: uploads.decodingOptions.timeLimit, uploads: uploads, proxy: proxy, metrics: metrics)

        var logger = Logger(label: "gallery")
        logger.logLevel = .info
        let app = gallery.application(address: .hostname(host, port: port), logger: logger)
        FileHandle.standardError.write(Data("gallery: serving \(root.path) on http://\(host):\(port)/ (cache \(cacheFolder.path))\n".utf8))
        try await app.runService()
        try await gallery.proxy.shutdown()
    }
}
