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
                Resampler.premultiply(row, pixels: inputWidth)
            }
            while opened < outputHeight, down.first[opened] <= sourceRow {
                sum(opened).update(repeating: 0, count: inputRow)
                opened += 1
            }
            for y in finished..<opened where sourceRow < down.first[y] + down.count[y] {
                Resampler.addWeighted(row, down.weights[y * down.span + sourceRow - down.first[y]], into: sum(y), length: inputRow)
            }
            while finished < opened, down.first[finished] + down.count[finished] <= sourceRow + 1 {
                Resampler.filterAcross(sum(finished), into: output, taps: across, width: outputWidth, channels: channels)
                Resampler.finish(output, pixels: outputWidth, channels: channels)
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
    }
}
