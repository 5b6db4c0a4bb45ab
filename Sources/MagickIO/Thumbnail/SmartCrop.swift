// Step 6 of the thumbnail pipeline for ``SizingMode/fill``: where the box is cut from the picture,
// chosen on the picture already resized and turned upright (a few hundred pixels a side), so the
// choice costs about the same for a 100-megapixel source as for a small one. libvips'
// `smartcrop.c` is the reference for what is scored; the differences are said where they are made
// (and measured in Benchmarks/README.md).

import Foundation

extension Wand {
    /// Crops the current (resized, upright) image where `crop` says, when `geometry` crops at all,
    /// and returns the window in the upright source's pixels.
    func cropThumbnail(_ geometry: ThumbnailGeometry, _ crop: ThumbnailOptions.Crop) throws(MagickIOError) -> ImageRect? {
        guard var window = geometry.crop else { return nil }
        let picture = (width: width, height: height)
        switch crop {
        case .center:
            break  // the gravity's window, which the geometry already holds
        case .focalPoint(let x, let y):
            window = SmartCrop.centred(window, on: (x, y), in: picture)
        case .attention, .entropy:
            // A copy: the export may convert the colour space or add an alpha channel.
            let rgba = try clone().exportPixels(.rgba8, width: picture.width, height: picture.height)
            let pixels = SmartCrop.Pixels(rgba: rgba, width: picture.width, height: picture.height)
            window = crop == .entropy ? SmartCrop.entropyWindow(window, in: pixels) : SmartCrop.attentionWindow(window, in: pixels)
        }
        try self.crop(ImageRect(x: window.x, y: window.y, width: window.width, height: window.height))
        return geometry.sourceRect(of: window, in: picture)
    }
}

extension ThumbnailGeometry {
    /// `window`, a region of the scaled picture (`picture` pixels, ``scaled`` as planned), in the
    /// upright source's pixels.
    func sourceRect(of window: Crop, in picture: (width: Int, height: Int)) -> ImageRect {
        let across = Double(source.width) / Double(max(picture.width, 1))
        let down = Double(source.height) / Double(max(picture.height, 1))
        let x = min(Int((Double(window.x) * across).rounded()), source.width - 1)
        let y = min(Int((Double(window.y) * down).rounded()), source.height - 1)
        return ImageRect(x: max(x, 0), y: max(y, 0),
                         width: max(1, min(Int((Double(window.width) * across).rounded()), source.width - max(x, 0))),
                         height: max(1, min(Int((Double(window.height) * down).rounded()), source.height - max(y, 0))))
    }
}

/// The crop windows of ``ThumbnailOptions/Crop``, on 8-bit RGBA pixels.
enum SmartCrop {
    /// Upright RGBA pixels, straight alpha, rows packed.
    struct Pixels {
        var rgba: [UInt8]
        var width: Int
        var height: Int
    }

    /// `window` moved so that its centre is as near as it can be to `point` (fractions of
    /// `picture`, clamped to 0...1; NaN counts as the middle), inside the picture.
    static func centred(_ window: ThumbnailGeometry.Crop, on point: (x: Double, y: Double),
                        in picture: (width: Int, height: Int)) -> ThumbnailGeometry.Crop {
        func fraction(_ value: Double) -> Double { value.isNaN ? 0.5 : min(max(value, 0), 1) }
        var window = window
        window.x = clamp(Int((fraction(point.x) * Double(picture.width) - Double(window.width) / 2).rounded()),
                         0, picture.width - window.width)
        window.y = clamp(Int((fraction(point.y) * Double(picture.height) - Double(window.height) / 2).rounded()),
                         0, picture.height - window.height)
        return window
    }

    static func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int {
        max(low, min(value, max(low, high)))
    }

    // MARK: - Entropy

    /// libvips' entropy crop: slices are taken off the two ends of each axis still too long, the
    /// end whose luminance histogram has the lower entropy going first, about eight slices per
    /// axis. Unlike libvips, a tie (a plain picture) takes half the slice off each end, so that
    /// a picture with nothing to choose between stays centred rather than drifting to one side.
    static func entropyWindow(_ window: ThumbnailGeometry.Crop, in pixels: Pixels) -> ThumbnailGeometry.Crop {
        let luma = SaliencyMap.luma(pixels)
        var left = 0, top = 0, width = pixels.width, height = pixels.height
        let slice = max(Int((Double(width - window.width) / 8).rounded(.up)),
                        Int((Double(height - window.height) / 8).rounded(.up)), 1)
        func entropy(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Double {
            var histogram = [Int](repeating: 0, count: 256)
            for row in y..<(y + h) {
                for column in x..<(x + w) { histogram[Int(luma[row * pixels.width + column])] += 1 }
            }
            let total = Double(w * h)
            return histogram.reduce(0.0) { sum, count in
                count == 0 ? sum : sum - Double(count) / total * log2(Double(count) / total)
            }
        }
        var ties = 0
        func trim(_ first: Double, _ last: Double, _ amount: Int) -> Int {
            guard abs(first - last) < 1e-9 else { return first < last ? amount : 0 }
            ties += 1
            return (amount + ties % 2) / 2  // odd slices split one way, then the other
        }
        while width > window.width || height > window.height {
            let across = min(width - window.width, slice)
            if across > 0 {
                left += trim(entropy(left, top, across, height), entropy(left + width - across, top, across, height), across)
                width -= across
            }
            let down = min(height - window.height, slice)
            if down > 0 {
                top += trim(entropy(left, top, width, down), entropy(left, top + height - down, width, down), down)
                height -= down
            }
        }
        var result = window
        result.x = left
        result.y = top
        return result
    }
}

extension Image {
    /// Where step 6 of the pipeline would put a `width` x `height` attention (or entropy) window
    /// in this image, taken as the resized upright picture: the export of its pixels and the
    /// scoring, what those crops add to a thumbnail. For the benchmark, which times it.
    @_spi(Benchmarks) public func smartCropOrigin(width: Int, height: Int, entropy: Bool) throws -> (x: Int, y: Int) {
        let pixels = try self.pixels(.rgba8)
        let window = ThumbnailGeometry.Crop(x: max(self.width - width, 0) / 2, y: max(self.height - height, 0) / 2,
                                            width: min(width, self.width), height: min(height, self.height))
        let rgba = SmartCrop.Pixels(rgba: pixels.bytes, width: pixels.width, height: pixels.height)
        let chosen = entropy ? SmartCrop.entropyWindow(window, in: rgba) : SmartCrop.attentionWindow(window, in: rgba)
        return (chosen.x, chosen.y)
    }
}
