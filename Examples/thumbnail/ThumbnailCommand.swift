import ArgumentParser
import ExampleSupport
import Foundation
import MagickIO

/// The output formats `--format` takes.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case jpeg, png, webp, avif, gif

    init?(argument: String) {
        switch argument.lowercased() {
        case "jpeg", "jpg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        case "gif": self = .gif
        default: return nil
        }
    }

    static var allValueStrings: [String] { allCases.map(\.rawValue) }

    func encoding(quality: Int) -> EncodingFormat {
        switch self {
        case .jpeg: .jpeg(quality: quality)
        case .png: .png
        case .webp: .webp(quality: quality)
        case .avif: .avif(quality: quality)
        case .gif: .gif
        }
    }
}

/// What `--embedded` takes: when a thumbnail stored in the file (EXIF, HEIF item) may serve.
enum EmbeddedChoice: String, CaseIterable, ExpressibleByArgument {
    case never
    case ifAbsent = "if-absent"
    case always

    var option: ThumbnailOptions.EmbeddedThumbnail {
        switch self {
        case .never: .never
        case .ifAbsent: .ifAbsent
        case .always: .always
        }
    }
}

struct ThumbnailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Makes upright thumbnails of many images at once, in parallel.",
        discussion: """
            Each INPUT is a file or a directory. A file is always tried; a directory is walked \
            recursively for regular, non-hidden files with an image extension (jpg jpeg png gif \
            webp tif tiff heic heif hif avif avifs heics bmp, any case), skipping the output directory. With no \
            INPUT the bundled sample images are used.

            Thumbnails go to DIR/<path below the input, without extension>.<jpg|png|webp|avif|gif>; inputs \
            that would share an output get -2, -3, ... in input order.

            Exit status: 0 when every input was done, 1 when some failed (the others are still \
            done), 2 for bad usage.
            """
    )

    @Argument(help: ArgumentHelp("Image files or directories (default: the bundled samples).", valueName: "INPUT"))
    var inputs: [String] = []

    @Option(name: .customLong("max-pixel-size"), help: ArgumentHelp("Longest side of a thumbnail, in pixels.", valueName: "N"))
    var maxPixelSize: Int = 256

    @Option(name: .long, help: ArgumentHelp("Directory the thumbnails are written to.", valueName: "DIR"))
    var output: String = "thumbnails"

    @Option(name: .long, help: ArgumentHelp(
        "Output format (AVIF through libheif, alpha kept; default jpeg, webp with --animated).", valueName: "jpeg|png|webp|avif|gif"))
    var format: OutputFormat?

    @Flag(name: .long, help: "Keep an animated GIF's or WebP's frames: an animated WebP or GIF out (JPEG, PNG, AVIF take frame 0).")
    var animated = false

    /// The format written: --format's, or JPEG (WebP for --animated).
    var outputFormat: OutputFormat { format ?? (animated ? .webp : .jpeg) }

    @Option(name: .long, help: ArgumentHelp("JPEG, WebP and AVIF quality, 1...100 (AVIF keeps full chroma from 90 up).", valueName: "Q"))
    var quality: Int = 85

    // Optional, so that the help states the default in words once (argument-parser would add
    // this machine's count as a second default).
    @Option(name: .long, help: ArgumentHelp("Thumbnails made at once (default: the active processor count).", valueName: "N"))
    var jobs: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Use the thumbnail a file carries (EXIF, HEIC/AVIF item): never, if-absent (only when it is at least as large as the thumbnail --max-pixel-size N asks for), always; one that does not decode falls back to the picture.",
        valueName: "never|if-absent|always"))
    var embedded: EmbeddedChoice = .never

    @OptionGroup(title: "Box and crop")
    var sizing: SizingFlags

    @Flag(name: .long, help: "Print one JSON object per input on stdout, in completion order.")
    var json = false

    @OptionGroup(title: "Decoding limits")
    var decoding: DecodingFlags

    func validate() throws {
        guard maxPixelSize >= 1 else {
            throw ValidationError("--max-pixel-size must be at least 1 (got \(maxPixelSize)).")
        }
        guard (1...100).contains(quality) else {
            throw ValidationError("--quality must be in 1...100 (got \(quality)).")
        }
        guard outputFormat.encoding(quality: quality).isAvailable else {
            throw ValidationError("this machine cannot write \(outputFormat.rawValue) (no encoder).")
        }
        if let jobs, jobs < 1 {
            throw ValidationError("--jobs must be at least 1 (got \(jobs)).")
        }
        guard !output.isEmpty else {
            throw ValidationError("--output must name a directory.")
        }
    }

    func run() async throws {
        let start = ContinuousClock.now
        let fileManager = FileManager.default
        // Made first so that the directory walk can recognise it by its resolved path.
        try? fileManager.createDirectory(atPath: output, withIntermediateDirectories: true)

        let arguments: [InputArgument]
        if inputs.isEmpty {
            guard let samples = Bundle.module.url(forResource: "Samples", withExtension: nil) else {
                throw ValidationError("the bundled sample images are missing; give INPUT paths.")
            }
            arguments = [InputArgument(path: samples.path)]
        } else {
            arguments = inputs.map { InputArgument(path: $0) }
        }

        let plan = JobPlan.make(
            arguments: arguments, outputDirectory: output, fileExtension: outputFormat.encoding(quality: quality).fileExtension)
        let reporter = Reporter(
            total: plan.jobs.count, json: json,
            showsProgress: isatty(STDERR_FILENO) != 0)
        let encoding = outputFormat.encoding(quality: quality)
        for job in plan.jobs {
            if let error = job.plannedError { reporter.report(job, outcome: .failed(error)) }
        }
        // MagickIO's Thumbnailer runs the jobs (at most --jobs at once, within its memory budget)
        // on its own threads and hands back each thumbnail as it is done.
        let runnable = plan.jobs.filter { $0.plannedError == nil }
        let thumbnailer = Thumbnailer(maxConcurrentJobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, memoryBudget: decoding.options.memoryBudget,
                                      decodingOptions: decoding.options)
        let inputs = runnable.map { URL(fileURLWithPath: $0.input) }
        let options = ThumbnailOptions(embedded: embedded.option, crop: sizing.crop.crop, animated: animated)
        let results = if let box = sizing.box(side: maxPixelSize) {
            thumbnailer.thumbnails(of: inputs, size: box, mode: sizing.mode.mode, options: options)
        } else {
            thumbnailer.thumbnails(of: inputs, maxPixelSize: maxPixelSize, options: options)
        }
        for await result in results {
            let job = runnable[result.index]
            do {
                let thumbnail = try result.result.get()
                try await thumbnail.write(to: URL(fileURLWithPath: job.output), as: encoding)
                reporter.report(job, outcome: .done(width: thumbnail.width, height: thumbnail.height, crop: thumbnail.cropRect,
                                                    frames: thumbnail.frameCount))
            } catch let error as MagickIOError {
                reporter.report(job, outcome: .failed(error))
            }
        }

        let failed = reporter.finish(elapsed: ContinuousClock.now - start, outputDirectory: output)
        if failed > 0 {
            throw ExitCode(1)
        }
    }
}
