internal import CMagickCompat
internal import CMagickWand

extension Wand {
    /// The current image's pixels, 8 bits per channel, in `layout`, rows packed
    /// (`MagickExportImagePixels`); an image in another colour space (CMYK, YCbCr) is converted to
    /// sRGB first (the image is changed: call on a copy).
    func exportPixels(_ layout: PixelBuffer.Layout, width: Int, height: Int) throws(MagickIOError) -> [UInt8] {
        // Export maps channels by name, not meaning: a YCbCr image (ImageMagick's HEIC coder
        // returns one) or a CMYK one would come out as its raw planes.
        if !exportsAsRGB {
            try check(MagickTransformImageColorspace(pointer, sRGBColorspace), fallback: .corruptImage)
        }
        // Export reads the opacity channel even of an image without alpha, and some coders
        // (ImageMagick's HEIC) leave it unset there: such an image is opaque.
        if layout.map.contains("A"), !hasAlpha {
            try check(MagickSetImageAlphaChannel(pointer, OpaqueAlphaChannel), fallback: .corruptImage)
        }
        var bytes = [UInt8](repeating: 0, count: width * layout.bytesPerPixel * height)
        let status = bytes.withUnsafeMutableBytes { MagickExportImagePixels(pointer, 0, 0, width, height, layout.map, CharPixel, $0.baseAddress) }
        try check(status, fallback: .corruptImage)
        return bytes
    }

    /// The pixels of the current image on a grid, every `step.x`-th of every `step.y`-th row, as
    /// 8-bit RGBA into `grid` (rows packed; opaque where the image has no alpha), read a row at a
    /// time without changing the image; false (nothing read) when the image is not RGB or grey,
    /// whose channels the export would give raw.
    func exportGrid(step: (x: Int, y: Int), into grid: UnsafeMutableBufferPointer<UInt8>) throws(MagickIOError) -> Bool {
        guard exportsAsRGB else { return false }
        let width = self.width, height = self.height
        let alpha = hasAlpha
        let channels = alpha ? 4 : 3
        var row = [UInt8](repeating: 0, count: width * channels)
        var out = 0
        for y in stride(from: 0, to: height, by: step.y) {
            let read = row.withUnsafeMutableBytes { raw in
                MagickExportImagePixels(pointer, 0, y, width, 1, alpha ? "RGBA" : "RGB", CharPixel, raw.baseAddress)
            }
            try check(read, fallback: .corruptImage)
            for x in stride(from: 0, to: width, by: step.x) where out + 4 <= grid.count {
                let p = x * channels
                grid[out] = row[p]
                grid[out + 1] = row[p + 1]
                grid[out + 2] = row[p + 2]
                grid[out + 3] = alpha ? row[p + 3] : 255
                out += 4
            }
        }
        return true
    }

    /// Point-samples the current image to `width` x `height` (`MagickSampleImage`: each output
    /// pixel is one input pixel, no filtering), reading only the rows it picks.
    func sample(toWidth width: Int, height: Int) throws(MagickIOError) {
        try check(MagickSampleImage(pointer, width, height), fallback: .corruptImage)
    }

    /// Adds copies of `other`'s images after this wand's (`MagickAddImage`; the pixel cache is
    /// shared copy-on-write) and makes the first image current.
    func addImages(of other: Wand) throws(MagickIOError) {
        try check(MagickAddImage(pointer, other.pointer), fallback: .corruptImage)
        guard imageCount > 0 else {
            throw MagickIOError(.corruptImage, "copying the image gave an empty wand")
        }
        rewind()
    }

    /// Makes the first image current.
    func rewind() {
        MagickSetFirstIterator(pointer)
    }

    /// Whether an export by channel name gives the current image's colours: an RGB or grey image
    /// (a CMYK or YCbCr one would come out as its raw planes).
    var exportsAsRGB: Bool {
        [sRGBColorspace, RGBColorspace, GRAYColorspace].contains(MagickGetImageColorspace(pointer))
    }

    /// Whether the current image has an alpha channel.
    var hasAlpha: Bool {
        MagickGetImageAlphaChannel(pointer) != MagickFalse
    }

    /// Composes an image from `width` x `height` packed pixels in `map` order ("RGB", "RGBA"; an
    /// A gives it alpha), of 8 bits a sample or, with `sixteenBits`, 16, in `colorspace`, into
    /// this wand, which must hold no image: as `MagickConstituteImage` makes it, but an image
    /// ImageMagick cannot make throws (``cmc_constitute_image``), where 6 would end the process.
    func constitute(width: Int, height: Int, map: String, sixteenBits: Bool = false, colorspace: ColorspaceType = sRGBColorspace,
                    pixels: UnsafeRawPointer) throws(MagickIOError) {
        try making(width, height) { reason, size in
            cmc_constitute_image(pointer, width, height, map, sixteenBits ? ShortPixel : CharPixel, pixels, colorspace, reason, size)
        }
    }

    /// Runs `make`, a CMagickCompat call that makes a `width` x `height` image and writes
    /// ImageMagick's reason into the buffer it is given when it cannot; that failure is thrown.
    func making(_ width: Int, _ height: Int,
                _ make: (_ reason: UnsafeMutablePointer<CChar>, _ size: Int) -> MagickBooleanType) throws(MagickIOError) {
        let reason = UnsafeMutablePointer<CChar>.allocate(capacity: 512)
        defer { reason.deallocate() }
        guard make(reason, 512) != MagickFalse else {
            throw MagickIOError(.corruptImage, "ImageMagick could not make a \(width)x\(height) image: \(String(cString: reason))")
        }
    }
}
