import Foundation

// The thumbnails of animated GIFs and WebPs, MagickIO's own way: giflib or libwebp's
// WebPAnimDecoder composites one frame at a time on the canvas (``CompositedFrames``), each canvas
// is resampled to the thumbnail size as it comes (``FrameResize``), and only the thumbnail-sized
// result is kept. Two uses:
// - ``ThumbnailOptions/animated``: every frame (at most the ``ImageSource/count`` the walker
//   allowed, ``DecodingOptions/maxFrameCount``), kept with its delay and the loop count
//   (``AnimationFrames``), for ``Image/encoded(as:metadata:)`` to write as an animated WebP or GIF;
// - a still thumbnail of frame N: frames 0...N composited, as one input of the pipeline
//   (``ThumbnailFill/composited(_:_:frame:of:)``), whose build half then finishes it.
//   ImageMagick's coders would hold every frame up to N (its WebP coder every frame of the file);
//   here two canvases at most. ImageMagick's path stays the fallback for what these decoders refuse.
// The limits hold as for every decode: the estimate (``compositedEstimate``) is checked first, the
// interrupt between frames and every 16 rows of each.

/// How a thumbnail of an animation is composited: which frames, at what cost.
struct CompositedPlan: Sendable {
    /// Every frame (an animated thumbnail), or only the last one of `0...frames - 1` (a still one).
    var animated: Bool
    var frames: Int
    var canvas: (width: Int, height: Int)
    var estimate: DecodeEstimate
}

extension ImageSource {
    /// The composited path's plan for frame `index`, or nil when the thumbnail takes the pipeline's
    /// other paths: not an animated GIF or WebP; a still frame whose metadata must be kept or with
    /// MagickIO's own decoders turned off; an animated one whose frames must be turned (an EXIF
    /// orientation: its still frame takes the pipeline instead).
    func compositedPlan(_ plan: ThumbnailSizes, at index: Int, options: ThumbnailOptions) -> CompositedPlan? {
        guard format == .gif || format == .webp else { return nil }
        // A still GIF wider or higher than ImageMagick's limits (Debian's policy: 16,000 pixels)
        // is giflib's too: the budget, not the side, bounds what it costs. (The limits are read
        // only for a still GIF: every other thumbnail plan passes here.)
        guard count > 1 || (format == .gif && pastImageMagickSides(frames[0])) else { return nil }
        let animated = options.animated && frames[index].orientation == .up
        guard animated || (options.ownDecoders && options.metadata == .stripAll) else { return nil }
        let canvas = (width: frames[0].pixelWidth, height: frames[0].pixelHeight)
        let kept = animated ? count : 1
        let output = animated ? plan.geometry.size : plan.stored
        return CompositedPlan(animated: animated, frames: animated ? count : index + 1, canvas: canvas,
                              estimate: compositedEstimate(canvas: canvas, output: output, kept: kept))
    }

    /// Whether `frame` is wider or higher than ImageMagick's limits allow one image.
    private func pastImageMagickSides(_ frame: ImageProperties) -> Bool {
        let process = ResourceLimits.current
        return frame.pixelWidth > process.width || frame.pixelHeight > process.height
    }

    /// What compositing costs at its peak: the decoder's canvas and its saved copy (giflib's
    /// "previous" disposal; libwebp's previous canvas), for a WebP the file held whole and a
    /// frame's own decode (a lossless frame: 5 bytes a pixel, as the still path counts it); the
    /// resampler's rows; the `kept` frames at `output` size (4 bytes a pixel), the encoder's few
    /// frames of state beside them when there are several; and the thumbnail's image.
    func compositedEstimate(canvas: (width: Int, height: Int), output: (width: Int, height: Int), kept: Int) -> DecodeEstimate {
        let canvasPixels = canvas.width.saturatingTimes(canvas.height)
        var decoder = canvasPixels.saturatingTimes(8)
        if format == .webp {
            decoder = decoder.saturatingPlus(canvasPixels.saturatingTimes(5)).saturatingPlus(bytes.count)
        }
        let frame = output.width.saturatingTimes(output.height).saturatingTimes(4)
        let held = frame.saturatingTimes(kept).saturatingPlus(kept > 1 ? frame.saturatingTimes(8) : 0)
        let total = decoder.saturatingPlus(held).saturatingPlus(DecodeEstimate.resizeBytes(from: canvas.width, to: output))
        var estimate = DecodeEstimate(format: format, header: header, width: canvas.width, height: canvas.height, jpegHint: nil)
        estimate.width = output.width
        estimate.height = output.height
        estimate.cacheBytes = output.width.saturatingTimes(output.height).saturatingTimes(8)
        estimate.bytes = total.saturatingPlus(total / 16).saturatingPlus(DecodeEstimate.fixedOverhead)
        return estimate
    }

    /// The animated thumbnail of an animation (``ThumbnailOptions/animated``), or nil when the
    /// file is not one the composited path animates (a still image, an EXIF-turned animation: the
    /// pipeline then makes a still thumbnail). Throws when the limits refuse it, when it was
    /// cancelled or ran past its time limit, and for a file the decoders refuse.
    func animatedThumbnail(_ request: ThumbnailRequest, at index: Int, allowUpscale: Bool, options: ThumbnailOptions,
                           interrupt: Interrupt?) throws(MagickIOError) -> Image? {
        let plan = try thumbnailSizes(request, at: index, allowUpscale: allowUpscale)
        guard let composite = compositedPlan(plan, at: index, options: options), composite.animated else { return nil }
        try checkLimits(stored: composite.canvas, composite.estimate, byImageMagick: false)
        return try animatedThumbnail(plan, composite, options: options, interrupt: interrupt)
    }

    /// Every frame composited, resampled and cropped to the thumbnail, one at a time.
    private func animatedThumbnail(_ plan: ThumbnailSizes, _ composite: CompositedPlan, options: ThumbnailOptions,
                                   interrupt: Interrupt?) throws(MagickIOError) -> Image {
        let size = plan.geometry.size
        let frameBytes = size.width * size.height * 4
        var pixels = [UInt8](repeating: 0, count: frameBytes.saturatingTimes(composite.frames))
        var delays: [Duration] = []
        var warnings: [String] = []
        let loopCount = try withCompositedFrames { (decoder) throws(MagickIOError) -> Int in
            try pixels.withUnsafeMutableBufferPointer { (buffer) throws(MagickIOError) in
                while delays.count < composite.frames {
                    try interrupt?.check()
                    let next: (canvas: UnsafePointer<UInt8>, delay: Duration)?
                    do throws(MagickIOError) {
                        next = try decoder.next()
                    } catch where decodingOptions.strictness == .acceptPartial && !delays.isEmpty {
                        warnings.append("\(error.message) (after \(delays.count) frames)")
                        break
                    }
                    guard let next else { break }
                    try FrameResize.resample(next.canvas, size: composite.canvas, to: plan.stored, crop: plan.geometry.crop,
                                             into: buffer.baseAddress! + delays.count * frameBytes, interrupt: interrupt)
                    delays.append(next.delay)
                }
            }
            return decoder.loopCount
        }
        if delays.count < composite.frames {
            let reason = "the animation ends after \(delays.count) of its \(composite.frames) frames"
            guard decodingOptions.strictness == .acceptPartial, !delays.isEmpty else { throw MagickIOError(.corruptImage, reason) }
            if warnings.isEmpty { warnings.append(reason) }
            pixels.removeLast(pixels.count - delays.count * frameBytes)
        }
        let animation = AnimationFrames(width: size.width, height: size.height, pixels: pixels, delays: delays, loopCount: loopCount)
        return try Self.withInterruptibleWand(interrupt) { wand, _ throws(MagickIOError) -> Image in
            try animation.withFrame(0) { (frame) throws(MagickIOError) in
                try wand.place(rgba: frame, width: size.width, height: size.height, alpha: frames[0].hasAlpha)
            }
            try wand.describe(format: format, resolution: nil)
            try Self.normalize(wand, options)
            var image = Image(wand: wand.clone(), orientation: .up, warnings: warnings, decoder: decoderName, animation: animation)
            // Every frame cut at the same window: the gravity's (a per-animation attention or
            // entropy window is not scored; see <doc:AnimatedThumbnails>).
            image.cropRect = plan.geometry.crop.map { plan.geometry.sourceRect(of: $0, in: plan.geometry.scaled) }
            return image
        }
    }

    /// Fills `wand` with frames 0...`index` composited, the last one resampled to the plan's size
    /// in stored axes (the pipeline's build half then orients, crops and normalises it), and
    /// returns the decoder's name; nil when giflib or libwebp call the file corrupt (ImageMagick's
    /// path, the next input, then decodes it).
    func fillComposited(_ plan: ThumbnailSizes, _ composite: CompositedPlan, at index: Int, into wand: Wand,
                        interrupt: Interrupt?) throws(MagickIOError) -> Image.Decoder? {
        let size = plan.stored
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
        do throws(MagickIOError) {
            try withCompositedFrames { (decoder) throws(MagickIOError) in
                for frame in 0...index {
                    try interrupt?.check()
                    guard let next = try decoder.next() else {
                        throw MagickIOError(.corruptImage, "the animation ends after \(frame) of its \(count) frames")
                    }
                    if frame == index {
                        try pixels.withUnsafeMutableBufferPointer { (buffer) throws(MagickIOError) in
                            try FrameResize.resample(next.canvas, size: composite.canvas, to: size, crop: nil,
                                                     into: buffer.baseAddress!, interrupt: interrupt)
                        }
                    }
                }
            }
        } catch where error.kind == .corruptImage {
            return nil
        }
        try pixels.withUnsafeBufferPointer { (buffer) throws(MagickIOError) in
            // An alpha channel, opaque or not, as ImageMagick's path composites an animation's
            // frame on a transparent canvas (``Wand/keepCompositedLastFrame()``).
            try wand.place(rgba: buffer.baseAddress!, width: size.width, height: size.height, alpha: true)
        }
        try wand.describe(format: format, resolution: frames[index].resolution)
        return decoderName
    }

    private var decoderName: Image.Decoder { format == .gif ? .giflib : .libwebp }
}
