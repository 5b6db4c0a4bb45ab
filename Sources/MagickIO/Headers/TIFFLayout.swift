/// How one TIFF page stores its pixels, read from its ``TIFFIndex`` directory: what ImageMagick 6's
/// TIFF coder (6.9.11, `ReadTIFFImage`) and libtiff allocate to read it, which depends on far more
/// than the pixel count. Sixteen float64 samples a pixel in one deflate strip make a 500 KB file
/// whose read takes a gigabyte.
///
/// What the coder allocates, beyond ImageMagick's pixel cache:
/// - always, a buffer of 4 bytes times the largest of the scanline's bytes, the width times the
///   samples times the bit depth rounded up to a power of two, and the width times the rows per
///   strip (the whole image when the page has no RowsPerStrip tag, tiled pages included);
/// - the strip method (a RowsPerStrip tag): twice the decoded strip, plus 8 bytes a column;
/// - the tile method (tiled pages): the decoded tile, plus 8 bytes a column of it;
/// - the generic method (no RowsPerStrip tag, LogLuv, CCITT G3, JPEG other than 8-bit CMYK):
///   `TIFFReadRGBAImage` into 4 bytes a pixel of the whole image, and libtiff's strip or tile
///   (three or four of them for separate planes);
/// - libtiff's floating-point predictor (Predictor 3) decodes each strip or tile into a copy.
/// - ImageMagick 7 (Debian 13) reads a page of separate planes with more than one sample into a
///   pixel cache of all but the last sample first (2 bytes each), then one with it: measured
///   1.6x 6.9.11's growth for 1600x1200 RGBA16 in planes. Counted on both lines.
struct TIFFLayout: Sendable, Hashable {
    var width: Int
    var height: Int
    var bitsPerSample = 1
    /// Samples per pixel, extra samples included.
    var samplesPerPixel = 1
    /// SampleFormat: 1 unsigned, 2 signed, 3 IEEE floating point.
    var sampleFormat = 1
    /// PlanarConfiguration 2: each sample in planes of its own.
    var isPlanar = false
    /// RowsPerStrip, when the tag is there (its absence makes the coder read the page whole).
    var rowsPerStrip: Int?
    /// TileWidth and TileLength, for a tiled page.
    var tile: Tile?
    var compression = 1
    var photometric = 2
    var predictor = 1

    /// A tiled page's tile size.
    struct Tile: Sendable, Hashable {
        var width: Int
        var height: Int
    }

    /// The coder's ways to read a page (`TIFFMethodType` in coders/tiff.c).
    enum Method: Sendable {
        case strip, tile, generic
    }

    /// The most samples a pixel the coder reads (`MaxPixelChannels`).
    static let maxSamples = 32

    /// The costliest page of `width` x `height` the coder reads: 32 float64 samples a pixel in one
    /// strip with the floating-point predictor. What the guard assumes for a page whose layout it
    /// cannot read.
    static func costliest(width: Int, height: Int) -> TIFFLayout {
        TIFFLayout(width: width, height: height, bitsPerSample: 64, samplesPerPixel: maxSamples, sampleFormat: 3,
                   rowsPerStrip: height, predictor: 3)
    }

    /// The layout of every page of `index`, in IFD order; a page with a tag whose value cannot be
    /// read, or without a size, is the costliest at the size it declares (or at the first page's).
    static func pages(in index: TIFFIndex) -> [TIFFLayout] {
        var pages: [TIFFLayout] = []
        for directory in index.directories {
            let values = directory.values
            let fallback = pages.first
            guard let width = values[TIFFTag.imageWidth] ?? fallback?.width,
                  let height = values[TIFFTag.imageLength] ?? fallback?.height else { continue }
            if !directory.unreadable.isDisjoint(with: Self.tags) || values[TIFFTag.imageWidth] == nil
                || values[TIFFTag.imageLength] == nil {
                pages.append(.costliest(width: width, height: height))
                continue
            }
            var page = TIFFLayout(width: width, height: height)
            page.bitsPerSample = values[TIFFTag.bitsPerSample] ?? 1
            page.samplesPerPixel = values[TIFFTag.samplesPerPixel] ?? 1
            page.sampleFormat = values[TIFFTag.sampleFormat] ?? 1
            page.isPlanar = values[TIFFTag.planarConfiguration] == 2
            page.rowsPerStrip = values[TIFFTag.rowsPerStrip]
            if let tileWidth = values[TIFFTag.tileWidth], let tileHeight = values[TIFFTag.tileLength] {
                page.tile = Tile(width: tileWidth, height: tileHeight)
            }
            page.compression = values[TIFFTag.compression] ?? 1
            page.photometric = values[TIFFTag.photometric] ?? 2
            page.predictor = values[TIFFTag.predictor] ?? 1
            pages.append(page)
        }
        return pages
    }

    /// The tags a layout is read from: a page with one whose value cannot be read is the costliest.
    private static let tags: Set<Int> = [
        TIFFTag.imageWidth, TIFFTag.imageLength, TIFFTag.bitsPerSample, TIFFTag.compression, TIFFTag.photometric,
        TIFFTag.samplesPerPixel, TIFFTag.rowsPerStrip, TIFFTag.planarConfiguration, TIFFTag.predictor,
        TIFFTag.tileWidth, TIFFTag.tileLength, TIFFTag.sampleFormat,
    ]

    /// How the coder reads this page (`ReadTIFFImage`'s choice).
    var method: Method {
        var method: Method = tile != nil ? .tile : rowsPerStrip != nil ? .strip : .generic
        // LogLuv and CCITT G3 go through libtiff's RGBA interface.
        if photometric == 32845 || compression == 3 { method = .generic }
        // JPEG and old-style JPEG: only 8-bit CMYK is read by strips (`GetJPEGMethod`).
        if compression == 7 || compression == 6 {
            method = photometric == 5 && bitsPerSample == 8 && samplesPerPixel == 4 ? .strip : .generic
        }
        return method
    }

    /// The bytes the coder and libtiff allocate to read this page, beyond the pixel cache (see
    /// the type's notes).
    var coderBytes: Int {
        let samples = max(samplesPerPixel, 1), bits = max(bitsPerSample, 1)
        let storedBits = isPlanar ? bits : bits.saturatingTimes(samples)
        let scanline = width.saturatingTimes(storedBits).saturatingPlus(7) / 8
        let rows = min(max(rowsPerStrip ?? height, 1), height)
        var roundedBits = 1
        while roundedBits < bits, roundedBits < 1 << 20 { roundedBits <<= 1 }
        let pixelBuffer = max(scanline, width.saturatingTimes(samples).saturatingTimes(roundedBits), width.saturatingTimes(rows))
            .saturatingTimes(4)
        let strip = rows.saturatingTimes(scanline)
        let tileBytes = tile.map { $0.width.saturatingTimes($0.height).saturatingTimes(storedBits).saturatingPlus(7) / 8 }
        let chunk = tileBytes ?? strip
        var bytes = pixelBuffer
        switch method {
        case .strip:
            bytes = bytes.saturatingPlus(strip.saturatingTimes(2)).saturatingPlus(width.saturatingTimes(8))
        case .tile:
            bytes = bytes.saturatingPlus(chunk).saturatingPlus((tile?.width ?? width).saturatingTimes(8))
        case .generic:
            let rgba = width.saturatingTimes(height).saturatingPlus(width.saturatingTimes(8)).saturatingTimes(4)
            bytes = bytes.saturatingPlus(rgba).saturatingPlus(chunk.saturatingTimes(isPlanar ? min(samples, 4) : 1))
        }
        if predictor == 3 {
            bytes = bytes.saturatingPlus(chunk)
        }
        if isPlanar, samples > 1 {
            bytes = bytes.saturatingPlus(width.saturatingTimes(height).saturatingTimes(2 * (samples - 1)))
        }
        return bytes
    }
}
