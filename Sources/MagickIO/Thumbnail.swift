import CMagickWand

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
    /// 2. shrink-on-load: JPEG is decoded at the smallest DCT scale that still gives about twice
    ///    the target on each axis (`jpeg:size`, aspect-aware, axes swapped for EXIF 5-8);
    /// 3. `MagickResizeImage` with a Lanczos filter to the exact size;
    /// 4. the orientation applied to the small image;
    /// 5. sRGB (CMYK included), 8 bits per channel, every profile and comment stripped; alpha kept.
    ///
    /// - Throws: ``MagickIOError`` of kind `frameOutOfRange`, `corruptImage` or `limitExceeded`.
    public func thumbnail(maxPixelSize: Int, at index: Int = 0, allowUpscale: Bool = false) throws(MagickIOError) -> Image {
        try thumbnail(maxPixelSize: maxPixelSize, at: index, allowUpscale: allowUpscale, interrupt: nil)
    }

    func thumbnail(maxPixelSize: Int, at index: Int, allowUpscale: Bool, interrupt: Interrupt?) throws(MagickIOError) -> Image {
        let plan = try thumbnailPlan(maxPixelSize: maxPixelSize, at: index, allowUpscale: allowUpscale)
        let (header, stored, hint) = (frames[index], plan.stored, plan.hint)
        return try withDecoded(frame: index, jpegHint: hint, interrupt: interrupt) { wand throws(MagickIOError) in
            if wand.width != stored.width || wand.height != stored.height {
                try wand.check(MagickResizeImage(wand.pointer, stored.width, stored.height, LanczosFilter, 1.0), fallback: .corruptImage)
            }
            try wand.applyOrientation(header.orientation)
            try wand.normalizeForThumbnail()
            return Image(wand: wand.clone(), orientation: .up)
        }
    }
}

extension ImageSource {
    /// The sizes a thumbnail of frame `index` works with: the target in stored axes (the pixels are
    /// resized before they are turned) and the JPEG shrink-on-load hint.
    func thumbnailPlan(maxPixelSize: Int, at index: Int, allowUpscale: Bool) throws(MagickIOError)
        -> (stored: (width: Int, height: Int), hint: JPEGScale.Hint?) {
        try checkFrame(index)
        let header = frames[index]
        let target = ThumbnailGeometry.fitted(
            width: header.orientedWidth, height: header.orientedHeight,
            maxPixelSize: maxPixelSize, allowUpscale: allowUpscale)
        let stored = header.orientation.swapsWidthAndHeight ? (width: target.height, height: target.width) : target
        let hint = format == .jpeg
            ? JPEGScale.hint(width: header.pixelWidth, height: header.pixelHeight, target: stored)
            : nil
        return (stored, hint)
    }

    /// The predicted bytes of that thumbnail's decode, from the header alone, after the source's
    /// own limits (``DecodingOptions``) have let it through.
    func thumbnailCost(maxPixelSize: Int, at index: Int, allowUpscale: Bool) throws(MagickIOError) -> Int {
        let plan = try thumbnailPlan(maxPixelSize: maxPixelSize, at: index, allowUpscale: allowUpscale)
        try checkLimits(frame: index, jpegHint: plan.hint)
        return estimate(frame: index, jpegHint: plan.hint).bytes
    }
}

/// The thumbnail size arithmetic, kept apart so it can be tested on its own.
enum ThumbnailGeometry {
    /// Scale = max / longest side; each side rounded to nearest and at least 1. A `maxPixelSize`
    /// below 1 is taken as 1.
    static func fitted(width: Int, height: Int, maxPixelSize: Int, allowUpscale: Bool) -> (width: Int, height: Int) {
        let longest = max(width, height)
        let maxPixelSize = max(maxPixelSize, 1)
        guard longest > 0 else { return (1, 1) }
        if longest <= maxPixelSize, !allowUpscale { return (width, height) }
        let scale = Double(maxPixelSize) / Double(longest)
        func side(_ length: Int) -> Int {
            length == longest ? maxPixelSize : max(1, Int((Double(length) * scale).rounded()))
        }
        return (side(width), side(height))
    }
}

extension Wand {
    /// sRGB, 8 bits per channel, no metadata: what every thumbnail is.
    func normalizeForThumbnail() throws(MagickIOError) {
        let colorspace = MagickGetImageColorspace(pointer)
        if colorspace != sRGBColorspace, colorspace != GRAYColorspace {
            try check(MagickTransformImageColorspace(pointer, sRGBColorspace), fallback: .corruptImage)
        }
        try check(MagickStripImage(pointer), fallback: .corruptImage)
        try check(MagickSetImageDepth(pointer, 8), fallback: .corruptImage)
    }
}
