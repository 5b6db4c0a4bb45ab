/// libjpeg's DCT scaling as ImageMagick 6 drives it through the `jpeg:size` option.
enum JPEGScale {
    /// A `jpeg:size` hint: the smallest size wanted on each axis.
    struct Hint: Sendable, Hashable {
        var width: Int
        var height: Int

        var option: String { "\(width)x\(height)" }
    }

    /// The hint for the most reduced decode that still gives at least twice `target` on each axis
    /// (room for a good Lanczos resize), or nil when no reduced scale applies.
    ///
    /// ImageMagick turns the hint into libjpeg's `scale_denom` d (the smaller axis ratio,
    /// truncated), and libjpeg-turbo then decodes at k/8 with k = ⌈8/d⌉: so 1/8, 1/4, 3/8 and 1/2
    /// are reachable. The hint is built from the denominator wanted, 8, 4 or 2 (the scales
    /// ``numerator(width:height:target:within:)`` takes, so that both paths decode alike).
    ///
    /// 3/8 stands in for 1/2 when the picture at 1/2 would be over `bounds` (the process's width
    /// and height limits, which a decode must keep within) and at 3/8 it would not: slower, but
    /// decoded rather than refused (a 3x40000 strip to 256 px: 2x20000 at 1/2, 2x15000 at 3/8,
    /// under ImageMagick's 16000).
    static func hint(width: Int, height: Int, target: (width: Int, height: Int),
                     within bounds: (width: Int, height: Int) = (.max, .max)) -> Hint? {
        let needed = (width: target.width.saturatingTimes(2), height: target.height.saturatingTimes(2))
        func roomy(_ wanted: Int) -> Hint? {
            let hint = Hint(width: max(width / wanted, 1), height: max(height / wanted, 1))
            guard denominator(width: width, height: height, hint: hint) >= 2 else { return nil }
            let decoded = decodedSize(width: width, height: height, hint: hint)
            return decoded.width >= needed.width && decoded.height >= needed.height ? hint : nil
        }
        func within(_ hint: Hint) -> Bool {
            let decoded = decodedSize(width: width, height: height, hint: hint)
            return decoded.width <= bounds.width && decoded.height <= bounds.height
        }
        guard let wanted = [8, 4, 2].first(where: { roomy($0) != nil }), let hint = roomy(wanted) else { return nil }
        if wanted == 2, !within(hint), let three = roomy(3), within(three) {
            return three
        }
        return hint
    }

    /// How much larger than the thumbnail, on each axis, MagickIO's own JPEG path decodes (the
    /// Lanczos resize's room): the smallest DCT scale k/8 that gives this much is chosen, the
    /// cheapest that keeps the quality targets (PSNR against a Lanczos resize of the full decode:
    /// 50 dB on photos, 45 dB on a zone plate). Measured on the benchmark's corpus, 12 MP -> 256:
    /// twice (1/4, 1000x750) gives 50.9-51.1 dB on photos and 45.6 dB on the zone plate; 1.95x
    /// (1/8, 500x375) gives 49.8-50.7 dB and 40.2 dB, below both targets.
    static let ownPathRoom = 2.0

    /// The numerator k of the own path's DCT scale k/8 for a `width` x `height` JPEG whose
    /// thumbnail is `target`: the smallest of 1, 2 and 4 that keeps ``ownPathRoom`` on both axes
    /// (8 when none does), within `bounds` as below.
    ///
    /// - Not 3/8 (but where 1/2 would be over `bounds`): libjpeg-turbo has SIMD code for the 2x2,
    ///   4x4 and 8x8 inverse DCTs only (1x1 is the DC alone), and at 3/8 it runs the 3x3 (luma)
    ///   and 6x6 (4:2:0 chroma) ones in plain C. A 24 MP photo decodes at 3/8 (2250x1500) in
    ///   83 ms, at 1/2 (3000x2000) in 74 ms; the larger picture's resize runs on the second core.
    ///   1/2 also leaves more room (2.9x to 1024).
    /// - Not 5/8 to 7/8: only the scales ImageMagick's `jpeg:size` can reach, so that both paths
    ///   decode at the same scale. They would be cheaper than a full decode here and there, but
    ///   a small image with fine detail then differs from ImageMagick's path by 2% RMSE
    ///   (libjpeg-turbo's test images at 64 px, found by the sweep).
    ///
    /// 3/8 stands in for 1/2 as in ``hint(width:height:target:within:)``: when the picture at 1/2
    /// would be over `bounds` and at 3/8 it would not.
    static func numerator(width: Int, height: Int, target: (width: Int, height: Int),
                          within bounds: (width: Int, height: Int) = (.max, .max)) -> Int {
        func roomy(_ k: Int) -> Bool {
            let size = scaledSize(width: width, height: height, numerator: k)
            return Double(size.width) >= ownPathRoom * Double(target.width) && Double(size.height) >= ownPathRoom * Double(target.height)
        }
        func within(_ k: Int) -> Bool {
            let size = scaledSize(width: width, height: height, numerator: k)
            return size.width <= bounds.width && size.height <= bounds.height
        }
        guard let k = [1, 2, 4].first(where: roomy) else { return 8 }
        return k == 4 && !within(4) && roomy(3) && within(3) ? 3 : k
    }

    /// libjpeg's output size at scale k/8: each side times k/8, rounded up.
    static func scaledSize(width: Int, height: Int, numerator k: Int) -> (width: Int, height: Int) {
        ((width.saturatingTimes(k) + 7) / 8, (height.saturatingTimes(k) + 7) / 8)
    }

    /// ImageMagick's `scale_denom`: the smaller of the two axis ratios, truncated.
    static func denominator(width: Int, height: Int, hint: Hint) -> Int {
        let ratio = min(Double(width) / Double(hint.width), Double(height) / Double(hint.height))
        return Int(ratio)
    }

    /// The size libjpeg-turbo decodes to for `hint`: it scales by k/8 with the smallest k for
    /// which k/8 >= 1/denominator, rounding each side up.
    static func decodedSize(width: Int, height: Int, hint: Hint) -> (width: Int, height: Int) {
        let denominator = denominator(width: width, height: height, hint: hint)
        guard denominator >= 2 else { return (width, height) }
        let k = (8 + denominator - 1) / denominator
        return (width / 8 * k + ((width % 8) * k + 7) / 8, height / 8 * k + ((height % 8) * k + 7) / 8)
    }
}
