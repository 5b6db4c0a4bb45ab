import ArgumentParser
import ExamplesShared
import Foundation
import Hummingbird
import Logging

struct GalleryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "Serves a folder of images as a web page, with thumbnails made on demand.",
        discussion: """
            GET / is the page; GET /thumbnails/<path>?size=N a JPEG (or WebP) thumbnail; \
            GET /info/<path> the image's properties; GET /placeholder/<path> its ThumbHash; \
            POST /thumbnail?size=N a thumbnail of the image in the body; GET /health.
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

    func validate() throws {
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
        let gallery = try Gallery(root: root, cache: cacheFolder, jobs: jobs, memoryBudget: memoryBudget << 20,
                                  timeLimit: uploads.decodingOptions.timeLimit, uploads: uploads)

        var logger = Logger(label: "gallery")
        logger.logLevel = .info
        let app = gallery.application(address: .hostname(host, port: port), logger: logger)
        FileHandle.standardError.write(Data("gallery: serving \(root.path) on http://\(host):\(port)/ (cache \(cacheFolder.path))\n".utf8))
        try await app.runService()
    }
}
