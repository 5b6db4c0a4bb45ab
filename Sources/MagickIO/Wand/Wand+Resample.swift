internal import CMagickWand
import Foundation

extension Wand {
    /// Resizes the current image to `outputWidth` x `outputHeight` with ``Resampler``; false, with
    /// the image untouched, when the image is not RGB (CMYK, grey, YCbCr and the like go through
    /// `MagickResizeImage`). The image keeps its profiles and properties.
    func resample(toWidth outputWidth: Int, height outputHeight: Int) throws(MagickIOError) -> Bool {
        let colorspace = MagickGetImageColorspace(pointer)
        guard colorspace == sRGBColorspace || colorspace == RGBColorspace,
              let image = GetImageFromMagickWand(pointer), outputWidth > 0, outputHeight > 0 else { return false }
        let inputWidth = width, inputHeight = height
        guard inputWidth > 0, inputHeight > 0 else { return false }
        // Without alpha, three channels: such an image may hold anything in its opacity (and
        // ImageMagick 6 does not pad with P alike in export and import).
        let hasAlpha = MagickGetImageAlphaChannel(pointer) != MagickFalse
        let map = hasAlpha ? "RGBA" : "RGB"
        let channels = hasAlpha ? 4 : 3
        let across = Resampler.Taps(from: inputWidth, to: outputWidth)
        let down = Resampler.Taps(from: inputHeight, to: outputHeight)
        let pending = down.mostOpenAtOnce(inputCount: inputHeight)

        // The result's image first, the cheapest way (MagickSampleImage on a copy-on-write clone
        // of the current image), so that it has the image's profiles, properties and page; each
        // output row is imported into it as it is finished.
        guard let current = MagickGetImage(pointer) else {
            throw MagickIOError(exception: takeException(minimum: ErrorException), fallback: .corruptImage)
        }
        let result = Wand(adopting: current)
        try result.check(MagickSampleImage(result.pointer, outputWidth, outputHeight), fallback: .corruptImage)

        // Down first, then across, one source row at a time: each row is added, weighted, into
        // the sums of the output rows whose windows hold it (a few when reducing: about seven);
        // an output row whose window is complete is filtered across and imported. The sums run
        // over whole contiguous rows, which vectorises; the horizontal filter runs on output rows
        // only; memory is `pending` rows whatever the reduction. Floats, `channels` a pixel.
        let inputRow = inputWidth * channels
        let row = UnsafeMutablePointer<Float>.allocate(capacity: inputRow)
        // One float to spare after each sum: see filterAcross.
        let sums = UnsafeMutablePointer<Float>.allocate(capacity: pending * (inputRow + 1))
        sums.initialize(repeating: 0, count: pending * (inputRow + 1))
        let output = UnsafeMutablePointer<Float>.allocate(capacity: outputWidth * channels)
        defer {
            row.deallocate()
            sums.deallocate()
            output.deallocate()
        }
        func sum(_ y: Int) -> UnsafeMutablePointer<Float> { sums + (y % pending) * (inputRow + 1) }

        let lastRow = zip(down.first, down.count).map { $0 + $1 }.max() ?? inputHeight
        var opened = 0, finished = 0
        for sourceRow in 0..<lastRow {
            guard MagickExportImagePixels(pointer, 0, sourceRow, inputWidth, 1, map, FloatPixel, row) != MagickFalse else {
                throw MagickIOError(exception: takeException(minimum: ErrorException), fallback: .corruptImage)
            }
            if hasAlpha {
                Self.premultiply(row, pixels: inputWidth)
            }
            while opened < outputHeight, down.first[opened] <= sourceRow {
                sum(opened).update(repeating: 0, count: inputRow)
                opened += 1
            }
            for y in finished..<opened where sourceRow < down.first[y] + down.count[y] {
                Self.addWeighted(row, down.weights[y * down.span + sourceRow - down.first[y]], into: sum(y), length: inputRow)
            }
            while finished < opened, down.first[finished] + down.count[finished] <= sourceRow + 1 {
                Self.filterAcross(sum(finished), into: output, taps: across, width: outputWidth, channels: channels)
                Self.finish(output, pixels: outputWidth, channels: channels)
                try result.check(MagickImportImagePixels(result.pointer, 0, finished, outputWidth, 1, map, FloatPixel, output),
                                 fallback: .corruptImage)
                finished += 1
            }
            // The wand's progress monitor (an Interrupt's cancel or deadline) may stop it here.
            if sourceRow % 16 == 15,
               SetImageProgress(image, "Resample/Image", MagickOffsetType(sourceRow), MagickSizeType(lastRow)) == MagickFalse {
                throw MagickIOError(.cancelled, "the resize was stopped")
            }
        }
        guard finished == outputHeight else {
            throw MagickIOError(.corruptImage, "the resampler finished \(finished) of \(outputHeight) rows")
        }
        // The result takes the image's place in this wand.
        try check(MagickSetImage(pointer, result.pointer), fallback: .corruptImage)
        return true
    }

    // The loops below are written on Float pointers with while loops, not SIMD types and ranges:
    // that is as fast once optimised (LLVM vectorises them) and stays usable in a debug build,
    // where generic SIMD operators are not inlined.

    private static func premultiply(_ row: UnsafeMutablePointer<Float>, pixels: Int) {
        var pixel = row, x = 0
        while x < pixels {
            let alpha = pixel[3]
            pixel[0] *= alpha
            pixel[1] *= alpha
            pixel[2] *= alpha
            pixel += 4
            x += 1
        }
    }

    /// Filters `row` across into `target`, `channels` (3 or 4) floats a pixel. Four sums run
    /// whatever the count (the fourth of an RGB pixel is the next pixel's red, ignored; `row`
    /// has a float to spare after its last pixel), which keeps one loop for both layouts.
    private static func filterAcross(_ row: UnsafeMutablePointer<Float>, into target: UnsafeMutablePointer<Float>,
                                     taps: Resampler.Taps, width: Int, channels: Int) {
        taps.weights.withUnsafeBufferPointer { weights in
            var x = 0, out = target
            while x < width {
                var source = row + channels * taps.first[x], weight = weights.baseAddress! + x * taps.span
                var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                var tap = 0
                let count = taps.count[x]
                while tap < count {
                    let w = weight[0]
                    r += source[0] * w
                    g += source[1] * w
                    b += source[2] * w
                    a += source[3] * w
                    source += channels
                    weight += 1
                    tap += 1
                }
                out[0] = r
                out[1] = g
                out[2] = b
                if channels == 4 { out[3] = a }
                out += channels
                x += 1
            }
        }
    }

    /// `target += row * weight`, over `length` floats.
    private static func addWeighted(_ row: UnsafeMutablePointer<Float>, _ weight: Float, into target: UnsafeMutablePointer<Float>,
                                    length: Int) {
        var i = 0
        while i < length {
            target[i] += row[i] * weight
            i += 1
        }
    }

    /// Clamps to 0...1 after Lanczos' negative lobes, dividing the colour by alpha again first.
    private static func finish(_ pixels: UnsafeMutablePointer<Float>, pixels count: Int, channels: Int) {
        var i = 0
        while i < count * channels {
            pixels[i] = min(max(pixels[i], 0), 1)
            i += 1
        }
        guard channels == 4 else { return }
        var pixel = pixels, x = 0
        while x < count {
            let alpha = pixel[3]
            if alpha > 0 {
                pixel[0] = min(pixel[0] / alpha, 1)
                pixel[1] = min(pixel[1] / alpha, 1)
                pixel[2] = min(pixel[2] / alpha, 1)
            } else {
                pixel[0] = 0
                pixel[1] = 0
                pixel[2] = 0
            }
            pixel += 4
            x += 1
        }
    }
}
