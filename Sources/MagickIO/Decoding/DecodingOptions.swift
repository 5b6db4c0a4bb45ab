/// How an ``ImageSource`` decodes: the limits checked from the header alone, before any pixel is
/// decoded (MagickIO's guard against decompression bombs: a small file that claims a huge image),
/// a time limit, and how strict the decoders are about damage.
///
/// ```swift
/// let source = try ImageSource(url: upload, options: DecodingOptions(maxPixelCount: 50_000_000))
/// ```
///
/// A decode whose estimate exceeds a limit throws ``MagickIOError/Kind/limitExceeded`` with
/// ``MagickIOError/limit`` naming the limit and giving the numbers, in well under a millisecond.
/// The estimate is the pixel cache the decode will fill (8 bytes a pixel in ImageMagick's Q16
/// build, 10 with CMYK) at the size left after JPEG shrink-on-load, plus, for a progressive JPEG,
/// libjpeg's buffer of every DCT coefficient of the whole image (2 bytes a coded sample, whatever
/// the scale: 3 bytes a pixel with 4:2:0 chroma, 6 with 4:4:4).
public struct DecodingOptions: Sendable, Hashable {
    /// The most pixels (width x height, as stored) an image may have to be decoded at all, even
    /// at a reduced scale. Default: 268,402,689 (16383², the same as sharp; Pillow warns at 89 MP
    /// and refuses at 179 MP).
    public var maxPixelCount: Int
    /// The most bytes one decode may need. Default 256 MiB: ImageMagick's default memory limit, so
    /// that a decode MagickIO lets through also fits in ImageMagick's pixel cache.
    public var memoryBudget: Int
    /// The longest one decode (with its resize, for a thumbnail) may run before it stops between
    /// two rows and throws ``MagickIOError/Kind/cancelled`` with a `timeLimit`
    /// ``MagickIOError/limit``. Default: none. Unlike ImageMagick's own time limit, which MagickIO
    /// never sets because it ends the process, this one stops only the call it belongs to.
    public var timeLimit: Duration?
    /// What a decoder's warnings may cost: whether a damaged image is refused
    /// (``Strictness/refuseDamage``, the default), any warning is (``Strictness/refuseWarnings``), or
    /// whatever the decoder produced comes back (``Strictness/acceptPartial``). A decode that fails
    /// outright throws whatever this says; the warnings of an image that comes back are in
    /// ``Image/warnings``.
    public var strictness: Strictness
    /// The most frames, pages or metadata segments a file may declare, as MagickIO's own walker
    /// counts them (GIF image descriptors, WebP `ANMF` frames, TIFF directories, JPEG APPn and PNG
    /// text chunks). A file that declares more offers its first `maxFrameCount` frames only
    /// (``ImageSource/count`` is at most this, as imgproxy's `MAX_ANIMATION_FRAMES`), and the walk
    /// stops there, so opening costs the same however many frames a file claims; a walk that cannot
    /// finish (a TIFF chain that loops) counts as over the limit and offers the frames it reached.
    /// Default: 1,000.
    public var maxFrameCount: Int
    /// The most metadata a file may carry, in bytes once decompressed (PNG `zTXt`/`iTXt`/`iCCP`
    /// and raw profiles, EXIF, XMP, ICC, JPEG APPn and comments), counted by MagickIO's walker
    /// before any decoder runs. Past it, a decode that drops metadata (a thumbnail) gets the file
    /// without it, and one that keeps it throws ``MagickIOError/Kind/limitExceeded``. Default:
    /// 16 MiB.
    public var maxMetadataBytes: Int
    /// Tests only: ImageMagick's heap share of every decode (``HeapBudget``) instead of the one
    /// derived from ``memoryBudget``, so that a normal file reaches the backstop.
    var heapShareForTesting: Int?

    public init(maxPixelCount: Int = 268_402_689, memoryBudget: Int = 256 << 20, timeLimit: Duration? = nil,
                strictness: Strictness = .refuseDamage, maxFrameCount: Int = 1_000, maxMetadataBytes: Int = 16 << 20) {
        self.maxPixelCount = maxPixelCount
        self.memoryBudget = memoryBudget
        self.timeLimit = timeLimit
        self.strictness = strictness
        self.maxFrameCount = maxFrameCount
        self.maxMetadataBytes = maxMetadataBytes
    }

    /// The defaults.
    public static let `default` = DecodingOptions()
}

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
    /// are reachable. Asking for exactly twice the target would often land on 1/2 where 3/8 still
    /// suffices (6000x4000 to 1024: 3000x2000 instead of 2250x1500, twice the resize work), so the
    /// hint is built from the denominator wanted instead.
    static func hint(width: Int, height: Int, target: (width: Int, height: Int)) -> Hint? {
        let needed = (width: target.width.saturatingTimes(2), height: target.height.saturatingTimes(2))
        for wanted in [8, 4, 3, 2] {
            let hint = Hint(width: max(width / wanted, 1), height: max(height / wanted, 1))
            guard denominator(width: width, height: height, hint: hint) >= 2 else { continue }
            let decoded = decodedSize(width: width, height: height, hint: hint)
            if decoded.width >= needed.width, decoded.height >= needed.height {
                return hint
            }
        }
        return nil
    }

    /// How much larger than the thumbnail, on each axis, MagickIO's own JPEG path decodes (the
    /// Lanczos resize's room): the smallest DCT scale k/8 that gives this much is chosen, the
    /// cheapest that keeps the quality targets (PSNR against a Lanczos resize of the full decode:
    /// 50 dB on photos, 45 dB on a zone plate). Measured on the benchmark's corpus, 12 MP -> 256:
    /// twice (1/4, 1000x750) gives 50.9-51.1 dB on photos and 45.6 dB on the zone plate; 1.95x
    /// (1/8, 500x375) gives 49.8-50.7 dB and 40.2 dB, below both targets.
    static let ownPathRoom = 2.0

    /// The numerator k of the own path's DCT scale k/8 for a `width` x `height` JPEG whose
    /// thumbnail is `target`: the smallest that keeps ``ownPathRoom`` on both axes (8 when none
    /// smaller does). Only the scales ImageMagick's `jpeg:size` can reach (1/8, 1/4, 3/8, 1/2),
    /// so that both paths decode at the same scale: 5/8 to 7/8 would be cheaper than a full decode
    /// here and there, but a small image with fine detail then differs from ImageMagick's path
    /// by 2% RMSE (libjpeg-turbo's test images at 64 px, found by the sweep).
    static func numerator(width: Int, height: Int, target: (width: Int, height: Int)) -> Int {
        for k in [1, 2, 3, 4] {
            let size = scaledSize(width: width, height: height, numerator: k)
            if Double(size.width) >= ownPathRoom * Double(target.width), Double(size.height) >= ownPathRoom * Double(target.height) {
                return k
            }
        }
        return 8
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

extension ImageSource {
    /// The cost model's prediction for decoding frame `index` whole, in bytes: what the guard
    /// compares with ``DecodingOptions/memoryBudget``. For the calibration probe.
    @_spi(Calibration)
    public func estimatedDecodeBytes(at index: Int) -> Int {
        estimate(frame: index).bytes
    }

    /// The prediction for a `maxPixelSize` thumbnail of frame 0, as the guard makes it: the own
    /// path's where the header lets the thumbnail stream, the decode's (JPEG shrink-on-load
    /// included) and the resize's otherwise. For the calibration probe.
    @_spi(Calibration)
    public func estimatedThumbnailBytes(maxPixelSize: Int) throws -> Int {
        try thumbnailCost(.maxPixelSize(maxPixelSize), at: 0, allowUpscale: false)
    }

    /// Bytes of ImageMagick's pixel cache in use now, process-wide: what its memory limit counts.
    /// For the probe's check that decodes give back all they took.
    @_spi(Calibration)
    public static var pixelCacheInUse: Int {
        MagickCache.inUse
    }

    /// Loads the format's ImageMagick coder and this thread's wand with a ping of the file, as
    /// opening a source did before MagickIO read properties itself: so that the probe's measured
    /// growth is one decode's, not the one-time loading of a coder module. For the probe only.
    @_spi(Calibration)
    public func loadDecoder() {
        _ = try? Wand.withThreadWand { wand throws(MagickIOError) in
            try wand.read(bytes, format: format, frames: 0...0, ping: true, strictness: .acceptPartial)
        }
    }
}
