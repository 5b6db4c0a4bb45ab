import Foundation

// The decode of one frame: its cost checked against the limits from the header alone, then the
// read under the source's strictness, its interrupt and ImageMagick's shared pixel cache.

extension ImageSource {
    /// What decoding frame `index` at `jpegHint` will cost, from the headers alone (see
    /// ``DecodeEstimate``).
    func estimate(frame index: Int, jpegHint: JPEGScale.Hint? = nil) -> DecodeEstimate {
        let frame = frames[index]
        let (width, height) = storedSize(frame: index)
        let composites = format.isAnimation && (count > 1 || frame.isOffsetOnCanvas)
        var estimate = DecodeEstimate(format: format, header: header, width: width, height: height,
                                      jpegHint: jpegHint, composited: composites, page: index)
        if format.isAnimation, count > 1 {
            // Frames 0...index are decoded, then composited into as many canvases.
            estimate.bytes = estimate.bytes.saturatingTimes(index + 1)
            estimate.cacheBytes = estimate.cacheBytes.saturatingTimes(index + 1)
        }
        return estimate
    }

    /// The size frame `index` is stored at: an animation frame's from its walker (its canvas), a
    /// TIFF page's from its own directory, anything else's from the header.
    private func storedSize(frame index: Int) -> (width: Int, height: Int) {
        let frame = frames[index]
        if format.isAnimation {
            // The canvas, or the box of a GIF's frames when one reaches past it (the header's).
            return (max(frame.pixelWidth, header?.width ?? 0), max(frame.pixelHeight, header?.height ?? 0))
        }
        if format == .tiff, let pages = header?.tiffPages, pages.indices.contains(index) {
            return (pages[index].width, pages[index].height)
        }
        return (header?.width ?? frame.pixelWidth, header?.height ?? frame.pixelHeight)
    }

    /// Refuses a decode whose estimate exceeds ``decodingOptions`` or the process's size limits, with the
    /// numbers, before any pixel is decoded; and ImageMagick's decode of a TIFF page its coder
    /// misreads (``TIFFRows/imageMagickMisreads(_:)``: the own path alone reads those) as
    /// `unsupportedFormat`, rather than garbage.
    func checkLimits(frame index: Int, jpegHint: JPEGScale.Hint?) throws(MagickIOError) {
        if format == .tiff, let pages = header?.tiffPages, pages.indices.contains(index),
           let misread = TIFFRows.imageMagickMisreads(pages[index]) {
            let own = TIFFRows.takes(pages[index])
                ? "MagickIO decodes it only as the first page of a thumbnail that keeps no metadata (libtiff's rows)"
                : "no decoder MagickIO has reads it"
            throw MagickIOError(.unsupportedFormat, "a TIFF page of \(misread), which ImageMagick 6.9.11 misreads: \(own)")
        }
        let stored = format.isAnimation ? (header?.width ?? frames[index].pixelWidth, header?.height ?? frames[index].pixelHeight)
            : storedSize(frame: index)
        try checkLimits(stored: stored, estimate(frame: index, jpegHint: jpegHint), byImageMagick: true)
    }

    /// The checks every decode passes, ImageMagick's or MagickIO's own (``StreamPlan``), in order:
    /// the stored pixel count (and a HEIF's coded one, ``ImageHeader/codedPixels``); a JPEG's scan
    /// work (``JPEGSegments/maxBlockScans``); ImageMagick's pixel cache (`byImageMagick` only: the own path puts
    /// only the thumbnail there); the memory budget; the decoded width, height and area against the
    /// process's limits (`byImageMagick` only, for the same reason).
    func checkLimits(stored: (width: Int, height: Int), _ estimate: DecodeEstimate, byImageMagick: Bool) throws(MagickIOError) {
        let pixels = stored.width.saturatingTimes(stored.height)
        if pixels > decodingOptions.maxPixelCount {
            throw MagickIOError.limit("maxPixelCount", requested: pixels, limit: decodingOptions.maxPixelCount,
                                      "\(stored.width)x\(stored.height) is \(pixels) pixels")
        }
        if let coded = header?.codedPixels, coded > decodingOptions.maxPixelCount {
            throw MagickIOError.limit("maxPixelCount", requested: coded, limit: decodingOptions.maxPixelCount,
                                      "\(stored.width)x\(stored.height) as declared, its bitstream or canvas makes a picture of \(coded) pixels")
        }
        if format == .jpeg {
            try checkScanWork()
        }
        let cacheLimit = MagickCache.limit
        if byImageMagick, estimate.cacheBytes > cacheLimit {
            throw MagickIOError.limit("memory", requested: estimate.cacheBytes, limit: cacheLimit,
                                      "decoding \(stored.width)x\(stored.height) at \(estimate.width)x\(estimate.height) needs \(estimate.cacheBytes >> 20) MiB of ImageMagick's pixel cache")
        }
        if estimate.bytes > decodingOptions.memoryBudget {
            let coded = header?.codedPixels.map { " (its bitstream or canvas: \($0) pixels)" } ?? ""
            throw MagickIOError.limit("memoryBudget", requested: estimate.bytes, limit: decodingOptions.memoryBudget,
                                      "decoding \(stored.width)x\(stored.height)\(coded) at \(estimate.width)x\(estimate.height) needs about \(estimate.bytes >> 20) MiB")
        }
        // ImageMagick's own limits bind only what goes into its pixel cache: the own paths stream
        // rows and put only the thumbnail there, so a 65535x1 PNG the budget admits is not refused
        // for its width.
        guard byImageMagick else { return }
        let process = ResourceLimits.current
        let checks = [("width", estimate.width, process.width), ("height", estimate.height, process.height),
                      ("area", estimate.width.saturatingTimes(estimate.height), process.area)]
        for (name, requested, limit) in checks where requested > limit {
            throw MagickIOError.limit(name, requested: requested, limit: limit,
                                      "decoding at \(estimate.width)x\(estimate.height) exceeds ImageMagick's \(name) limit")
        }
    }

    /// Refuses a JPEG whose scans would cost libjpeg more than ``JPEGSegments/maxBlockScans``, on
    /// either path: the walk over the scans is a pass over the file at memory speed, made only
    /// when a decode is asked for (opening a file does not pay it), and only for a progressive
    /// or multi-scan file (a baseline photo's one scan needs no count).
    private func checkScanWork() throws(MagickIOError) {
        // Without a frame header libjpeg decodes no scan at all.
        let jpeg = index?.jpeg ?? JPEGIndex(bytes)
        guard case .success(let frame) = jpeg.frame, !JPEGSegments.decodesOneScan(in: bytes, frame: frame, index: jpeg) else { return }
        let work = JPEGSegments.scanWork(in: bytes, after: frame)
        if work.blockScans > JPEGSegments.maxBlockScans {
            throw MagickIOError.limit("jpegScanWork", requested: work.blockScans, limit: JPEGSegments.maxBlockScans,
                                      "the JPEG's \(work.scans) scans cover \(work.blockScans) blocks of \(frame.width)x\(frame.height)")
        }
    }

    /// Reads frame `index` into this thread's wand, after ``checkLimits`` and the metadata limits
    /// (``decoderInput(keeping:forLibjpeg:)``: the whole file's metadata kept), and runs `body` on it with the
    /// decoder's warnings (the wand holds that frame only, and is cleared afterwards). The read and
    /// whatever `body` does stop at the next row once `interrupt` (or the source's time limit) says
    /// so, and then throw. This is ``image(at:)``'s decode; a thumbnail's goes through its pipeline
    /// (``makeThumbnail(_:options:interrupt:)``), which reads with ``decode(frame:from:jpegHint:interrupt:cacheBytes:into:)``.
    ///
    /// The decode waits until its share of ImageMagick's pixel cache fits beside the decodes
    /// under way (``AdmissionGate/admitting(_:interrupt:_:)``).
    func withDecoded<T>(frame index: Int, jpegHint: JPEGScale.Hint? = nil, interrupt: Interrupt? = nil,
                        _ body: (Wand, [DecoderWarning]) throws(MagickIOError) -> T) throws(MagickIOError) -> T {
        try checkLimits(frame: index, jpegHint: jpegHint)
        let input = try decoderInput(keeping: .all)
        let cacheBytes = estimate(frame: index, jpegHint: jpegHint).cacheBytes
        let interrupt = interrupt ?? decodingOptions.timeLimit.map { Interrupt(timeLimit: $0) }
        return try AdmissionGate.shared.admitting(cacheBytes, interrupt: interrupt) { _ throws(MagickIOError) -> T in
            try Self.withInterruptibleWand(interrupt) { wand, interrupt throws(MagickIOError) -> T in
                let warnings = try self.decode(frame: index, from: input, jpegHint: jpegHint, interrupt: interrupt,
                                             cacheBytes: cacheBytes, into: wand)
                return try body(wand, warnings)
            }
        }
    }

    /// Decodes frame `index` of `input` (the bytes the limits approved) into `wand`, which holds
    /// no image and reports progress to `interrupt`, and returns the decoder's warnings: ImageMagick's
    /// coder at `jpegHint`, or libheif for HEIC/AVIF. `cacheBytes` is the pixel cache the caller
    /// reserved for it.
    func decode(frame index: Int, from input: DecoderInput, jpegHint: JPEGScale.Hint?, interrupt: Interrupt?,
              cacheBytes: Int, into wand: Wand) throws(MagickIOError) -> [DecoderWarning] {
        if let jpegHint, format == .jpeg {
            try wand.setJPEGScaleHint(jpegHint)
        }
        // A frame of an animation is what a viewer shows at that point: every frame up to
        // it, composited on the canvas (also a lone frame smaller than its canvas). Pages of a
        // TIFF stand alone.
        let composites = format.isAnimation && (count > 1 || frames[index].isOffsetOnCanvas)
        let range = count == 1 ? nil : composites ? 0...index : index...index
        let heapShare = heapShare(cacheBytes: cacheBytes)
        let warnings = try (format.isHEIF
            ? readHEIF(frame: index, from: input.bytes, into: wand, cacheBytes: cacheBytes, heapShare: heapShare, interrupt: interrupt)
            : wand.read(try bytesForImageMagick(input, through: index), format: format, frames: range, ping: false,
                        strictness: decodingOptions.strictness, cacheBytes: cacheBytes, heapShare: heapShare)) + input.warnings
        // ImageMagick returns a stopped JPEG decode as a success with a partial image.
        try interrupt?.check()
        guard wand.imageCount == (range?.count ?? 1) else {
            throw MagickIOError(.corruptImage, "expected \(range?.count ?? 1) frames, the decoder returned \(wand.imageCount)")
        }
        if format == .gif {
            try wand.forgetGIFGamma()
        }
        if composites {
            try wand.keepCompositedLastFrame()
        }
        wand.monitor(interrupt)  // the image the read made
        return warnings
    }

    /// Of `input`, what ImageMagick's coder may see to decode frames 0...`last`: an animated WebP without
    /// the frames after them (``SourceBytes/webpFrames(through:index:)``, from the chunks the index
    /// found when the input is the source's own bytes); an OS/2 2.x BMP with the headers it reads
    /// right, in a memory file (``BMPHeader/windowsHeaders(_:)``); anything else as it is.
    private func bytesForImageMagick(_ input: DecoderInput, through last: Int) throws(MagickIOError) -> SourceBytes {
        let bytes = input.bytes
        switch format {
        case .webp where count > 1:
            return bytes.webpFrames(through: last, index: input.isStrippedCopy ? nil : self.index?.webp) ?? bytes
        case .bmp:
            guard let (head, restAt, end) = try (try? BMPHeader.read(bytes))?.windowsHeaders(bytes) else { return bytes }
            let file = try MemoryFile.make("magickio-bmp", head: head, then: bytes, from: restAt, upTo: end)
            defer { close(file) }
            if case .file(let original) = bytes { return .file(try OpenFile(duplicating: file, path: original.path)) }
            return .file(try OpenFile(duplicating: file))
        default:
            return bytes
        }
    }

    /// The bytes of ImageMagick's heap a decode may take on its thread (``HeapBudget``): the memory
    /// budget less the pixel cache the estimate counts, because the cache is not on that heap and
    /// ImageMagick's memory limit bounds it already. What is left is at least what the estimate
    /// counts besides the cache (a coder's buffers), plus the budget's headroom.
    func heapShare(cacheBytes: Int) -> Int {
        decodingOptions.heapShareForTesting ?? max(decodingOptions.memoryBudget - cacheBytes, 0)
    }

    /// Runs `body` on this thread's wand under `interrupt`: checked before, routed through the
    /// wand's progress monitor while `body` runs, and checked again after, also when `body` fails,
    /// because a step the monitor stopped reports a corrupt image or nothing at all: the error
    /// then says why it stopped.
    static func withInterruptibleWand<T>(_ interrupt: Interrupt?,
                                         _ body: (Wand, Interrupt?) throws(MagickIOError) -> T) throws(MagickIOError) -> T {
        try interrupt?.check()
        return try withExtendedLifetime(interrupt) { () throws(MagickIOError) -> T in
            try Wand.withThreadWand { wand throws(MagickIOError) in
                wand.monitor(interrupt)
                defer { wand.monitor(nil) }
                do throws(MagickIOError) {
                    let result = try body(wand, interrupt)
                    try interrupt?.check()
                    return result
                } catch {
                    try interrupt?.check()
                    throw error
                }
            }
        }
    }
}
