/// What a decode worker is asked to do: the operation, the source's decoding options and the
/// name its bytes go by (the source's descriptor travels beside the message).
struct WorkerRequest: Sendable {
    enum Operation: Sendable {
        case thumbnail(ThumbnailRequest, index: Int, allowUpscale: Bool, options: ThumbnailOptions)
        case image(index: Int)
        /// Tests only: what a worker does when a decoder misbehaves.
        case misbehave(Misbehaviour)
    }

    /// Tests only: the ways a decode worker can end badly, done on request.
    enum Misbehaviour: Int, Sendable, CaseIterable {
        /// Crashes (`abort`).
        case crash
        /// Allocates and touches memory until the kernel refuses it.
        case exhaustMemory
        /// Spins without looking at its time limit.
        case spin
        /// Tries to open a network socket, to exec a program and to create a file, and answers
        /// with an `io` error saying what each attempt gave.
        case escape
        /// Takes a turn at the host's gate and answers without giving it back.
        case answerHoldingTurn
        /// Asks the host's gate without end (gives back a turn it does not hold).
        case floodGate
        /// Sends the host a question it cannot read.
        case malformedQuestion
    }

    var operation: Operation
    var decoding: DecodingOptions
    /// Whether the descriptor is a memory file holding an in-memory source's bytes (the worker maps
    /// it and decodes from memory, as the host would have), or the source's own file.
    var fromMemory: Bool
    /// The file's name in messages, as the host's source gives it.
    var path: String
    /// The rest of the time limit when the worker starts, in nanoseconds: the host's clock
    /// started earlier (a queued call's when its work began).
    var timeLeft: Int?
    /// The host's ImageMagick limits (``ResourceLimits``), which the worker's ImageMagick takes.
    var resources = ResourceLimits.current
    /// A PNG source's chunks as the host walked them at open (``PNGIndex/runs(most:)``) and the
    /// size of the bytes it walked, which the worker's source takes instead of walking the file
    /// again when its bytes are of that size; nil for other formats, or a list of more than
    /// ``maxPNGRuns`` runs.
    var pngChunks: (runs: [PNGIndex.Run], end: PNGChunks.End, fileBytes: Int)?

    /// The most runs of PNG chunks a request carries: a file's image data in IDATs of one length,
    /// and its other chunks, are a few; 64 runs are about 2 KiB of a request.
    static let maxPNGRuns = 64

    func encoded() -> [UInt8] {
        var wire = WireWriter()
        wire.put(Self.version)
        switch operation {
        case let .thumbnail(request, index, allowUpscale, options):
            wire.put(0)
            switch request {
            case .maxPixelSize(let side):
                wire.put(0)
                wire.put(side)
            case let .box(size, mode, gravity):
                wire.put(1)
                wire.put(size.width)
                wire.put(size.height)
                wire.put(SizingMode.allCases.firstIndex(of: mode)!)
                wire.put(Gravity.allCases.firstIndex(of: gravity)!)
            }
            wire.put(index)
            wire.put(allowUpscale)
            wire.put(ThumbnailOptions.EmbeddedThumbnail.allCases.firstIndex(of: options.embedded)!)
            wire.put(ThumbnailOptions.ColorProfile.allCases.firstIndex(of: options.colorProfile)!)
            wire.put(MetadataPolicy.allCases.firstIndex(of: options.metadata)!)
            switch options.crop {
            case .center: wire.put(0)
            case .attention: wire.put(1)
            case .entropy: wire.put(2)
            case let .focalPoint(x, y):
                wire.put(3)
                wire.put(x)
                wire.put(y)
            }
            wire.put(options.ownDecoders)
            wire.put(options.animated)
        case .image(let index):
            wire.put(1)
            wire.put(index)
        case .misbehave(let misbehaviour):
            wire.put(2)
            wire.put(misbehaviour.rawValue)
        }
        wire.put(decoding.maxPixelCount)
        wire.put(decoding.memoryBudget)
        wire.put(decoding.timeLimit.map { Self.nanoseconds($0) }) { $0.put($1) }
        wire.put(Strictness.allCases.firstIndex(of: decoding.strictness)!)
        wire.put(decoding.maxFrameCount)
        wire.put(decoding.maxMetadataBytes)
        wire.put(decoding.heapShareForTesting) { $0.put($1) }
        wire.put(fromMemory)
        wire.put(path)
        wire.put(timeLeft) { $0.put($1) }
        for value in [resources.memory, resources.map, resources.disk, resources.area, resources.width, resources.height,
                      resources.listLength, resources.threads] {
            wire.put(value)
        }
        wire.put(pngChunks) { wire, chunks in
            wire.put(chunks.runs.count)
            for run in chunks.runs {
                wire.put(run.type)
                wire.put(run.length)
                wire.put(run.count)
            }
            wire.put(Self.ends.firstIndex(of: chunks.end)!)
            wire.put(chunks.fileBytes)
        }
        return wire.bytes
    }

    /// How a PNG's walk may end, in the order the wire numbers them.
    private static let ends: [PNGChunks.End] = [.imageEnd, .stopped, .truncated]

    init(operation: Operation, decoding: DecodingOptions, fromMemory: Bool, path: String, timeLeft: Int?) {
        self.operation = operation
        self.decoding = decoding
        self.fromMemory = fromMemory
        self.path = path
        self.timeLeft = timeLeft
    }

    init(_ bytes: UnsafeRawBufferPointer) throws(WireReader.Malformed) {
        var wire = WireReader(bytes)
        guard try wire.int() == Self.version else { throw WireReader.Malformed() }
        let natural = 0...Int.max
        switch try wire.int(in: 0...2) {
        case 0:
            let request: ThumbnailRequest
            if try wire.int(in: 0...1) == 0 {
                request = .maxPixelSize(try wire.int())
            } else {
                request = .box(ImageSize(width: try wire.int(in: natural), height: try wire.int(in: natural)),
                               try wire.oneOf(SizingMode.allCases), try wire.oneOf(Gravity.allCases))
            }
            let index = try wire.int(in: natural)
            let allowUpscale = try wire.bool()
            var options = ThumbnailOptions()
            options.embedded = try wire.oneOf(ThumbnailOptions.EmbeddedThumbnail.allCases)
            options.colorProfile = try wire.oneOf(ThumbnailOptions.ColorProfile.allCases)
            options.metadata = try wire.oneOf(MetadataPolicy.allCases)
            switch try wire.int(in: 0...3) {
            case 0: options.crop = .center
            case 1: options.crop = .attention
            case 2: options.crop = .entropy
            default: options.crop = .focalPoint(x: try wire.double(), y: try wire.double())
            }
            options.ownDecoders = try wire.bool()
            options.animated = try wire.bool()
            operation = .thumbnail(request, index: index, allowUpscale: allowUpscale, options: options)
        case 1:
            operation = .image(index: try wire.int(in: natural))
        default:
            operation = .misbehave(try wire.oneOf(Misbehaviour.allCases))
        }
        decoding = DecodingOptions(maxPixelCount: try wire.int(in: natural), memoryBudget: try wire.int(in: natural))
        decoding.timeLimit = try wire.optional { (wire: inout WireReader) throws(WireReader.Malformed) in .nanoseconds(try wire.int(in: natural)) }
        decoding.strictness = try wire.oneOf(Strictness.allCases)
        decoding.maxFrameCount = try wire.int(in: natural)
        decoding.maxMetadataBytes = try wire.int(in: natural)
        decoding.heapShareForTesting = try wire.optional { (wire: inout WireReader) throws(WireReader.Malformed) in try wire.int(in: natural) }
        decoding.isolation = .inProcess
        fromMemory = try wire.bool()
        path = try wire.string()
        timeLeft = try wire.optional { (wire: inout WireReader) throws(WireReader.Malformed) in try wire.int(in: natural) }
        resources = ResourceLimits(memory: try wire.int(in: natural), map: try wire.int(in: natural), disk: try wire.int(in: natural),
                                   area: try wire.int(in: natural), width: try wire.int(in: natural), height: try wire.int(in: natural),
                                   listLength: try wire.int(in: natural), threads: try wire.int(in: natural))
        pngChunks = try wire.optional { (wire: inout WireReader) throws(WireReader.Malformed) in
            var runs: [PNGIndex.Run] = []
            for _ in 0..<(try wire.int(in: 0...Self.maxPNGRuns)) {
                runs.append(PNGIndex.Run(type: try wire.string(), length: try wire.int(in: 0...Int(UInt32.max)),
                                         count: try wire.int(in: 1...Int.max)))
            }
            return (runs, try wire.oneOf(Self.ends), try wire.int(in: natural))
        }
    }

    static let version = 4

    static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds).saturatingTimes(1_000_000_000).saturatingPlus(Int(attoseconds / 1_000_000_000))
    }
}

/// What a worker answers: a typed error, or the image (its pixels and metadata, ``ImageSnapshot``).
enum WorkerResponse {
    case failure(MagickIOError)
    case image(ImageSnapshot, orientation: Orientation, warnings: [String], decoder: Image.Decoder, cropRect: ImageRect?)

    func encoded() -> [UInt8] {
        var wire = WireWriter()
        switch self {
        case .failure(let error):
            wire.put(0)
            wire.put(error.kind.rawValue)
            wire.put(error.message)
            wire.put(error.severity?.rawValue) { $0.put($1) }
            wire.put(error.limit) { wire, limit in
                wire.put(limit.name)
                wire.put(limit.requested)
                wire.put(limit.limit)
            }
        case let .image(snapshot, orientation, warnings, decoder, cropRect):
            wire.put(1)
            wire.put(orientation.rawValue)
            wire.put(warnings.count)
            for warning in warnings { wire.put(warning) }
            wire.put(decoder.rawValue)
            wire.put(cropRect) { wire, rect in
                wire.put(rect.x)
                wire.put(rect.y)
                wire.put(rect.width)
                wire.put(rect.height)
            }
            snapshot.encode(&wire)
        }
        return wire.bytes
    }

    init(_ bytes: UnsafeRawBufferPointer) throws(WireReader.Malformed) {
        var wire = WireReader(bytes)
        if try wire.int(in: 0...1) == 0 {
            guard let kind = MagickIOError.Kind(rawValue: try wire.string()) else { throw WireReader.Malformed() }
            let message = try wire.string()
            let severity = try wire.optional { (wire: inout WireReader) throws(WireReader.Malformed) in
                MagickIOError.Severity(rawValue: try wire.int())
            }
            let limit = try wire.optional { (wire: inout WireReader) throws(WireReader.Malformed) in
                MagickIOError.Limit(name: try wire.string(), requested: try wire.int(), limit: try wire.int())
            }
            self = .failure(MagickIOError(kind, message, severity: severity, limit: limit))
            return
        }
        let orientation = Orientation(exifValue: try wire.int(in: 1...8))
        var warnings: [String] = []
        for _ in 0..<(try wire.int(in: 0...wire.remaining)) { warnings.append(try wire.string()) }
        guard let decoder = Image.Decoder(rawValue: try wire.string()) else { throw WireReader.Malformed() }
        let cropRect = try wire.optional { (wire: inout WireReader) throws(WireReader.Malformed) in
            ImageRect(x: try wire.int(), y: try wire.int(), width: try wire.int(), height: try wire.int())
        }
        self = .image(try ImageSnapshot(&wire), orientation: orientation, warnings: warnings, decoder: decoder, cropRect: cropRect)
    }
}
