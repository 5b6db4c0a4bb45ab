extension ImageSource {
    /// An upright thumbnail of frame `index` whose longest side is `maxPixelSize`, or the image's
    /// own size when it is smaller (no upscaling unless `allowUpscale`).
    ///
    /// ```swift
    /// let thumb = try ImageSource(url: photo).thumbnail(maxPixelSize: 256)  // 3000x2000 -> 256x171
    /// ```
    ///
    /// One pipeline, each step in order:
    /// 1. the fitted size from the header (``properties(at:)``), in oriented axes;
    /// 2. shrink-on-load: JPEG is decoded at the smallest DCT scale that still gives twice the
    ///    target on each axis (aspect-aware, axes swapped for EXIF 5-8);
    /// 3. a Lanczos-3 resize to the exact size: MagickIO's own streaming resampler for RGB images
    ///    (the same filter as Pillow's and libvips'), `MagickResizeImage` for the rest. A JPEG,
    ///    plain PNG, still WebP, HEIC or AVIF streams its rows from libjpeg-turbo, libpng, libwebp
    ///    (shrunk as it decodes) or libheif into the resampler, never holding the image in ImageMagick's pixel cache (libheif holds a HEIF's
    ///    decoded picture); ImageMagick's coders decode everything else;
    /// 4. the orientation applied to the small image;
    /// 5. sRGB (an embedded ICC profile applied through Little CMS, CMYK included), 8 bits per
    ///    channel, every profile and comment stripped; alpha kept.
    ///
    /// `options` can let a camera's embedded thumbnail serve instead, keep the colour profile, or
    /// keep metadata (see ``ThumbnailOptions``).
    ///
    /// - Throws: ``MagickIOError`` of kind `frameOutOfRange`, `corruptImage` or `limitExceeded`.
    public func thumbnail(maxPixelSize: Int, at index: Int = 0, allowUpscale: Bool = false,
                          options: ThumbnailOptions = ThumbnailOptions()) throws -> Image {
        try thumbnail(.maxPixelSize(maxPixelSize), at: index, allowUpscale: allowUpscale, options: options, interrupt: nil)
    }

    /// A thumbnail sized into `size` by `mode` (see ``SizingMode``), upright, made by the same
    /// pipeline as `thumbnail(maxPixelSize:at:allowUpscale:options:)`; ``SizingMode/fill`` crops at
    /// `gravity` after turning the image upright.
    ///
    /// ```swift
    /// let square = try source.thumbnail(size: ImageSize(width: 200, height: 200), mode: .fill)
    /// let banner = try source.thumbnail(size: ImageSize(width: 1200, height: 0), mode: .fit)
    /// ```
    ///
    /// Stands on MagickIO's resampler (or `MagickResizeImage`) and `MagickCropImage`.
    ///
    /// - Throws: ``MagickIOError`` of kind `frameOutOfRange`, `corruptImage` or `limitExceeded`.
    public func thumbnail(size: ImageSize, mode: SizingMode = .fit, gravity: Gravity = .center, at index: Int = 0,
                          allowUpscale: Bool = false, options: ThumbnailOptions = ThumbnailOptions()) throws -> Image {
        try thumbnail(.box(size, mode, gravity), at: index, allowUpscale: allowUpscale, options: options, interrupt: nil)
    }

    /// The pipeline, in libvips' two halves: *open* (plan, the embedded shortcut, the decode at
    /// the shrink-on-load scale) and *build* (resize, orient, crop, normalise).
    func thumbnail(_ request: ThumbnailRequest, at index: Int, allowUpscale: Bool, options: ThumbnailOptions,
                   interrupt: Interrupt?) throws(MagickIOError) -> Image {
        // 1. Plan: the size in the axes a viewer sees, the resize target in the stored axes, and
        //    the JPEG shrink-on-load hint, all from the header.
        let plan = try thumbnailPlan(request, at: index, allowUpscale: allowUpscale)

        // 2. The embedded shortcut: a thumbnail the file carries, when the options let it serve.
        if options.embedded != .never, index == 0,
           let embedded = try thumbnailFromEmbedded(request, allowUpscale: allowUpscale, options: options, interrupt: interrupt) {
            return embedded
        }

        // 3. Decode at the shrink-on-load scale (checked against the limits first): a JPEG, a
        //    plain PNG, a still WebP, a HEIC or an AVIF streams its rows from libjpeg-turbo,
        //    libpng, libwebp or libheif straight into the resampler, and what those decoders leave to it is decoded whole.
        //    One interrupt for both, so that a time limit covers the two together.
        //    Both read the file without the metadata the thumbnail drops when it carries more than
        //    the limits allow, and refuse it when the thumbnail keeps it.
        //    The cost limits come first: a file they refuse is never walked or copied.
        let interrupt = interrupt ?? decodingOptions.timeLimit.map { Interrupt(timeLimit: $0) }
        // An animated GIF or WebP: its frames composited one at a time (AnimatedThumbnail.swift).
        if let image = try compositedThumbnail(plan, at: index, options: options, interrupt: interrupt) { return image }
        let stream = streamPlan(plan, at: index, options: options)
        if let stream { try checkLimits(stream) } else { try checkLimits(frame: index, jpegHint: plan.hint) }
        let input = try decoderInput(keeping: MetadataUse(options))
        if let stream,
           let image = try streamedThumbnail(plan, stream, from: input, orientation: frames[index].orientation,
                                             options: options, interrupt: interrupt) {
            return image
        }
        return try withDecoded(frame: index, jpegHint: plan.hint, interrupt: interrupt, input: input) { wand, warnings throws(MagickIOError) in
            try Self.buildThumbnail(wand, plan.geometry, stored: plan.stored, orientation: frames[index].orientation,
                               options: options, warnings: warnings)
        }
    }

    /// The build half of the pipeline, on a decoded image (the picture, an embedded thumbnail, or
    /// an image's own pixels for its ThumbHash).
    static func buildThumbnail(_ wand: Wand, _ geometry: ThumbnailGeometry, stored: (width: Int, height: Int),
                        orientation: Orientation, options: ThumbnailOptions,
                        warnings: [DecoderWarning], decoder: Image.Decoder = .imageMagick) throws(MagickIOError) -> Image {
        // 4. Resize to the target in the stored axes: MagickIO's streaming Lanczos-3 resampler
        //    for RGB images, ImageMagick's Lanczos (MagickResizeImage) for grey, CMYK and YCbCr.
        if wand.width != stored.width || wand.height != stored.height {
            if wand.isRGB {
                try wand.resample(toWidth: stored.width, height: stored.height)
            } else {
                try wand.resizeWithImageMagick(toWidth: stored.width, height: stored.height)
            }
        }

        // 5. Orient: turn the small image upright.
        try wand.applyOrientation(orientation)

        // 6. Crop (``SizingMode/fill``), in the upright axes.
        if let crop = geometry.crop {
            try wand.crop(crop)
        }

        // 7. Normalise: sRGB, 8 bits per channel, metadata as the options say.
        try wand.normalizeForThumbnail(options)
        return Image(wand: wand.clone(), orientation: .up, warnings: warnings.map(\.message), decoder: decoder)
    }
}

/// A thumbnail's sizes: the geometry in oriented axes, the resize target in stored axes, and the
/// JPEG shrink-on-load hint for ImageMagick's decoder.
typealias ThumbnailPlan = (geometry: ThumbnailGeometry, stored: (width: Int, height: Int), hint: JPEGScale.Hint?)

/// What a thumbnail is asked to be.
enum ThumbnailRequest: Sendable, Hashable {
    /// The longest side, the image fitted into a square of it.
    case maxPixelSize(Int)
    /// A box, a mode and, for ``SizingMode/fill``, a gravity.
    case box(ImageSize, SizingMode, Gravity)

    /// The geometry for an image shown as `width` x `height`.
    func geometry(width: Int, height: Int, allowUpscale: Bool) -> ThumbnailGeometry {
        switch self {
        case .maxPixelSize(let side):
            let side = max(side, 1)
            return ThumbnailGeometry(width: width, height: height, box: ImageSize(width: side, height: side),
                                     mode: .fit, gravity: .center, allowUpscale: allowUpscale)
        case .box(let size, let mode, let gravity):
            return ThumbnailGeometry(width: width, height: height, box: size, mode: mode, gravity: gravity,
                                     allowUpscale: allowUpscale)
        }
    }
}

extension ImageSource {
    /// The sizes a thumbnail of frame `index` works with: the geometry in oriented axes, the resize
    /// target in stored axes (the pixels are resized before they are turned) and the JPEG
    /// shrink-on-load hint.
    func thumbnailPlan(_ request: ThumbnailRequest, at index: Int, allowUpscale: Bool) throws(MagickIOError) -> ThumbnailPlan {
        try checkFrame(index)
        let header = frames[index]
        let geometry = request.geometry(width: header.orientedWidth, height: header.orientedHeight, allowUpscale: allowUpscale)
        let stored = geometry.stored(turnedBy: header.orientation)
        let hint = format == .jpeg
            ? JPEGScale.hint(width: header.pixelWidth, height: header.pixelHeight, target: stored)
            : nil
        return (geometry, stored, hint)
    }

    /// The predicted bytes of that thumbnail, from the header alone, after the source's own limits
    /// (``DecodingOptions``) have let it through: the decode's estimate and the resize's, or the
    /// own path's (``streamPlan(_:at:options:)``) where the header lets the thumbnail go that way.
    func thumbnailCost(_ request: ThumbnailRequest, at index: Int, allowUpscale: Bool,
                       options: ThumbnailOptions = ThumbnailOptions()) throws(MagickIOError) -> Int {
        let plan = try thumbnailPlan(request, at: index, allowUpscale: allowUpscale)
        if let composite = compositedPlan(plan, at: index, options: options) {
            try checkLimits(stored: composite.canvas, composite.estimate, byImageMagick: false)
            return composite.estimate.bytes
        }
        if let stream = streamPlan(plan, at: index, options: options) {
            try checkLimits(stream)
            return stream.estimate.bytes
        }
        try checkLimits(frame: index, jpegHint: plan.hint)
        return thumbnailEstimate(plan, at: index)
    }

    func thumbnailEstimate(_ plan: ThumbnailPlan, at index: Int) -> Int {
        let decode = estimate(frame: index, jpegHint: plan.hint)
        return decode.bytes.saturatingPlus(DecodeEstimate.resizeBytes(from: decode.width, to: plan.stored))
    }
}

/// The thumbnail size arithmetic, in the axes a viewer sees, kept apart so it can be tested on
/// its own: the size the whole image is scaled to, and the region of it that is kept.
struct ThumbnailGeometry: Sendable {
    /// The whole image, scaled.
    var scaled: (width: Int, height: Int)
    /// The region of the scaled image kept (``SizingMode/fill`` only).
    var crop: Crop?

    struct Crop: Sendable, Hashable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    /// The final size.
    var size: (width: Int, height: Int) {
        crop.map { ($0.width, $0.height) } ?? scaled
    }

    /// ``scaled`` in the axes of pixels still to be turned by `orientation`: the resize comes
    /// before the turn.
    func stored(turnedBy orientation: Orientation) -> (width: Int, height: Int) {
        orientation.swapsWidthAndHeight ? (scaled.height, scaled.width) : scaled
    }

    init(width: Int, height: Int, box: ImageSize, mode: SizingMode, gravity: Gravity, allowUpscale: Bool) {
        let width = max(width, 1), height = max(height, 1)
        // Claimed sizes are untrusted: keep every side within a range the limits can then refuse.
        func round(_ value: Double) -> Int { max(1, Int(min(value.rounded(), Double(1 << 40)))) }
        let boxWidth = max(box.width, 0), boxHeight = max(box.height, 0)
        // A free side: fit to the other one, whatever the mode.
        guard boxWidth > 0, boxHeight > 0 else {
            var scale = 1.0
            if boxWidth > 0 { scale = Double(boxWidth) / Double(width) }
            if boxHeight > 0 { scale = Double(boxHeight) / Double(height) }
            if !allowUpscale { scale = min(scale, 1) }
            scaled = (boxWidth > 0 && scale * Double(width) == Double(boxWidth) ? boxWidth : round(Double(width) * scale),
                      boxHeight > 0 && scale * Double(height) == Double(boxHeight) ? boxHeight : round(Double(height) * scale))
            return
        }
        let across = Double(boxWidth) / Double(width), down = Double(boxHeight) / Double(height)
        switch mode {
        case .fit:
            let scale = allowUpscale ? min(across, down) : min(across, down, 1)
            // The side that decides the scale lands exactly on the box.
            scaled = (scale == across ? boxWidth : round(Double(width) * scale),
                      scale == down ? boxHeight : round(Double(height) * scale))
            if scale == 1 { scaled = (width, height) }
        case .exact:
            scaled = allowUpscale ? (boxWidth, boxHeight) : (min(boxWidth, width), min(boxHeight, height))
        case .fill:
            var scale = max(across, down)
            var target = (width: boxWidth, height: boxHeight)
            if !allowUpscale, scale > 1 {
                // Keep the box's shape: the largest region of that shape the image has, unscaled.
                scale = 1
                let shape = Double(boxWidth) / Double(boxHeight)
                target = (min(width, round(Double(height) * shape)), min(height, round(Double(width) / shape)))
            }
            scaled = scale == 1 ? (width, height)
                : (scale == across ? boxWidth : round(Double(width) * scale),
                   scale == down ? boxHeight : round(Double(height) * scale))
            let anchor = gravity.anchor
            let cropWidth = min(target.width, scaled.width), cropHeight = min(target.height, scaled.height)
            crop = Crop(x: Int((Double(scaled.width - cropWidth) * anchor.x).rounded()),
                        y: Int((Double(scaled.height - cropHeight) * anchor.y).rounded()),
                        width: cropWidth, height: cropHeight)
            if crop == Crop(x: 0, y: 0, width: scaled.width, height: scaled.height) { crop = nil }
        }
    }
}

