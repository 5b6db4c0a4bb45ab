import CMagickWand
import CResample
import Foundation
import Testing
@testable import MagickIO

@Suite("Resampler")
struct ResampleTests {
    @Test("the taps cover the input, sum to one, and are the identity at scale 1",
          arguments: [(1000, 256), (750, 192), (3000, 1024), (96, 48), (7, 3), (1, 1), (1000, 1), (48, 96), (2, 9)])
    func taps(input: Int, output: Int) {
        let taps = Resampler.Taps(from: input, to: output)
        #expect(taps.first.count == output && taps.count.count == output)
        for index in 0..<output {
            #expect(taps.first[index] >= 0 && taps.count[index] >= 1 && taps.count[index] <= taps.span)
            #expect(taps.first[index] + taps.count[index] <= input, "output \(index) reads past input \(input)")
            let sum = (0..<taps.count[index]).reduce(Float(0)) { $0 + taps.weights[index * taps.span + $1] }
            #expect(abs(sum - 1) < 1e-5, "output \(index) weights sum to \(sum)")
        }
        if input > 1, output > 1 {
            // The windows move forward with the output, as the ring of rows needs.
            #expect(zip(taps.first, taps.first.dropFirst()).allSatisfy { $0 <= $1 })
        }
        if output < input {
            // Reducing keeps a handful of sums open whatever the factor (memory, issue 3).
            #expect(taps.mostOpenAtOnce(inputCount: input) <= 8, "\(taps.mostOpenAtOnce(inputCount: input)) sums for \(input) -> \(output)")
        }
        if input >= 2 * output {
            // Rows taken four at a time when reducing by two or more: no more sums (the estimate counts eight).
            let grouped = taps.mostOpenAtOnce(inputCount: input, group: Resampler.groupRows)
            #expect(grouped <= 8, "\(grouped) sums for \(input) -> \(output), four rows at a time")
            let byteGroup = Resampler.byteGroupRows(input: (10, input), output: (10, output))
            #expect([4, 8, 16].contains(byteGroup) && taps.mostOpenAtOnce(inputCount: input, group: byteGroup) <= 8,
                    "\(byteGroup) byte rows at a time for \(input) -> \(output)")
        }
        #expect(Resampler.Taps(from: 7800, to: 16).mostOpenAtOnce(inputCount: 7800, group: Resampler.groupRows) <= 8)
        // 8-bit RGB rows: 16 at a time where the windows are wide, 8 for a 12 MP JPEG at 1/4, 4 where
        // 8 would open more sums than the estimate counts, 1 when not reducing by two.
        for (from, to, group) in [(4000, 171, 16), (4000, 256, 16), (750, 192, 8), (3000, 1024, 4), (300, 200, 1)] {
            #expect(Resampler.byteGroupRows(input: (10, from), output: (10, to)) == group, "\(from) -> \(to)")
        }
        let identity = Resampler.Taps(from: 50, to: 50)
        for index in 0..<50 {
            let weights = (0..<identity.count[index]).map { identity.weights[index * identity.span + $0] }
            let centre = index - identity.first[index]
            #expect(weights.enumerated().allSatisfy { abs($1 - ($0 == centre ? 1 : 0)) < 1e-6 })
        }
    }

    @Test("the cached taps are the ones worked out afresh, also once more sizes than it keeps went by")
    func cachedTaps() {
        let sizes = (0..<12).map { (1000 + 37 * $0, 256 - $0) } + [(1000, 256), (4000, 1024)]
        for (input, output) in sizes + sizes.reversed() {
            let cached = Resampler.Taps.cached(from: input, to: output), fresh = Resampler.Taps(from: input, to: output)
            #expect(cached.first == fresh.first && cached.count == fresh.count && cached.weights == fresh.weights
                    && cached.span == fresh.span, "\(input) -> \(output)")
        }
    }

    @Test("the inner loops (C, built for AVX2 where the processor has it) do the arithmetic written out here",
          arguments: [1, 7, 8, 9, 31, 33, 1001])
    func innerLoops(length: Int) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let words = (0..<length).map { _ in UInt16.random(in: 0...65535, using: &generator) }
        var floats = [Float](repeating: -1, count: length)
        SampleConversion.convert(bytes, count: length, into: &floats)
        #expect(zip(bytes, floats).allSatisfy { abs($1 - Float($0) / 255) <= 1e-7 }, "8-bit samples")
        SampleConversion.convert(words, count: length, into: &floats)
        #expect(zip(words, floats).allSatisfy { abs($1 - Float($0) / 65535) <= 1e-7 }, "16-bit samples")

        let row = (0..<length).map { _ in Float.random(in: -0.5...1.5, using: &generator) }
        let others = (0..<15).map { _ in (0..<length).map { _ in Float.random(in: 0...1, using: &generator) } }
        // One row, 4, 8 or 16, into one sum or three (each with weights of its own; in 16 rows, a
        // four of zero weights before, between and after the others).
        for rows in [[row], [row] + others.prefix(3), [row] + others.prefix(7), [row] + others] {
            for targets in [1, 3] {
                let weights = (0..<targets * rows.count).map { index in
                    rows.count == 16 && [0, 2, 3].contains(index % 16 / 4 + index / 16 % 2) ? 0
                        : Float.random(in: -0.2...0.6, using: &generator)
                }
                let sums = (0..<targets).map { _ in (0..<length).map { _ in Float.random(in: 0...1, using: &generator) } }
                let expected = sums.enumerated().map { target, sum in
                    (0..<length).map { i in
                        sum[i] + rows.indices.reduce(Float(0)) { $0 + rows[$1][i] * weights[target * rows.count + $1] }
                    }
                }
                let pointers = rows.map { _ in UnsafeMutablePointer<Float>.allocate(capacity: length) }
                let sumPointers = sums.map { _ in UnsafeMutablePointer<Float>.allocate(capacity: length) }
                defer { (pointers + sumPointers).forEach { $0.deallocate() } }
                for (pointer, values) in zip(pointers + sumPointers, rows + sums) { pointer.initialize(from: values, count: length) }
                let taken: [UnsafePointer<Float>?] = pointers.map { UnsafePointer($0) }
                let into: [UnsafeMutablePointer<Float>?] = sumPointers
                Resampler.addWeighted(taken, count: rows.count, weights, into: into, count: targets, length: length,
                                      fresh: [UInt8](repeating: 0, count: targets))
                for (target, pointer) in sumPointers.enumerated() {
                    let sum = Array(UnsafeBufferPointer(start: pointer, count: length))
                    #expect(zip(sum, expected[target]).allSatisfy { abs($0 - $1) <= 1e-6 },
                            "sum += rows * weights, \(rows.count) rows, sum \(target) of \(targets)")
                }
            }
        }
        var clamped = row
        Resampler.finish(&clamped, pixels: length, channels: 1)
        #expect(zip(clamped, row).allSatisfy { $0 == min(max($1, 0), 1) }, "clamped to 0...1")
    }

    /// Spans of 8, 16, 24, 32 and more taps (the RGB pass's unrolled cases and its general one),
    /// outputs a multiple of 8 wide or not, inputs narrower than a vector.
    @Test("the pass across (RGB as three planes, RGBA four lanes at once) does the sums written out here",
          arguments: [(40, 80), (5, 3), (64, 32), (333, 111), (1000, 256), (1000, 100), (333, 29), (7, 7)])
    func acrossPass(input: Int, output: Int) {
        var generator = SystemRandomNumberGenerator()
        for channels in [3, 4] {
            let source = (0..<(input * channels + 1)).map { _ in Float.random(in: 0...1, using: &generator) }
            let taps = Resampler.Taps(from: input, to: output)
            #expect(taps.span % 8 == 0)
            var across = [Float](repeating: 0, count: output * channels)
            let planes = Resampler.planes(input: input, taps: taps, channels: channels)
            defer { planes.deallocate() }
            source.withUnsafeBufferPointer { source in
                Resampler.filterAcross(UnsafeMutablePointer(mutating: source.baseAddress!), into: &across, taps: taps,
                                       input: input, width: output, channels: channels, planes: planes)
            }
            for x in 0..<output {
                for channel in 0..<channels {
                    let written = (0..<taps.count[x]).reduce(Float(0)) {
                        $0 + source[(taps.first[x] + $1) * channels + channel] * taps.weights[x * taps.span + $1]
                    }
                    #expect(abs(across[x * channels + channel] - written) <= 1e-5, "pixel \(x) channel \(channel) of \(channels)")
                }
            }
        }
    }

    /// The pass down adds up to 16 rows at once into several sums; each four rows must add as the
    /// four-at-a-time loop adds them, to the bit (the thumbnails stay the same).
    @Test("16 or 8 rows into several sums at once give, bit for bit, four rows at a time into one",
          arguments: [3, 8, 255, 1001])
    func groupsAddAsFours(length: Int) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let floats = bytes.map { $0.map { Float($0) / 255 } }
        for rows in [8, 16] {
            let sums = 3
            // Sum 0 weighs every row; sum 1 only the second four; sum 2 none of the first four.
            let weights = (0..<sums * rows).map { index -> Float in
                let (sum, row) = (index / rows, index % rows)
                return (sum == 1 && row / 4 != 1) || (sum == 2 && row < 4) ? 0 : Float.random(in: -0.1...0.4, using: &generator)
            }
            let start = (0..<sums).map { _ in (0..<length).map { _ in Float.random(in: 0...1, using: &generator) } }
            func added<T>(_ source: [[T]], _ add: ([UnsafePointer<T>?], Int, [Float], [UnsafeMutablePointer<Float>?], Int) -> Void) -> ([[Float]], [[Float]]) {
                func copies<U>(_ arrays: [[U]]) -> [UnsafeMutablePointer<U>] {
                    arrays.map { values in
                        let pointer = UnsafeMutablePointer<U>.allocate(capacity: length)
                        pointer.initialize(from: values, count: length)
                        return pointer
                    }
                }
                let rowPointers = copies(source), together = copies(start), byFours = copies(start)
                defer { rowPointers.forEach { $0.deallocate() }; (together + byFours).forEach { $0.deallocate() } }
                let taken = rowPointers.prefix(rows).map { UnsafePointer($0) as UnsafePointer<T>? }
                add(taken, rows, weights, together, sums)
                for sum in 0..<sums {
                    for four in 0..<(rows / 4) {
                        let fourWeights = (0..<4).map { weights[sum * rows + four * 4 + $0] }
                        add(Array(taken[(four * 4)..<(four * 4 + 4)]), 4, fourWeights, [byFours[sum]], 1)
                    }
                }
                return (together.map { Array(UnsafeBufferPointer(start: $0, count: length)) },
                        byFours.map { Array(UnsafeBufferPointer(start: $0, count: length)) })
            }
            let (bytesTogether, bytesByFours) = added(bytes) { mio_rs_add_weighted_bytes($0, $1, $2, $3, $4, length, [UInt8](repeating: 0, count: $4)) }
            #expect(bytesTogether == bytesByFours, "8-bit rows, \(rows) at once, \(length) columns")
            let (floatsTogether, floatsByFours) = added(floats) { mio_rs_add_weighted_rows($0, $1, $2, $3, $4, length, [UInt8](repeating: 0, count: $4)) }
            #expect(floatsTogether == floatsByFours, "float rows, \(rows) at once, \(length) columns")
            #expect(bytesTogether[1] != start[1] && bytesTogether[2] != start[2], "the sums were added to")
        }
    }

    @Test("a fresh sum is written as zeros plus its rows, whatever its memory held", arguments: [16, 8, 4, 3, 1])
    func freshSums(rows: Int) {
        var generator = SystemRandomNumberGenerator()
        let length = 300, sums = 5
        let bytes = (0..<rows).map { _ in (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        // Sum 2's weights are all zero (a fresh sum with nothing to add is zeros); sum 4's first four
        // are (its first group with a weight is not the first); the rest random, some negative.
        let weights = (0..<(sums * rows)).map { index -> Float in
            let (sum, row) = index.quotientAndRemainder(dividingBy: rows)
            return sum == 2 || sum == 4 && row < 4 && rows >= 8 ? 0 : Float.random(in: -0.01...0.01, using: &generator)
        }
        func run(fresh: [UInt8], start: Float) -> [[Float]] {
            let rowPointers = bytes.map { values in
                let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: length)
                pointer.initialize(from: values, count: length)
                return pointer
            }
            let sumPointers = (0..<sums).map { _ in
                let pointer = UnsafeMutablePointer<Float>.allocate(capacity: length)
                pointer.initialize(repeating: start, count: length)
                return pointer
            }
            defer { rowPointers.forEach { $0.deallocate() }; sumPointers.forEach { $0.deallocate() } }
            let taken = rowPointers.map { UnsafePointer($0) as UnsafePointer<UInt8>? }
            let into: [UnsafeMutablePointer<Float>?] = sumPointers
            mio_rs_add_weighted_bytes(taken, rows, weights, into, sums, length, fresh)
            return sumPointers.map { Array(UnsafeBufferPointer(start: $0, count: length)) }
        }
        let zeroed = run(fresh: [UInt8](repeating: 0, count: sums), start: 0)
        let fresh = run(fresh: [1, 1, 1, 0, 1], start: .nan)
        for sum in [0, 1, 2, 4] {
            #expect(fresh[sum].map { $0.bitPattern } == zeroed[sum].map { $0.bitPattern }, "sum \(sum), \(rows) rows, bit for bit")
        }
        #expect(fresh[2].allSatisfy { $0 == 0 }, "a fresh sum with no weight is zeros")
        #expect(fresh[3].allSatisfy { $0.isNaN }, "a sum that is not fresh is added to")
        #expect(zeroed[0].contains { $0 != 0 })
    }

    @Test("8-bit RGB rows resample as their floats do, reducing by two or more or not",
          arguments: [(301, 203, 64, 43), (301, 203, 200, 135), (64, 48, 64, 48), (50, 40, 120, 96), (1000, 9, 256, 2),
                       (41, 2000, 10, 40), (41, 600, 41, 75)])
    func bytesAsFloats(width: Int, height: Int, outWidth: Int, outHeight: Int) {
        var generator = SystemRandomNumberGenerator()
        let pixels = (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        func resampled(bytes: Bool) -> [Float] {
            var out = [Float](repeating: -1, count: outWidth * outHeight * 3)
            let write = { (y: Int, row: UnsafeMutablePointer<Float>) in
                for i in 0..<(outWidth * 3) { out[y * outWidth * 3 + i] = row[i] }
            }
            _ = pixels.withUnsafeBufferPointer { source in
                if bytes {
                    Resampler.streamBytes(input: (width, height), output: (outWidth, outHeight),
                                          read: { y, row in row.update(from: source.baseAddress! + y * width * 3, count: width * 3) },
                                          write: write, progress: { _, _ in })
                } else {
                    Resampler.stream(input: (width, height), output: (outWidth, outHeight), channels: 3,
                                     read: { y, row in SampleConversion.convert(source.baseAddress! + y * width * 3, count: width * 3, into: row) },
                                     write: write, progress: { _, _ in })
                }
            }
            return out
        }
        let bytes = resampled(bytes: true), floats = resampled(bytes: false)
        let worst = zip(bytes, floats).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 1e-5, "largest difference \(worst)")
        #expect(!bytes.contains(-1), "every output row written")
    }

    /// The photo fixture decoded into a wand of its own.
    func decoded(_ name: String) throws -> Wand {
        let wand = Wand()
        let data = try Fixture.data(name)
        _ = data.withUnsafeBytes { MagickReadImageBlob(wand.pointer, $0.baseAddress, $0.count) }
        try #require(wand.width > 0)
        return wand
    }

    func pixels(_ wand: Wand, _ map: String = "RGBA") -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: wand.width * wand.height * map.count)
        _ = bytes.withUnsafeMutableBytes { MagickExportImagePixels(wand.pointer, 0, 0, wand.width, wand.height, map, CharPixel, $0.baseAddress) }
        return bytes
    }

    @Test("a photo resampled matches ImageMagick's Lanczos resize to within a level or two",
          arguments: [(100, 75), (160, 120), (33, 250), (640, 480)])
    func matchesImageMagick(width: Int, height: Int) throws {
        let ours = try decoded("photo.jpg"), theirs = try decoded("photo.jpg")
        try ours.resample(toWidth: width, height: height)
        try theirs.resizeWithImageMagick(toWidth: width, height: height)
        #expect(ours.width == width && ours.height == height)
        let a = pixels(ours, "RGB"), b = pixels(theirs, "RGB")
        let squared = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) }
        let psnr = 10 * log10(255 * 255 / max(squared / Double(a.count), 1e-9))
        // Same filter family, different windows and rounding: close, not identical.
        #expect(psnr > 40, "PSNR \(psnr) dB against ImageMagick at \(width)x\(height)")
    }

    @Test("alpha weighs the colour: no fringe where red meets transparent blue, transparent stays clear")
    func alphaWeighted() throws {
        // 40x30: the left half opaque red, the right half blue at alpha 0, whose colour must not
        // bleed into the red.
        var rgba = [UInt8](repeating: 0, count: 40 * 30 * 4)
        for index in 0..<40 * 30 {
            rgba.replaceSubrange(index * 4..<index * 4 + 4, with: index % 40 < 20 ? [255, 0, 0, 255] : [0, 0, 255, 0])
        }
        let wand = Wand()
        _ = rgba.withUnsafeBytes { MagickConstituteImage(wand.pointer, 40, 30, "RGBA", CharPixel, $0.baseAddress) }
        try wand.resample(toWidth: 15, height: 11)
        let bytes = pixels(wand)
        for y in 0..<11 {
            for x in 0..<15 {
                let i = (y * 15 + x) * 4
                let (r, g, b, a) = (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
                if a > 8 {
                    #expect(r > 240 && g < 16 && b < 16, "(\(x), \(y)) is (\(r), \(g), \(b), \(a)): a fringe")
                }
                if x >= 10 { #expect(a == 0, "(\(x), \(y)) alpha \(a)") }
                if x <= 4 { #expect(a == 255, "(\(x), \(y)) alpha \(a)") }
            }
        }
    }

    @Test("edge sizes, up and down, with and without alpha: the size asked for, colours within the input's",
          arguments: [(1, 1, 5, 3), (7, 1, 3, 1), (1, 7, 1, 2), (2, 2, 1, 1), (3, 2, 300, 1), (500, 3, 2, 40), (64, 48, 64, 47)],
          [false, true])
    func edgeSizes(size: (Int, Int, Int, Int), alpha: Bool) throws {
        let (width, height, outputWidth, outputHeight) = size
        // A flat colour: whatever the filter does at the edges, every output pixel must be it.
        let pixel: [UInt8] = [200, 100, 50, 255]
        let rgba = Array((0..<width * height).map { _ in pixel }.joined())
        let wand = Wand()
        _ = rgba.withUnsafeBytes { MagickConstituteImage(wand.pointer, width, height, "RGBA", CharPixel, $0.baseAddress) }
        if !alpha { MagickSetImageAlphaChannel(wand.pointer, DeactivateAlphaChannel) }
        try wand.resample(toWidth: outputWidth, height: outputHeight)
        #expect(wand.width == outputWidth && wand.height == outputHeight && wand.imageCount == 1)
        let bytes = pixels(wand)
        for index in 0..<outputWidth * outputHeight {
            let got = Array(bytes[index * 4..<index * 4 + 3])
            #expect(zip(got, pixel).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "pixel \(index) is \(got)")
        }
    }

    @Test("in a wand of several images only the current one is resized, in its place")
    func currentImageInPlace() throws {
        let wand = Wand()
        for colour in ["red", "lime", "blue"] {
            let one = Wand()
            let background = NewPixelWand()
            PixelSetColor(background, colour)
            MagickNewImage(one.pointer, 40, 30, background)
            DestroyPixelWand(background)
            MagickAddImage(wand.pointer, one.pointer)
        }
        MagickSetIteratorIndex(wand.pointer, 1)
        try wand.resample(toWidth: 10, height: 5)
        #expect(wand.imageCount == 3)
        var sizes: [[Int]] = []
        var greens: [UInt8] = []
        for index in 0..<3 {
            MagickSetIteratorIndex(wand.pointer, index)
            sizes.append([wand.width, wand.height])
            greens.append(pixels(wand)[1])
        }
        #expect(sizes == [[40, 30], [10, 5], [40, 30]])
        #expect(greens == [0, 255, 0], "the lime image is the one resized, still second")
    }

    @Test("profiles, properties and the upscaled quadrants survive; non-RGB images are left to ImageMagick")
    func keepsImageAndDeclinesOthers() throws {
        let adobe = try decoded("adobe-rgb.jpg")
        let profile = adobe.profile("icc")
        #expect(profile != nil)
        try adobe.resample(toWidth: 16, height: 16)
        #expect(adobe.profile("icc") == profile)

        let quadrants = try decoded("quadrants.png")
        try quadrants.resample(toWidth: 192, height: 128)
        try expectUprightQuadrants(Image(wand: quadrants.clone(), orientation: .up))

        let cmyk = try decoded("cmyk.jpg")
        #expect(!cmyk.isRGB, "the pipeline sends it to ImageMagick's resize")
        #expect(errorKind { try cmyk.resample(toWidth: 32, height: 24) } == .corruptImage)
        #expect(cmyk.width == 64 && cmyk.height == 48, "left untouched")
    }
}
