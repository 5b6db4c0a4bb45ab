import Foundation

/// Lanczos-3 resampling in Swift, which the thumbnail pipeline uses in place of
/// `MagickResizeImage` for RGB images.
///
/// ImageMagick 6's resize filters one channel of one 16-bit pixel at a time in double precision,
/// and writes a whole intermediate image between its two passes: it was half of a 12 MP -> 256
/// thumbnail's time and most of a 24 MP -> 1024 one's. This one streams the image through: each
/// source row is exported once as floats (`MagickExportImagePixels`) and added, weighted, into
/// the sums of the few output rows whose filter windows hold it; an output row whose window is
/// complete is filtered across and written out. It keeps 16-bit precision (floats throughout),
/// weighs colour by alpha as ImageMagick does, and holds a handful of rows, whatever the
/// reduction, beside the output image.
///
/// The filter is the one Pillow's and libvips' Lanczos use (the windowed sinc of radius 3,
/// stretched by the reduction factor when reducing), so that a thumbnail matches a Lanczos
/// resize of the full image.
enum Resampler {
    /// Where each output pixel's inputs start, how many there are and their weights (`span` a
    /// pixel, padded with zeros), along one axis.
    struct Taps {
        let first: [Int]
        let count: [Int]
        let weights: [Float]
        let span: Int

        init(from input: Int, to output: Int) {
            let scale = Double(input) / Double(output)
            let stretch = max(scale, 1)
            let support = 3 * stretch
            span = min(Int(support.rounded(.up)) * 2 + 1, input)
            var first = [Int](repeating: 0, count: output)
            var count = [Int](repeating: 0, count: output)
            var weights = [Float](repeating: 0, count: output * span)
            for index in 0..<output {
                let centre = (Double(index) + 0.5) * scale
                let low = max(Int((centre - support + 0.5).rounded(.down)), 0)
                var high = min(Int((centre + support + 0.5).rounded(.down)), input)
                high = min(max(high, low + 1), low + span)
                var taps = (low..<high).map { Resampler.lanczos3((Double($0) - centre + 0.5) / stretch) }
                let total = taps.reduce(0, +)
                if total != 0 {
                    taps = taps.map { $0 / total }
                } else {
                    taps = taps.indices.map { $0 == 0 ? 1 : 0 }  // never seen: keep the nearest input
                }
                first[index] = low
                count[index] = taps.count
                for (offset, weight) in taps.enumerated() {
                    weights[index * span + offset] = Float(weight)
                }
            }
            self.first = first
            self.count = count
            self.weights = weights
        }

        /// The most output positions whose windows are open at once when the inputs are taken in
        /// order and each output is finished, in order, once its window is past: how many sums
        /// the resampler keeps.
        func mostOpenAtOnce(inputCount: Int) -> Int {
            var opened = 0, finished = 0, most = 1
            let output = first.count
            for input in 0..<inputCount {
                while opened < output, first[opened] <= input { opened += 1 }
                most = max(most, opened - finished)
                while finished < opened, first[finished] + count[finished] <= input + 1 { finished += 1 }
            }
            return most
        }
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let pi = Double.pi
        return 3 * sin(pi * x) * sin(pi * x / 3) / (pi * pi * x * x)
    }
}


/// For the benchmark's `stages` tool, which times each step of the pipeline on MagickWand itself:
/// ``Resampler`` on a wand the caller owns. Not part of MagickIO's API.
@_spi(Benchmarks)
public enum ResamplerHook {
    /// Resizes the wand's current image as a thumbnail would; false when the image is not RGB or
    /// the resize failed.
    public static func resample(wand: OpaquePointer, width: Int, height: Int) -> Bool {
        (try? Wand(borrowing: wand).resample(toWidth: width, height: height)) ?? false
    }
}
