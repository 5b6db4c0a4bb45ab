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
    /// The longest one call may run (a decode, or a thumbnail's whole pipeline: the embedded
    /// thumbnail tried, the decode and the build on one clock) before it stops between two rows
    /// and throws ``MagickIOError/Kind/cancelled`` with a `timeLimit` ``MagickIOError/limit``;
    /// an `async` call's clock starts when its work starts. Default: none. Unlike ImageMagick's own time limit, which MagickIO
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
    /// Where the decodes of the source run: in a worker process the kernel holds to
    /// ``memoryBudget`` and the time limit (``Isolation/process``), or in this process
    /// (``Isolation/inProcess``, for trusted input). Properties are read in this process either way.
    public var isolation: Isolation = .process
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
