// A picture's dominant colour. sharp's `stats().dominant` is the anchor: a 16 x 16 x 16 histogram
// of the pixels (4096 bins), the fullest bin wins. On photographs that bin is often a grey: a
// shadow, a wall, an overcast sky, so a placeholder painted with it looks like nothing. Here:
// - pixels whose channels spread less than `greyChroma` apart count as grey; when at least one
//   pixel in `colourfulShare` is not grey, grey bins are left out and the colour wins even if a
//   grey bin holds more (a red coat against a grey street gives red);
// - a picture that is mostly grey keeps a grey answer (its fullest bin), so a black-and-white
//   photo is not given the colour of a few stray pixels;
// - a bin's score is its own count twice plus its six neighbours' (a colour that straddles a bin
//   edge is not split in two), and the answer is the mean of the winning bin's pixels rather than
//   the bin's centre, so a flat area of colour comes back exactly;
// - transparent pixels (alpha under half) are not counted unless all of them are.

import Foundation

extension ImageSource {
    /// The dominant colour of frame `index` as a viewer shows it, from a thumbnail at most 64
    /// pixels a side made by the thumbnail pipeline (shrink-on-load keeps it cheap); see
    /// ``Image/dominantColor()``.
    ///
    /// ```swift
    /// let background = try ImageSource(url: photo).dominantColor().hex   // "#3b6ea5"
    /// ```
    ///
    /// - Throws: what the thumbnail throws: ``MagickIOError`` of kind `frameOutOfRange`,
    ///   `corruptImage` or `limitExceeded`.
    public func dominantColor(at index: Int = 0) throws -> RGBColor {
        try thumbnail(maxPixelSize: DominantColor.side, at: index).dominantColor()
    }

    /// `dominantColor(at:)` on MagickIO's threads, cancellable.
    public func dominantColor(at index: Int = 0) async throws -> RGBColor {
        try await asyncThumbnail(.maxPixelSize(DominantColor.side), at: index, allowUpscale: false,
                                 options: ThumbnailOptions()).dominantColor()
    }
}

extension Image {
    /// The colour most of the picture is: the fullest bin of a 4096-bin histogram (as sharp's
    /// `stats().dominant`), leaving grey bins out unless the picture is mostly grey, returned as the
    /// mean of that bin's pixels. An image larger than 64 pixels a side is sampled on a grid of
    /// at most 64 x 64 pixels.
    ///
    /// ```swift
    /// let thumb = try source.thumbnail(maxPixelSize: 256)
    /// let colour = try thumb.dominantColor()   // RGBColor(r: 59, g: 110, b: 165), "#3b6ea5"
    /// ```
    ///
    /// Stands on `MagickExportImagePixels`.
    ///
    /// - Throws: ``MagickIOError/Kind/corruptImage`` when ImageMagick cannot export the pixels.
    public func dominantColor() throws -> RGBColor {
        let grid = DominantColor.grid(width: width, height: height)
        guard grid != (width, height) else {
            let pixels = try self.pixels(.rgba8)
            return DominantColor.of(rgba: pixels.bytes, width: pixels.width, height: pixels.height)
        }
        // A larger image: only the grid's pixels leave ImageMagick, its rows read from the
        // image's own wand (an RGB or grey image: nothing to convert), else sampled on a
        // copy-on-write copy (MagickSampleImage) and exported, not the whole picture.
        var rgba = [UInt8](repeating: 0, count: grid.width * grid.height * 4)
        let step = DominantColor.step(width: width, height: height)
        let read = try rgba.withUnsafeMutableBufferPointer { (buffer) throws(MagickIOError) in
            try storage.reading { (wand) throws(MagickIOError) in try wand.exportGrid(step: step, into: buffer) }
        }
        if read { return DominantColor.of(rgba: rgba, width: grid.width, height: grid.height) }
        let sampled = try storage.withCopy { (wand) throws(MagickIOError) in
            try wand.sample(toWidth: grid.width, height: grid.height)
            return try wand.exportPixels(.rgba8, width: grid.width, height: grid.height)
        }
        return DominantColor.of(rgba: sampled, width: grid.width, height: grid.height)
    }
}

/// The histogram behind ``Image/dominantColor()``.
enum DominantColor {
    /// The longest side of the thumbnail `ImageSource/dominantColor(at:)` reads, and of the grid
    /// an image is sampled on.
    static let side = 64
    /// Channels closer together than this (out of 255) make a grey pixel.
    static let greyChroma = 32
    /// The share of opaque pixels that must be colourful for grey bins to be left out.
    static let colourfulShare = 1.0 / 8

    /// The size of the grid a `width` x `height` picture is sampled on: every `step`-th pixel
    /// across and down, at most ``side`` a side.
    static func grid(width: Int, height: Int) -> (width: Int, height: Int) {
        let step = step(width: width, height: height)
        return ((width + step.x - 1) / step.x, (height + step.y - 1) / step.y)
    }

    /// The grid's spacing: every `x`-th pixel across, every `y`-th row.
    static func step(width: Int, height: Int) -> (x: Int, y: Int) {
        (max(1, (width + side - 1) / side), max(1, (height + side - 1) / side))
    }

    /// The dominant colour of `width` x `height` RGBA pixels (rows packed, straight alpha).
    static func of(rgba: [UInt8], width: Int, height: Int) -> RGBColor {
        guard width > 0, height > 0, rgba.count >= width * height * 4 else { return RGBColor(r: 0, g: 0, b: 0) }
        var counts = [Int32](repeating: 0, count: 4096)
        var sums = [Int32](repeating: 0, count: 4096 * 3)
        var tally = Histogram.count(rgba, width: width, height: height, skippingTransparent: true, &counts, &sums)
        if tally.opaque == 0 {
            tally = Histogram.count(rgba, width: width, height: height, skippingTransparent: false, &counts, &sums)
        }
        let skipsGrey = Double(tally.colourful) >= colourfulShare * Double(tally.opaque)
        func mean(_ bin: Int) -> (r: Int32, g: Int32, b: Int32) {
            let n = max(counts[bin], 1)
            return (sums[bin * 3] / n, sums[bin * 3 + 1] / n, sums[bin * 3 + 2] / n)
        }
        // The bins that may win, decided once: filled, and colourful unless grey is allowed.
        var eligible = [Bool](repeating: false, count: 4096)
        for bin in 0..<4096 where counts[bin] > 0 {
            let (r, g, b) = mean(bin)
            eligible[bin] = !skipsGrey || chroma(r, g, b) >= greyChroma
        }
        var best = -1, bestScore = Int32(0)
        for bin in 0..<4096 where eligible[bin] {
            // The bin twice and its six neighbours (one step along red, green or blue) once.
            var score = 2 * counts[bin]
            let r = bin >> 8, g = (bin >> 4) & 15, b = bin & 15
            if r > 0, eligible[bin - 256] { score += counts[bin - 256] }
            if r < 15, eligible[bin + 256] { score += counts[bin + 256] }
            if g > 0, eligible[bin - 16] { score += counts[bin - 16] }
            if g < 15, eligible[bin + 16] { score += counts[bin + 16] }
            if b > 0, eligible[bin - 1] { score += counts[bin - 1] }
            if b < 15, eligible[bin + 1] { score += counts[bin + 1] }
            if score > bestScore { (best, bestScore) = (bin, score) }
        }
        guard best >= 0 else { return RGBColor(r: 0, g: 0, b: 0) }
        let (r, g, b) = mean(best)
        return RGBColor(r: UInt8(r), g: UInt8(g), b: UInt8(b))
    }

    /// How far apart the channels are (two-argument `max`/`min`: the three-argument ones take
    /// variadic arrays, allocated on every call).
    private static func chroma(_ r: Int32, _ g: Int32, _ b: Int32) -> Int {
        Int(Swift.max(Swift.max(r, g), b) - Swift.min(Swift.min(r, g), b))
    }

    /// The 4096-bin histogram's counting pass.
    private enum Histogram {
        /// Adds the pixels on the sampling grid (every `step`-th, at most ``side`` a side) to
        /// `counts` and `sums` (r, g, b a bin), and returns how many were counted and how many
        /// of them were colourful.
        static func count(_ rgba: [UInt8], width: Int, height: Int, skippingTransparent: Bool,
                          _ counts: inout [Int32], _ sums: inout [Int32]) -> (opaque: Int, colourful: Int) {
            let stepX = Swift.max(1, (width + side - 1) / side), stepY = Swift.max(1, (height + side - 1) / side)
            var opaque = 0, colourful = 0
            rgba.withUnsafeBufferPointer { rgba in
                counts.withUnsafeMutableBufferPointer { counts in
                    sums.withUnsafeMutableBufferPointer { sums in
                        for y in stride(from: 0, to: height, by: stepY) {
                            var p = y * width * 4
                            let rowEnd = p + width * 4
                            while p < rowEnd {
                                defer { p += stepX * 4 }
                                if skippingTransparent, rgba[p + 3] < 128 { continue }
                                let r = rgba[p], g = rgba[p + 1], b = rgba[p + 2]
                                let bin = Int(r >> 4) << 8 | Int(g >> 4) << 4 | Int(b >> 4)
                                counts[bin] += 1
                                sums[bin * 3] += Int32(r)
                                sums[bin * 3 + 1] += Int32(g)
                                sums[bin * 3 + 2] += Int32(b)
                                opaque += 1
                                let high = Swift.max(Swift.max(r, g), b), low = Swift.min(Swift.min(r, g), b)
                                if Int(high) - Int(low) >= greyChroma { colourful += 1 }
                            }
                        }
                    }
                }
            }
            return (opaque, colourful)
        }
    }
}
