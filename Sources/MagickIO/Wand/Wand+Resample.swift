internal import CMagickCompat
internal import CMagickWand
import Foundation

extension Wand {
    /// Resizes the current image, which must be RGB (``isRGB``), to `outputWidth` x `outputHeight`
    /// with ``Resampler``. The image keeps its profiles and properties.
    func resample(toWidth outputWidth: Int, height outputHeight: Int) throws(MagickIOError) {
        let inputWidth = width, inputHeight = height
        guard isRGB, let image = GetImageFromMagickWand(pointer), outputWidth > 0, outputHeight > 0, inputWidth > 0,
              inputHeight > 0 else {
            throw MagickIOError(.corruptImage, "the resampler takes a non-empty RGB image, not this one")
        }
        // Without alpha, three channels: such an image may hold anything in its opacity (and
        // ImageMagick 6 does not pad with P alike in export and import).
        let hasAlpha = MagickGetImageAlphaChannel(pointer) != MagickFalse
        let map = hasAlpha ? "RGBA" : "RGB"
        let channels = hasAlpha ? 4 : 3
        // The result's image first, the cheapest way (MagickSampleImage on a copy-on-write clone
        // of the current image), so that it has the image's profiles, properties and page; each
        // output row is imported into it as it is finished.
        guard let current = MagickGetImage(pointer) else {
            throw MagickIOError(exception: takeException(minimum: ErrorException), fallback: .corruptImage)
        }
        let result = Wand(adopting: current)
        try result.check(MagickSampleImage(result.pointer, outputWidth, outputHeight), fallback: .corruptImage)

        try Resampler.stream(
            input: (inputWidth, inputHeight), output: (outputWidth, outputHeight), channels: channels,
            read: { (y, row) throws(MagickIOError) in
                guard MagickExportImagePixels(pointer, 0, y, inputWidth, 1, map, FloatPixel, row) != MagickFalse else {
                    throw MagickIOError(exception: takeException(minimum: ErrorException), fallback: .corruptImage)
                }
            },
            write: { (y, row) throws(MagickIOError) in try result.importRow(y, row, map: map) },
            progress: { (y, rows) throws(MagickIOError) in
                // The wand's progress monitor (an Interrupt's cancel or deadline) may stop it here.
                if SetImageProgress(image, "Resample/Image", MagickOffsetType(y), MagickSizeType(rows)) == MagickFalse {
                    throw MagickIOError(.cancelled, "the resize was stopped")
                }
            })
        // The result takes the image's place in this wand.
        try check(MagickSetImage(pointer, result.pointer), fallback: .corruptImage)
    }

    /// Writes `row` (`width` pixels of floats in `map` order) as row `y` of the current image: an
    /// RGB or RGBA row straight into the pixel cache (``cmc_import_float_row``, the quanta
    /// `MagickImportImagePixels` makes, at a fraction of its cost a sample), anything else, or a row
    /// that cannot be written so, by `MagickImportImagePixels`.
    func importRow(_ y: Int, _ row: UnsafeMutablePointer<Float>, map: String) throws(MagickIOError) {
        if map == "RGB" || map == "RGBA", cmc_import_float_row(pointer, y, width, map.utf8.count, row) != MagickFalse { return }
        try check(MagickImportImagePixels(pointer, 0, y, width, 1, map, FloatPixel, row), fallback: .corruptImage)
    }

    /// Replaces whatever the wand holds with one new `width` x `height` image in sRGB, black, to be
    /// filled row by row with ``importRow(_:_:map:)``. With `alpha`, it has an alpha channel
    /// (SetAlphaChannel, on ImageMagick 6 and 7 alike). The image is `MagickNewImage`'s, made
    /// 1x1, then given its size and zeroed (``cmc_set_image_extent``): at its size, MagickNewImage
    /// would paint every pixel, one at a time, before the rows are written over them.
    func newImage(width: Int, height: Int, alpha: Bool) throws(MagickIOError) {
        ClearMagickWand(pointer)
        let black = NewPixelWand()
        defer { DestroyPixelWand(black) }
        PixelSetColor(black, "black")
        try check(MagickNewImage(pointer, 1, 1, black), fallback: .corruptImage)
        if alpha {
            try check(MagickSetImageAlphaChannel(pointer, SetAlphaChannel), fallback: .corruptImage)
        }
        try making(width, height) { reason, size in cmc_set_image_extent(pointer, width, height, reason, size) }
    }

    /// Names the current image's format (`MagickSetImageFormat`) and resolution in pixels per
    /// inch, as ImageMagick's coder would have for an image MagickIO decoded itself.
    func describe(format: ImageFormat, resolution: ImageProperties.Resolution?) throws(MagickIOError) {
        try check(MagickSetImageFormat(pointer, format.rawValue.uppercased()), fallback: .corruptImage)
        if let resolution {
            try check(MagickSetImageResolution(pointer, resolution.x, resolution.y), fallback: .corruptImage)
            try check(MagickSetImageUnits(pointer, PixelsPerInchResolution), fallback: .corruptImage)
        }
    }
}
