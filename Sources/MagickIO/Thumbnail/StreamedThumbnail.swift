// The own path: the thumbnail pipeline's fill by MagickIO's own row decoders where the file allows: a JPEG's rows
// from libjpeg-turbo at the DCT scale the plan chooses, a plain PNG's from libpng, a still WebP's
// from libwebp at the whole-factor shrink the plan chooses, a TIFF's first page's from libtiff, or
// a HEIC's or AVIF's from libheif's buffer flow straight into the resampler, and only the
// thumbnail-sized result is ever held in ImageMagick's pixel cache. Everything else, and any file
// these decoders warn about, takes ImageMagick's path (the fallback), which then applies the
// source's strictness and reports what it finds.

/// How a thumbnail goes the own path: which decoder, at what size, at what cost.
struct StreamPlan: Sendable {
    var decoder: RowDecoder
    /// JPEG: the DCT scale's numerator k (k/8); PNG, WebP (scaled to ``decoded``), HEIF: 8.
    var scale: Int
    /// The size as stored (the header's) and the size the rows come at.
    var stored: (width: Int, height: Int)
    var decoded: (width: Int, height: Int)
    var estimate: DecodeEstimate
    /// HEIC/AVIF: the pixels of the larger picture than declared that libheif will hand over
    /// (``ImageHeader/codedPixels``), which the rows may then come at instead of `decoded`.
    var codedPixels: Int?
    /// What turns the rows as they come into `decoded` (a HEIF grid's tiles come as stored:
    /// ``HEIFTiling/orientation``); applied to the thumbnail.
    var orientation: Orientation = .up
    /// A TIFF in strips big enough to decode on two threads when a core is idle: the rows of a
    /// band (``TIFFRows/bandRows(_:)``), which the estimate counted a second decoder for.
    var bandRows: Int?
}

extension ImageSource {
    /// The own path's plan for frame `index`, or nil when its header already says ImageMagick
    /// must decode it: not a lone JPEG of three components, a non-interlaced RGB, RGBA or
    /// palette PNG, a still WebP, or a HEIC or AVIF, an enlargement, or metadata to keep
    /// (ImageMagick's path copies it).
    func streamPlan(_ plan: ThumbnailSizes, at index: Int, options: ThumbnailOptions) -> StreamPlan? {
        guard index == 0, count == 1 || format == .tiff, options.metadata == .stripAll, options.ownDecoders, let header else { return nil }
        let stored = (width: header.width, height: header.height)
        let decoded: (width: Int, height: Int)
        let scale: Int
        let decoder: RowDecoder
        switch format {
        case .jpeg where header.components == 3:
            decoder = .jpeg
            let limits = ResourceLimits.current
            scale = JPEGScale.numerator(width: stored.width, height: stored.height, target: plan.stored,
                                        within: (limits.width, limits.height))
            decoded = JPEGScale.scaledSize(width: stored.width, height: stored.height, numerator: scale)
        case .png where !header.isInterlaced && header.components >= 3:
            decoder = .png
            scale = 8
            decoded = stored
        case .webp:
            // An animation (more than one frame) is composited by ImageMagick's path; libwebp
            // scales a still one as it decodes.
            decoder = .webp
            scale = 8
            decoded = WebPScale.scaledSize(width: stored.width, height: stored.height, target: plan.stored)
        case .heic, .avif:
            // libheif's size, turned by irot and cut by clap as it decodes (the header's is the
            // coded one). A bitstream or grid canvas larger than declared: libheif 1.15 hands over
            // that picture whatever `ispe` says (Xiph's layered AVIF declares 360x182 and decodes
            // to 1436x730), and the thumbnail is made from it as ImageMagick's path makes it; the
            // estimate is that picture's, checked before libheif decodes.
            decoder = .heif
            scale = 8
            decoded = (frames[0].pixelWidth, frames[0].pixelHeight)
        case .tiff where header.tiffPages.first.map(TIFFRows.takes) ?? false:
            // The first page (of any number) of a layout libtiff's rows are taken from.
            decoder = .tiff
            scale = 8
            decoded = stored
        default:
            return nil
        }
        guard plan.stored.width <= decoded.width, plan.stored.height <= decoded.height else { return nil }
        let bandRows = decoder == .tiff && decoded.width.saturatingTimes(decoded.height) >= Self.pipelineThreshold
            ? header.tiffPages.first.flatMap(TIFFRows.bandRows) : nil
        let estimate = DecodeEstimate.streamed(format: format, header: header, stored: stored, decoded: decoded,
                                               output: plan.stored, fileBytes: bytes.count, banded: bandRows != nil)
        return StreamPlan(decoder: decoder, scale: scale, stored: stored, decoded: decoded, estimate: estimate,
                          codedPixels: format.isHEIF ? header.codedPixels : nil,
                          orientation: format.isHEIF ? header.tiling?.orientation ?? .up : .up, bandRows: bandRows)
    }

    /// Refuses the own path's decode as ``checkLimits(frame:jpegHint:)`` refuses ImageMagick's:
    /// the pixel count as stored, the estimate against the budget, the decoded size against the
    /// process's width and height limits.
    func checkLimits(_ stream: StreamPlan) throws(MagickIOError) {
        guard let header else { return }
        try checkLimits(stored: (header.width, header.height), stream.estimate, byImageMagick: false)
    }

    /// Fills `wand` with the thumbnail-sized picture through the own path (``ThumbnailFill/rows(_:_:of:)``),
    /// and returns the warnings and the decoder's name, or nil when the decoder hands the file to
    /// ImageMagick (``RowSourceFailure/fallback(_:)``). Throws when it was cancelled or ran past
    /// its time limit. `idleCore`: another core is idle, so a big image decodes on a second thread.
    func fillRows(_ plan: ThumbnailSizes, _ stream: StreamPlan, from input: DecoderInput, into wand: Wand,
                  wandless: WandlessThumbnail? = nil, interrupt: Interrupt?,
                  idleCore: Bool) throws(MagickIOError) -> ([DecoderWarning], Image.Decoder)? {
        var tiffWarnings: [DecoderWarning] = []
        let decoded: Result<Void, RowSourceFailure> = input.bytes.withDecoderInput { data, descriptor, size in
            Result { () throws(RowSourceFailure) in
                let decoder = try stream.decoder.open(self, stream, input: input.bytes, data: data, descriptor: descriptor,
                                                      size: size, interrupt: interrupt, idleCore: idleCore)
                let (rows, stop) = try reader(of: decoder, stream, input: input.bytes, data: data, descriptor: descriptor,
                                              size: size, interrupt: interrupt, idleCore: idleCore)
                defer { stop() }  // its threads joined before the input goes away
                // Without a wand only when the rows are what its kind was made for.
                let plain = wandless.flatMap { rows.iccProfile == nil && rows.channels == $0.channels && !(decoder is TIFFRows) ? $0 : nil }
                try streamRows(rows, into: wand, wandless: plain, size: plan.stored, expected: stream.decoded,
                               codedPixels: stream.codedPixels, orientation: stream.orientation, interrupt: interrupt)
                if plain != nil { return }
                if let icc = rows.iccProfile {
                    do throws(MagickIOError) { try wand.setProfile("icc", icc) } catch { throw .fallback(error.description) }
                }
                tiffWarnings = (decoder as? TIFFRows)?.warnings ?? []
                if (decoder as? TIFFRows)?.isGrey == true {
                    do throws(MagickIOError) { try wand.markGrey() } catch { throw .fallback(error.description) }
                }
            }
        }
        switch decoded {
        case .failure(.stopped(let error)):
            throw error
        case .failure(.fallback):
            return nil
        case .success:
            if wandless?.isFilled != true {
                try wand.describe(format: format, resolution: frames[0].resolution)
            }
            return (try headerWarnings(of: input) + input.warnings + tiffWarnings, stream.decoder.name)
        }
    }

    /// What a thumbnail reads `decoder`'s rows through, and what stops it. A big image on an
    /// otherwise idle machine decodes on a second core (``PipelinedRows``; libheif has decoded a
    /// HEIF whole already, unless its tiles come a row at a time: nothing is left to overlap), a
    /// TIFF in strips the plan chose for it on two (``StreamPlan/bandRows``, ``BandedRows``, with a
    /// second decoder, which the estimate counted: ``TIFFRows/bandedBytes(_:fileBytes:)``).
    private func reader(of decoder: RawRowSource, _ stream: StreamPlan, input: SourceBytes, data: UnsafePointer<UInt8>?,
                        descriptor: Int32, size: Int, interrupt: Interrupt?,
                        idleCore: Bool) throws(RowSourceFailure) -> (RowSource, stop: () -> Void) {
        guard idleCore, stream.decoded.width.saturatingTimes(stream.decoded.height) >= Self.pipelineThreshold else {
            return (decoder, {})
        }
        // The second decoder must read the page as the first does (libtiff's strips, the rows it
        // gives): anything else, or a second open that fails, and the first decodes alone.
        if let bandRows = stream.bandRows, let first = decoder as? TIFFRows, first.rowsPerStrip == header?.tiffPages.first?.rowsPerStrip,
           let second = (try? stream.decoder.open(self, stream, input: input, data: data, descriptor: descriptor, size: size,
                                                  interrupt: interrupt)) as? TIFFRows,
           second.rowsPerStrip == first.rowsPerStrip, second.rawRowBytes == first.rawRowBytes, second.channels == first.channels {
            let banded = BandedRows(first, second, bandRows: bandRows)
            return (banded, banded.stop)
        }
        guard stream.decoder != .heif || decoder is HEIFTileRows else { return (decoder, {}) }
        let pipelined = PipelinedRows(decoder)
        return (pipelined, pipelined.stop)
    }

    /// What ImageMagick's path would warn about in a JPEG's or PNG's headers that the own rows
    /// do not: libjpeg's and libpng's own warnings already hand the file to that path
    /// (``RowSourceFailure/fallback(_:)``), so what is left is ImageMagick's own check of the
    /// profiles its coder attaches. A JPEG's XMP packet is checked as the coder would check it
    /// (``Wand/profileCheck(_:_:filename:)``), with no second read of the file; a PNG is pinged
    /// (its coder reads the header once more) only when it has text chunks, where ImageMagick's
    /// coder finds its XMP and raw profiles. So the thumbnail carries the warnings, and meets the
    /// strictness, of ImageMagick's path. Not for WebP, TIFF or HEIF: libwebp, libtiff and libheif
    /// read all that ImageMagick's coders would.
    private func headerWarnings(of decoderInput: DecoderInput) throws(MagickIOError) -> [DecoderWarning] {
        let input = decoderInput.bytes
        switch format {
        case .jpeg:
            let profiles = JPEGProfiles(input, index: decoderInput.isStrippedCopy ? nil : index?.jpeg, maxSegments: decodingOptions.maxFrameCount, maxBytes: decodingOptions.maxMetadataBytes)
            guard let xmp = profiles.profiles.first(where: { $0.name == "xmp" }) else { return [] }
            // Named as ImageMagick's read names the file in its messages: the caller's path.
            let filename = if case .file(let file) = input { file.path } else { "" }
            let exceptions = Wand.profileCheck("xmp", xmp.bytes, filename: filename)
            return try Wand.warnings(exceptions, format: format, bytes: input, strictness: decodingOptions.strictness)
        case .png where PNGChunks.hasTextBeforeImageData(input, index: decoderInput.isStrippedCopy ? nil : index?.png):
            return try Wand.withThreadWand { wand throws(MagickIOError) in
                try wand.read(input, format: format, frames: 0...0, ping: true, strictness: decodingOptions.strictness)
            }
        default:
            return []
        }
    }

    /// `error`, from making or filling the thumbnail-sized image, as ImageMagick's pool being full:
    /// its own "cache resources exhausted", or a failure without a reason while the pool cannot
    /// take the image (ImageMagick 6.9.11 gives none when its pixel cache cannot be opened for an
    /// image a wand makes). Nil for anything else. The error has no limit named, so that the
    /// admission runs the work again alone (``AdmissionGate/admitting(_:interrupt:_:)``).
    static func poolFull(_ error: MagickIOError, size: (width: Int, height: Int)) -> MagickIOError? {
        if error.kind == .limitExceeded { return error }
        let bytes = size.width.saturatingTimes(size.height).saturatingTimes(8)
        guard MagickCache.wouldOverflow(adding: bytes) else { return nil }
        return MagickIOError(.limitExceeded, "ImageMagick's pixel cache, one pool for the whole process, could not take the \(size.width)x\(size.height) thumbnail (\(MagickCache.inUse >> 20) MiB of \(MagickCache.limit >> 20) MiB in use): \(error.message)")
    }

    /// The decoded size (in pixels) from which a thumbnail decodes on a second thread when a core
    /// is idle: below it, starting the thread costs about what it saves.
    static let pipelineThreshold = 1_000_000

    /// Resamples every row of `rows` to `size` into a new image in `wand`. The rows come at
    /// `expected`, or (a HEIF picture larger than declared) at any size of at most `codedPixels`
    /// no wider than the estimate counted; `orientation` turns them into `expected` (they are
    /// resampled as they come, and the thumbnail turned).
    private func streamRows(_ rows: RowSource, into wand: Wand, wandless: WandlessThumbnail?, size shown: (width: Int, height: Int),
                            expected: (width: Int, height: Int), codedPixels: Int?, orientation: Orientation,
                            interrupt: Interrupt?) throws(RowSourceFailure) {
        let turned = orientation.swapsWidthAndHeight
        let size = turned ? (width: shown.height, height: shown.width) : shown
        let asExpected = (turned ? (rows.height, rows.width) : (rows.width, rows.height)) == expected
        let asCoded = codedPixels.map { rows.width.saturatingTimes(rows.height) <= $0 && rows.width <= DecodeEstimate.maxCodedWidth } ?? false
        guard asExpected || asCoded else {
            throw .fallback("the decoder gave \(rows.width)x\(rows.height), the header \(expected.width)x\(expected.height)")
        }
        let map = rows.channels == 4 ? "RGBA" : "RGB"
        if let wandless {
            wandless.start(width: size.width, height: size.height)
        } else {
            // ImageMagick's pool full is no reason to hand the file to ImageMagick's decoder, which
            // needs more of it: the error goes up as the pool's (``poolFull(_:size:)``), and the
            // pipeline's admission runs the fill again alone.
            do throws(MagickIOError) {
                try wand.newImage(width: size.width, height: size.height, alpha: rows.channels == 4)
            } catch {
                throw Self.poolFull(error, size: size).map { .stopped($0) } ?? .fallback(error.description)
            }
        }
        let write = { (y: Int, row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) in
            if let wandless { return wandless.write(y, row) }
            do throws(MagickIOError) { try wand.importRow(y, row, map: map) } catch {
                throw Self.poolFull(error, size: size).map { .stopped($0) } ?? .fallback(error.description)
            }
        }
        let progress = { (_: Int, _: Int) throws(RowSourceFailure) in
            guard let interrupt, !interrupt.progressPoint() else { return }
            do throws(MagickIOError) { try interrupt.check() } catch { throw .stopped(error) }
            throw .stopped(MagickIOError(.cancelled, "the operation was cancelled"))
        }
        if rows.givesRGBBytes {
            try Resampler.streamBytes(input: (rows.width, rows.height), output: size,
                                      read: { (_, row) throws(RowSourceFailure) in try rows.readBytes(into: row) },
                                      write: write, progress: progress)
        } else {
            try Resampler.stream(input: (rows.width, rows.height), output: size, channels: rows.channels,
                                 read: { (_, row) throws(RowSourceFailure) in try rows.readRow(into: row) },
                                 write: write, progress: progress)
        }
        try rows.finish()
        if let wandless, !wandless.finish() { throw .fallback("the resampler left rows unwritten") }
        guard orientation != .up else { return }
        do throws(MagickIOError) { try wand.applyOrientation(orientation) } catch { throw .fallback(error.description) }
    }
}

/// MagickIO's own decoders of a picture's rows, one case each: a new one is a case here, its
/// arm in ``open(_:_:input:data:descriptor:size:interrupt:idleCore:)`` and ``name``, and the header's
/// test in ``ImageSource/streamPlan(_:at:options:)``.
enum RowDecoder: Sendable, Hashable {
    case jpeg, png, webp, tiff, heif

    /// The decoder, opened on the file's bytes (`data`, or `descriptor` read with `pread`).
    /// `idleCore`: another core is idle, which libwebp's own second thread may use.
    func open(_ source: ImageSource, _ stream: StreamPlan, input: SourceBytes, data: UnsafePointer<UInt8>?,
              descriptor: Int32, size: Int, interrupt: Interrupt?, idleCore: Bool = false) throws(RowSourceFailure) -> RawRowSource {
        switch self {
        case .jpeg:
            try JPEGRows(input: data, descriptor: descriptor, size: size, scale: stream.scale,
                         memoryLimit: source.decodingOptions.memoryBudget, strictness: source.decodingOptions.strictness,
                         interrupt: interrupt)
        case .png:
            try PNGRows(input: data, descriptor: descriptor, size: size)
        case .webp:
            try WebPRows(input: data, descriptor: descriptor, size: size, stored: stream.stored, scaled: stream.decoded,
                         threads: idleCore)
        case .tiff:
            try TIFFRows(input: data, descriptor: descriptor, size: size, stored: stream.stored,
                         allocationLimit: TIFFRows.allocationLimit(source.header?.tiffPages.first, fileBytes: size),
                         misread: source.header?.tiffPages.first.flatMap(TIFFRows.imageMagickMisreads),
                         strictness: source.decodingOptions.strictness)
        case .heif:
            if let tiling = source.header?.tiling {
                try HEIFTileRows(input, items: source.index?.heif, tiling: tiling, options: source.decodingOptions, interrupt: interrupt)
            } else {
                try HEIFRows(input, items: source.index?.heif, options: source.decodingOptions,
                             planar: source.header?.planarImage != nil, interrupt: interrupt)
            }
        }
    }

    /// The library that decodes, as ``Image`` records it.
    var name: Image.Decoder {
        switch self {
        case .jpeg: .libjpeg
        case .png: .libpng
        case .webp: .libwebp
        case .tiff: .libtiff
        case .heif: .libheif
        }
    }
}
