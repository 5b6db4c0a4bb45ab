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
    ///    plain PNG, still WebP, TIFF, HEIC or AVIF streams its rows from libjpeg-turbo, libpng, libwebp
    ///    (shrunk as it decodes), libtiff or libheif into the resampler, never holding the image in ImageMagick's pixel cache (libheif holds a HEIF's
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

    /// The pipeline, in libvips' two halves: *open* (the plan and the inputs that may fill the
    /// picture) and *build* (resize, orient, crop, normalise), each called once. The walk, file by
    /// file, is in the DocC article <doc:ThumbnailPipeline>.
    func thumbnail(_ request: ThumbnailRequest, at index: Int, allowUpscale: Bool, options: ThumbnailOptions,
                   interrupt: Interrupt?) throws(MagickIOError) -> Image {
        // One clock for the whole call: the embedded thumbnail, the own decoders and ImageMagick's
        // read all count against the same time limit (an async call's starts when its work starts).
        let interrupt = interrupt ?? decodingOptions.timeLimit.map { Interrupt(timeLimit: $0) }
        if isolatesDecodes {
            return try DecodeWorkers.run(.thumbnail(request, index: index, allowUpscale: allowUpscale, options: options),
                                         source: self, interrupt: interrupt)
        }
        // An animated thumbnail (every frame of a GIF or WebP) is a pipeline of its own
        // (AnimatedThumbnail.swift): many pictures, each resampled as it is composited.
        if options.animated, let image = try animatedThumbnail(request, at: index, allowUpscale: allowUpscale, options: options,
                                                               interrupt: interrupt) {
            return image
        }
        let plan = try thumbnailPlan(request, at: index, allowUpscale: allowUpscale, options: options)
        return try Self.makeThumbnail(plan, options: options, interrupt: interrupt)
    }

    /// The runner: fills the picture from the first of the plan's inputs that gives one, and builds
    /// the thumbnail from it; the one place that holds the wand, runs under the interrupt, reserves
    /// ImageMagick's pixel cache (``AdmissionGate``) and goes on to the next input. An input the plan
    /// found over the limits is passed over with its refusal, never checked again.
    static func makeThumbnail(_ plan: ThumbnailPlan, options: ThumbnailOptions,
                              interrupt: Interrupt?) throws(MagickIOError) -> Image {
        try withInterruptibleWand(interrupt) { wand, interrupt throws(MagickIOError) -> Image in
            var pictureInput: DecoderInput?
            for (input, refusal) in zip(plan.inputs, plan.refusals) {
                do throws(MagickIOError) {
                    if let refusal { throw refusal }
                    let admission = try input.admit(options, pictureInput: &pictureInput)
                    let attempt = { (idleCore: Bool) throws(MagickIOError) -> Image? in
                        wand.clear(monitor: interrupt)
                        let wandless = WandlessThumbnail.prepare(input, options: options)
                        guard let picture = try input.fill(wand, admission, options: options, wandless: wandless,
                                                           interrupt: interrupt, idleCore: idleCore) else { return nil }
                        if let wandless, wandless.isFilled {
                            return wandless.image(warnings: picture.warnings.map(\.message), decoder: picture.decoder)
                        }
                        wand.monitor(interrupt)  // the picture the fill made
                        return try buildThumbnail(wand, picture, options: options)
                    }
                    if let image = try AdmissionGate.shared.admitting(admission.cacheBytes, interrupt: interrupt, attempt) {
                        return image
                    }
                } catch {
                    // A carried thumbnail that fails is a missed shortcut (``ThumbnailFill/isShortcut``).
                    guard input.isShortcut, error.kind != .cancelled else { throw error }
                }
            }
            throw MagickIOError(.corruptImage, "no decoder gave the picture")
        }
    }

    /// The build half, on the picture a ``ThumbnailFill`` filled the wand with (and on
    /// ``WandlessThumbnail``'s template picture).
    static func buildThumbnail(_ wand: Wand, _ picture: ThumbnailFill.Picture,
                                       options: ThumbnailOptions) throws(MagickIOError) -> Image {
        let stored = picture.stored
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
        try wand.applyOrientation(picture.orientation)

        // 6. Crop (``SizingMode/fill``), in the upright axes, where `options.crop` says: at the
        //    gravity, or at the window SmartCrop picks on this resized picture.
        let cropRect = try wand.cropThumbnail(picture.geometry, options.crop)

        // 7. Normalise: sRGB, 8 bits per channel, metadata as the options say.
        try normalize(wand, options)
        var image = Image(wand: wand.clone(), orientation: .up, warnings: picture.warnings.map(\.message), decoder: picture.decoder)
        image.cropRect = cropRect
        return image
    }
}

/// The thumbnail size arithmetic, in the axes a viewer sees, kept apart so it can be tested on
/// its own: the size the whole image is scaled to, and the region of it that is kept.
struct ThumbnailGeometry: Sendable {
    /// The whole image, scaled.
    var scaled: (width: Int, height: Int)
    /// The region of the scaled image kept (``SizingMode/fill`` only).
    var crop: Crop?
    /// The picture's own size, upright (what ``scaled`` scales).
    var source: (width: Int, height: Int)

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
        source = (width, height)
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

extension ImageSource {
    /// The build's last step: sRGB (unless the profile is kept), 8 bits per channel, metadata as
    /// `options` say.
    static func normalize(_ wand: Wand, _ options: ThumbnailOptions) throws(MagickIOError) {
        let embeddedProfile = wand.profile("icc")
        if options.colorProfile == .convertToSRGB {
            try wand.convertToSRGB()
        }
        try wand.apply(options.metadata)
        if options.colorProfile == .keep, options.metadata == .stripAll, let embeddedProfile {
            try wand.setProfile("icc", embeddedProfile)
        }
        try wand.setDepth(8)
    }
}
