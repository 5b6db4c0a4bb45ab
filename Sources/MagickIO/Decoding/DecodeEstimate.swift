/// What a decode will cost, computed from the header before it runs: an upper bound on the memory
/// the decode adds at its peak, per format, calibrated by `CostModelTests` (which decodes every
/// allowed format at three sizes in a child process and holds each estimate between the measured
/// peak and three times it).
///
/// Every decode fills ImageMagick's pixel cache: 8 bytes a pixel in Debian's Q16 build (four
/// 16-bit channels), 10 with CMYK's black channel. On top of it, per format, at the peak:
/// - JPEG, progressive: libjpeg's buffer of every DCT coefficient of the whole image (2 bytes a
///   coded sample, whatever the DCT scale); baseline: a few rows.
/// - PNG, interlaced: libpng's copy of the whole image (its stored bytes per pixel); plain: a row.
/// - GIF: the frame's colour indices and ImageMagick's decode buffers (about 3 bytes a pixel).
/// - WebP: libwebp's RGBA output (4 bytes a pixel, and a little more); a lossy picture with an
///   alpha plane, also the plane and the lossless decode of it (5 bytes a pixel, ``alphaPlaneBytes``);
///   and the tables of every prefix code group a VP8L stream names (``prefixCodeBytes``).
/// - TIFF: what ImageMagick's coder and libtiff allocate for the page's layout (strips, tiles or
///   the whole image; samples, bit depth, predictor: ``TIFFLayout``); the costliest layout when
///   the page's cannot be read. The own path in strips counts a second decoder and its bands
///   (``TIFFRows/bandedBytes(_:fileBytes:)``), which it uses when a core is idle.
/// - BMP: ImageMagick reads the stored pixel data whole (4 bytes a pixel).
/// - HEIC/AVIF (decoded by MagickIO through libheif, ``HEIFPrimary``): libheif's YCbCr planes,
///   the codec's reference frames and the interleaved RGB(A) copy; about 8 bytes a pixel (12 with
///   alpha), and a few MiB for the codec itself. The pixels are the picture the bitstream codes
///   when it is larger than the declared size (``ImageHeader/codedPixels``). A thumbnail of a grid
///   decoded a row of tiles at a time (``HEIFTiling``): that row's RGB and one tile's decode; of
///   an 8-bit HEVC image without alpha: libheif's planar RGB, without the interleaved copy.
/// An animation frame is composited on its canvas: a second canvas-sized image.
///
/// When MagickIO cannot read the header, it assumes the costliest case for the format (fail closed):
/// a progressive CMYK 4:4:4 JPEG, an interlaced 16-bit RGBA PNG.
struct DecodeEstimate: Sendable, Hashable {
    /// The size the decoder will produce (after JPEG shrink-on-load).
    var width: Int
    var height: Int
    /// Bytes ImageMagick's pixel cache will hold: what its process-wide memory limit counts.
    var cacheBytes: Int
    /// Bytes the decode needs at its peak, the pixel cache included.
    var bytes: Int

    /// A fixed allowance per decode for the codec's own tables and buffers, and the pages of code
    /// a first decode in a process brings in (the calibration probe measures a first decode, and
    /// its resident set varies by about 150 KiB from run to run on a debug build).
    static let fixedOverhead = 768 << 10

    /// The estimate for decoding a `width` x `height` frame (as stored) of `format` whose header is
    /// `header` (nil when MagickIO could not read it), at `jpegHint` if given; `composited` when the
    /// frame is drawn on a canvas of that size; `page`: a TIFF's page.
    init(format: ImageFormat, header: ImageHeader?, width: Int, height: Int, jpegHint: JPEGScale.Hint?,
         composited: Bool = false, page: Int = 0) {
        var size = (width: width, height: height)
        if format == .jpeg, let jpegHint {
            size = JPEGScale.decodedSize(width: width, height: height, hint: jpegHint)
        }
        let stored = width.saturatingTimes(height)
        let decoded = size.width.saturatingTimes(size.height)
        // CMYK (four components, no alpha) carries a fifth 16-bit channel in the cache.
        let cmyk = header.map { $0.components >= 4 && !$0.hasAlpha } ?? (format == .jpeg || format == .tiff)
        var cache = decoded.saturatingTimes(cmyk ? 10 : 8)
        if composited { cache = cache.saturatingTimes(2) }

        var extra = 0
        var overhead = Self.fixedOverhead
        switch format {
        case .jpeg:
            // Unknown header: progressive, four components, no subsampling (8 bytes a pixel).
            let progressive = header?.isProgressive ?? true
            let samples = header?.samplesPerPixel ?? 4
            if progressive {
                extra = Self.bytes(Double(stored) * samples * 2)
            }
        case .png:
            let interlaced = header?.isInterlaced ?? true
            if interlaced {
                let channels = header?.components ?? 4
                let bits = header?.bitDepth ?? 16
                extra = Self.bytes(Double(stored) * Double(channels * max(bits, 8)) / 8)
            }
        case .gif:
            extra = decoded.saturatingTimes(3)
        case .webp:
            extra = decoded.saturatingTimes(5)
            if header?.isLossless == false, header?.hasAlpha != false {
                extra = decoded.saturatingTimes(4).saturatingPlus(Self.alphaPlaneBytes(stored))
            }
            extra = extra.saturatingPlus(Self.prefixCodeBytes(header, width: width, height: height))
        case .tiff:
            let pages = header?.tiffPages ?? []
            let layout = pages.indices.contains(page) ? pages[page] : TIFFLayout.costliest(width: width, height: height)
            extra = layout.coderBytes
        case .bmp:
            extra = decoded.saturatingTimes(4).saturatingPlus(header?.copiedBytes ?? 0)
        case .heic, .avif:
            // A bitstream or canvas larger than declared: libheif hands over that picture.
            let pictured = Self.libheifPixels(stored: stored, header: header)
            extra = Self.libheifBytes(pixels: pictured, header: header)
            cache = max(cache, pictured.saturatingTimes(8))
            overhead = Self.libheifOverhead
        default:
            // A format MagickIO does not model: as much again as the cache.
            extra = cache
        }
        let total = cache.saturatingPlus(extra)
        self.width = size.width
        self.height = size.height
        self.cacheBytes = cache
        // A sixteenth on top for what the per-pixel figures round away.
        self.bytes = total.saturatingPlus(total / 16).saturatingPlus(overhead)
    }

    /// What a lossy WebP's alpha plane costs libwebp, at whatever scale the picture is decoded:
    /// the plane at full size (a byte a pixel) and, for an `ALPH` chunk compressed losslessly
    /// (MagickIO does not look which), the VP8L decoder's whole ARGB image of it (4 bytes a pixel
    /// unless the plane is palette-coded). An 8191x8191 lossy WebP of 177 KB peaked at 354 MiB.
    static func alphaPlaneBytes(_ storedPixels: Int) -> Int {
        storedPixels.saturatingTimes(5)
    }

    /// What libwebp allocates for the prefix codes of a WebP's VP8L streams (``VP8LPrefixCodes``):
    /// the worst case for a `width` x `height` stream when the walk did not read them.
    static func prefixCodeBytes(_ header: ImageHeader?, width: Int, height: Int) -> Int {
        (header?.vp8lCodes ?? .worstCase(width: width, height: height)).bytes
    }

    /// What a thumbnail's resize adds to its decode: the result and its copy, 16-bit RGBA (16
    /// bytes a pixel), and the resampler's rows of the decoded width (a few rows of 4 floats).
    static func resizeBytes(from decodedWidth: Int, to output: (width: Int, height: Int)) -> Int {
        output.width.saturatingTimes(output.height).saturatingTimes(16).saturatingPlus(decodedWidth.saturatingTimes(16 * 8))
    }

    /// The estimate for a thumbnail through MagickIO's own JPEG or PNG path (``RowSource``), which
    /// never holds the decoded image: libjpeg's coefficient buffer for a progressive JPEG (as
    /// above; unknown header: assumed progressive 4:4:4) and the buffer a JPEG is read into
    /// (``JPEGRows/readBufferBytes(fileBytes:)``; counted also where a worker maps the file
    /// instead, ``JPEGRows/mapsFile(size:)``), the decoder's and the resampler's rows
    /// (at most eight sums of the decoded width in floats, the four source rows taken at a time
    /// (or up to sixteen of 8-bit RGB, which take less) and two more, and the decoder's own row buffers,
    /// counted as 64 more floats a pixel of width), and the output image (``resizeBytes``). A PNG:
    /// the ISA-L path's state beside its rows (``PNGRows/fastStateBytes``). A HEIC
    /// or AVIF is held whole by libheif: what the other path counts for it beyond the cache
    /// (its planes, the codec's frames, the RGB(A) copy the rows come from), and its codec's
    /// allowance. A WebP: libwebp's scaled RGBA output, the `fileBytes` its incremental decoder
    /// appends, and its state: for a lossless bitstream (or one not known to be lossy) the whole
    /// stored image and its transforms (5 bytes a pixel), for a lossy one its rows and, when it
    /// may have alpha, ``alphaPlaneBytes``; and ``prefixCodeBytes``. A TIFF's page decoded on two
    /// threads (`banded`, ``StreamPlan/bandRows``): its second decoder and bands too.
    static func streamed(format: ImageFormat, header: ImageHeader?, stored: (width: Int, height: Int),
                         decoded: (width: Int, height: Int), output: (width: Int, height: Int),
                         fileBytes: Int = 0, banded: Bool = false) -> DecodeEstimate {
        var extra = 0
        let storedPixels = stored.width.saturatingTimes(stored.height)
        if format == .jpeg, header?.isProgressive ?? true {
            let samples = header?.samplesPerPixel ?? 4
            extra = bytes(Double(storedPixels) * samples * 2)
        }
        if format == .jpeg {
            extra = extra.saturatingPlus(JPEGRows.readBufferBytes(fileBytes: fileBytes))
        }
        if format == .png {
            extra = PNGRows.fastStateBytes
        }
        if format == .webp {
            let lossless = header?.isLossless ?? true
            let state = lossless ? storedPixels.saturatingTimes(5)
                : (header?.hasAlpha == false ? 0 : alphaPlaneBytes(storedPixels)).saturatingPlus(stored.width.saturatingTimes(64))
            extra = decoded.width.saturatingTimes(decoded.height).saturatingTimes(4)
                .saturatingPlus(fileBytes).saturatingPlus(state)
                .saturatingPlus(prefixCodeBytes(header, width: stored.width, height: stored.height))
        }
        if format == .tiff {
            let page = header?.tiffPages.first ?? .costliest(width: stored.width, height: stored.height)
            extra = TIFFRows.streamedBytes(page, fileBytes: fileBytes)
                .saturatingPlus(banded ? TIFFRows.bandedBytes(page, fileBytes: fileBytes) : 0)
        }
        var overhead = fixedOverhead
        // A grid decoded a row of tiles at a time (``HEIFTiling``) comes at its canvas's width.
        var rowWidth = header?.tiling?.canvas.width ?? decoded.width
        if format.isHEIF {
            extra = if let tiling = header?.tiling {
                tiling.bandBytes.saturatingPlus(tiling.tileDecodeBytes)
            } else if let planar = header?.planarImage {
                planarBytes(pixels: libheifPixels(stored: stored.width.saturatingTimes(stored.height), header: header), planar)
            } else {
                libheifBytes(pixels: libheifPixels(stored: stored.width.saturatingTimes(stored.height), header: header), header: header)
            }
            overhead = libheifOverhead
        }
        // A HEIF picture larger than declared comes at a width the header does not give: at most
        // its pixels, and no wider than a codec codes.
        if format.isHEIF, let coded = header?.codedPixels {
            rowWidth = max(rowWidth, min(coded, maxCodedWidth))
        }
        let rows = rowWidth.saturatingTimes(4 * 4 * (8 + Resampler.groupRows + 2) + 64 * 4)
        let total = extra.saturatingPlus(rows).saturatingPlus(resizeBytes(from: rowWidth, to: output))
        var estimate = DecodeEstimate(format: format, header: header, width: stored.width, height: stored.height, jpegHint: nil)
        estimate.width = decoded.width
        estimate.height = decoded.height
        estimate.cacheBytes = output.width.saturatingTimes(output.height).saturatingTimes(8)
        estimate.bytes = total.saturatingPlus(total / 16).saturatingPlus(overhead)
        return estimate
    }

    /// The widest picture a HEIF's codec codes (AV1's 65,536; HEVC's is less).
    static let maxCodedWidth = 65_536

    /// The pixels libheif decodes for a HEIC or AVIF of `stored` pixels: those, or the larger
    /// picture its bitstream or canvas makes (``ImageHeader/codedPixels``).
    private static func libheifPixels(stored: Int, header: ImageHeader?) -> Int {
        max(stored, header?.codedPixels ?? 0)
    }

    /// libheif's part of a HEIC or AVIF decode of `pixels` (see the type's notes).
    private static func libheifBytes(pixels: Int, header: ImageHeader?) -> Int {
        pixels.saturatingTimes(header?.hasAlpha == false ? 8 : 12)
    }

    /// libheif's part of a thumbnail's decode of an 8-bit HEVC image to planar RGB (``HEIFRows``):
    /// the codec's frame and libheif's copy of it, then that copy and the RGB planes (3 bytes a
    /// pixel), then (turned or cropped) the planes and their copy, whichever is most, and a
    /// quarter byte a pixel for the codec's own tables (measured at 0.08). A frame is 1 byte a
    /// pixel of luma and, per its chroma format, none, a half, one or two of chroma.
    private static func planarBytes(pixels: Int, _ image: HEIFPlanarImage) -> Int {
        let frame = 1 + [0, 0.5, 1, 2][image.chroma & 3]
        return bytes(Double(pixels) * (max(2 * frame, frame + 3, image.copied ? 6 : 0) + 0.25))
    }

    /// The HEVC or AV1 codec's own allowance. Measured (`CostModelTests`, the whole decode of a
    /// 0.5 MP picture, pixels included): 6.8-7.3 MB with Debian 12's libheif 1.15, 5.5-5.7 MB with
    /// Debian 13's 1.19. At 8 MiB the smallest HEIC's estimate came to 2.9-3.0x the measure on
    /// Debian 13, past the model's 3x; 7 MiB still bounds every measure from above.
    private static let libheifOverhead = 7 << 20

    private static func bytes(_ value: Double) -> Int {
        value < Double(Int.max) ? Int(value) : .max
    }
}
