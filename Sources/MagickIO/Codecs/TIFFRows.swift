internal import CCodecs
import Foundation

/// The first page of a TIFF through libtiff, one row at a time, as ImageMagick's TIFF coder (which
/// reads with libtiff too) would decode it: grey of 1, 2, 4, 8 or 16 bits (min-is-white inverted),
/// with or without alpha; a palette of up to 8 bits; RGB or RGBA of 8 or 16 bits; uncompressed,
/// PackBits, LZW, deflate, JPEG (YCbCr converted by libjpeg, as libtiff's RGBA interface does for
/// ImageMagick), CCITT G3 and G4; strips or tiles, contiguous or in separate planes. Associated
/// alpha is divided out, as ImageMagick does. Anything else, any libtiff warning and any error is
/// a ``RowSourceFailure/fallback(_:)``: ImageMagick decodes the file instead (and applies the
/// strictness to what it finds).
///
/// And, as libvips reads them, the layouts ImageMagick 6.9.11 misreads (``imageMagickMisreads(_:)``):
/// YCbCr other than new-style JPEG and old-style JPEG through libtiff's RGBA interface; signed
/// and 24-bit samples; and floating point, which it reads on a scale of its own (tiff_rows_samples.c
/// has the scales). For those it misreads ImageMagick is no fallback: libtiff's warnings are let pass, a page this path cannot open is
/// `unsupportedFormat` and an error in its rows `corruptImage`.
///
/// What is held besides the rows: a contiguous strip is decoded a row at a time (libtiff keeps
/// its compressed bytes, none when the file is in memory, and its codec's state); separate
/// planes a strip of each; tiles a row of tiles. libtiff allocates nothing in one piece over the
/// limit ``allocationLimit(_:fileBytes:)`` sets, and the estimate (``streamedBytes(_:fileBytes:)``)
/// counts all of it.
final class TIFFRows: RawRowSource {
    private let decoder: OpaquePointer
    private var info = mio_tiff_info()
    private(set) var width = 0
    private(set) var height = 0
    private(set) var channels = 3
    private(set) var iccProfile: [UInt8]?
    /// The rows are grey (R = G = B): the image is then marked grey, as ImageMagick's would be.
    private(set) var isGrey = false
    /// Associated (premultiplied) alpha, divided out in ``convert(_:into:)``.
    private var associatedAlpha = false
    private var rowsRead = 0
    /// What ImageMagick misreads in this page (``imageMagickMisreads(_:)``), or nil.
    private let misread: String?
    /// libtiff's warnings about the directory of a page ImageMagick misreads, which the strictness
    /// let pass; the thumbnail lists them (``Image/warnings``).
    private(set) var warnings: [DecoderWarning] = []
    /// One row as libtiff's samples are expanded to RGB(A).
    private var scratch: UnsafeMutableRawPointer?
    /// The rows have started (``failure(_:)``).
    private var started = false
    /// libtiff's errors before the rows started, which a page ImageMagick misreads lets pass
    /// (``checkMessages()``).
    private var errorsBeforeRows: Int32 = 0

    /// The first page of `input` opened and its rows set up. Throws a fallback for a layout this
    /// path does not take and for a page whose size is not the `stored` one the plan was made for
    /// (the Swift header's).
    /// `misread`: what ImageMagick misreads in the page (``imageMagickMisreads(_:)``), whose
    /// libtiff warnings `strictness` then judges, as ImageMagick's path would.
    init(input: UnsafePointer<UInt8>?, descriptor: Int32, size: Int, stored expected: (width: Int, height: Int),
         allocationLimit: Int, misread: String? = nil, strictness: Strictness = .refuseDamage) throws(RowSourceFailure) {
        self.misread = misread
        guard let decoder = mio_tiff_create() else { throw .fallback("libtiff could not start") }
        self.decoder = decoder
        try check(mio_tiff_open(decoder, input, descriptor, size, allocationLimit, &info))
        try checkMessages()
        if let misread, mio_tiff_warnings(decoder) > 0 || mio_tiff_errors(decoder) > 0 {
            let warning = DecoderWarning("libtiff: \(String(cString: mio_tiff_message(decoder)))", format: .tiff)
            if strictness.refuses(warning) { throw .stopped(MagickIOError(.corruptImage, "a TIFF of \(misread): \(warning.message)")) }
            warnings.append(warning)
        }
        guard Int(info.width) == expected.width, Int(info.height) == expected.height else {
            throw failure("libtiff reads \(info.width)x\(info.height), the header \(expected.width)x\(expected.height)")
        }
        guard info.extra_samples <= 1 else { throw failure("\(info.extra_samples) extra samples") }
        var length = 0
        if let icc = mio_tiff_icc(decoder, &length), length > 0 {
            iccProfile = Array(UnsafeBufferPointer(start: icc, count: length))
        }
        try check(mio_tiff_start(decoder, &info))
        try checkMessages()
        started = true
        errorsBeforeRows = mio_tiff_errors(decoder)
        width = Int(info.width)
        height = Int(info.height)
        channels = Int(info.output_channels)
        isGrey = info.grey != 0
        associatedAlpha = channels == 4 && info.extra_samples == 1 && info.first_extra == 1
        scratch = .allocate(byteCount: max(info.row_bytes, 1), alignment: 16)
    }

    deinit {
        mio_tiff_destroy(decoder)
        scratch?.deallocate()
    }

    var rawRowBytes: Int { info.row_bytes }

    /// The rows of a strip as libtiff reads the page (its RowsPerStrip, or the page's height).
    var rowsPerStrip: Int { Int(min(info.rows_per_strip, info.height)) }

    func readRow(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) {
        guard let scratch else { throw .fallback("not started") }
        try readRawRow(into: scratch)
        convert(scratch, into: row)
    }

    func readRawRow(into raw: UnsafeMutableRawPointer) throws(RowSourceFailure) {
        try check(mio_tiff_read_row(decoder, raw.assumingMemoryBound(to: UInt8.self)))
        try checkMessages()
        rowsRead += 1
    }

    /// Makes `row`, the first row of a strip, the next one read (``BandedRows``: two decoders on
    /// one file, each reading its own strips).
    func seek(toRow row: Int) throws(RowSourceFailure) {
        guard let row32 = UInt32(exactly: row) else { throw .fallback("row \(row) is out of the page") }
        try check(mio_tiff_seek_row(decoder, row32))
        rowsRead = row
    }

    /// 8-bit RGB after the C side's transforms (8-bit grey, which it widens to RGB, included; a
    /// palette's rows are 16-bit).
    var givesRGBBytes: Bool { channels == 3 && info.output_bytes == 1 }

    func convert(_ raw: UnsafeRawPointer, into row: UnsafeMutablePointer<Float>) {
        let count = width * channels
        SampleConversion.convert(raw, bytesPerSample: Int(info.output_bytes), count: count, into: row)
        guard associatedAlpha else { return }
        var i = 0
        while i < count {
            let alpha = row[i + 3]
            if alpha > 0 {
                row[i] = min(row[i] / alpha, 1)
                row[i + 1] = min(row[i + 1] / alpha, 1)
                row[i + 2] = min(row[i + 2] / alpha, 1)
            }
            i += 4
        }
    }

    func finish() throws(RowSourceFailure) {
        guard let scratch else { throw .fallback("not started") }
        while rowsRead < height {
            try readRawRow(into: scratch)
        }
    }

    /// libtiff's warnings (a tag it does not know, a count it corrects) are ImageMagick's to
    /// report and judge: the file goes that way. Unless ImageMagick misreads it: then warnings,
    /// and errors in the directory that libtiff read past (a tag of an unknown type, as old-style
    /// JPEG files have), pass; only an error in the rows stops them.
    private func checkMessages() throws(RowSourceFailure) {
        if misread != nil {
            if started, mio_tiff_errors(decoder) > errorsBeforeRows { throw failure("libtiff: \(String(cString: mio_tiff_message(decoder)))") }
            return
        }
        if mio_tiff_errors(decoder) > 0 || mio_tiff_warnings(decoder) > 0 {
            throw failure("libtiff: \(String(cString: mio_tiff_message(decoder)))")
        }
    }

    private func check(_ status: Int32) throws(RowSourceFailure) {
        guard status != 0 else { return }
        throw failure("libtiff: \(String(cString: mio_tiff_message(decoder)))")
    }

    /// Why the rows stop: ImageMagick's path, or for a page it misreads, `unsupportedFormat`
    /// before the rows start and `corruptImage` in them.
    private func failure(_ reason: String) -> RowSourceFailure {
        guard let misread else { return .fallback(reason) }
        return .stopped(MagickIOError(started ? .corruptImage : .unsupportedFormat, "a TIFF of \(misread): \(reason)"))
    }
}

// MARK: - Which layouts, at what cost

extension TIFFRows {
    /// Whether the own path takes a page of this layout, from its header (libtiff's reading of
    /// the directory is checked again as it opens): unsigned samples; grey (1, 2, 4, 8, 16 bits,
    /// or 8 and 16 with alpha), palette (up to 8 bits), RGB(A) of 8 or 16 bits, or JPEG's YCbCr;
    /// uncompressed, CCITT G3 or G4 (1 bit), LZW, JPEG (8 bits), deflate or PackBits; no predictor
    /// but the horizontal one. And what ImageMagick misreads: grey or RGB(A) of signed 8 or 16,
    /// unsigned 24, or 16-, 32- or 64-bit floating-point samples (the floating-point predictor
    /// too); three 8-bit samples of YCbCr (not new-style JPEG) or old-style JPEG. Everything else
    /// (CMYK, CIELab, 32-bit integers, other compressions) stays on ImageMagick's path.
    static func takes(_ page: TIFFLayout) -> Bool {
        let bits = page.bitsPerSample, samples = page.samplesPerPixel
        guard page.width > 0, page.height > 0 else { return false }
        if let tile = page.tile, tile.width <= 0 || tile.height <= 0 || tile.width % 16 != 0 || tile.height % 16 != 0 { return false }
        if page.compression == 6 || (page.photometric == 6 && page.compression != 7) {
            // libtiff's RGBA interface.
            // An old-style JPEG without SamplesPerPixel (1, the default) has the JPEG's three.
            return bits == 8 && (samples == 3 || (samples == 1 && page.compression == 6)) && page.sampleFormat == 1
                && [2, 6].contains(page.photometric)
                && [1, 5, 6, 8, 32946, 32773].contains(page.compression) && [1, 2].contains(page.predictor)
        }
        let converted = page.sampleFormat != 1 || bits == 24
        let float = page.sampleFormat == 3 && [16, 32, 64].contains(bits)
        if converted {
            guard float || (page.sampleFormat == 2 && (bits == 8 || bits == 16)) || (page.sampleFormat == 1 && bits == 24),
                  page.predictor == 1 || page.predictor == 2 || (float && page.predictor == 3),
                  [1, 5, 8, 32946, 32773].contains(page.compression) else { return false }
            switch page.photometric {
            case 0, 1: return samples == 1 || samples == 2
            case 2: return samples == 3 || samples == 4
            default: return false
            }
        }
        guard page.predictor == 1 || page.predictor == 2 else { return false }
        let low = [1, 2, 4].contains(bits), wide = bits == 8 || bits == 16
        switch page.compression {
        case 1, 5, 8, 32946, 32773: break
        case 3, 4: guard bits == 1, samples == 1, page.photometric <= 1 else { return false }
        case 7: guard bits == 8 else { return false }
        default: return false
        }
        if page.isPlanar, samples > 1, !wide { return false }
        switch page.photometric {
        case 0, 1: return (samples == 1 && (low || wide)) || (samples == 2 && wide)
        case 3: return samples == 1 && (low || bits == 8)
        case 2: return (samples == 3 || samples == 4) && wide
        case 6: return page.compression == 7 && samples == 3
        default: return false
        }
    }

    /// The rows of a band when a page of `page`'s layout is decoded on two threads
    /// (``BandedRows``), or nil when it is not: a contiguous page in strips, compressed with LZW,
    /// deflate, PackBits or CCITT (an uncompressed strip costs a copy, not a decode; JPEG in TIFF,
    /// whose tables and colour conversion libtiff sets up per file, stays on one thread), read a
    /// strip row at a time (not through the RGBA interface), of at least four bands. A band is
    /// whole strips, at least ``BandedRows/minimumBandRows`` rows, and the three bands held at
    /// once fit in ``BandedRows/maximumBandBytes``.
    static func bandRows(_ page: TIFFLayout) -> Int? {
        guard takes(page), page.tile == nil, !(page.isPlanar && page.samplesPerPixel > 1),
              [3, 4, 5, 8, 32946, 32773].contains(page.compression), page.photometric != 6,
              let strip = page.rowsPerStrip, strip > 0, strip < page.height else { return nil }
        let rows = (BandedRows.minimumBandRows + strip - 1) / strip * strip
        guard page.height / rows >= 4,
              bandsBytes(page, rows: rows) <= BandedRows.maximumBandBytes else { return nil }
        return rows
    }

    /// The bands held at once when a band is `rows` rows of `page` (rows padded to 64 bytes).
    private static func bandsBytes(_ page: TIFFLayout, rows: Int) -> Int {
        BandedRows.slots.saturatingTimes(rows).saturatingTimes(outputRowBytes(page) + 64)
    }

    /// At least the bytes of one row as the own path hands it out (mio_tiff_start): RGB, or RGBA
    /// when there may be an alpha sample; 2 bytes a sample from more than 8 bits stored and from
    /// a colour map, else 1.
    static func outputRowBytes(_ page: TIFFLayout) -> Int {
        let channels = page.samplesPerPixel == 2 || page.samplesPerPixel >= 4 ? 4 : 3
        let bytes = page.bitsPerSample > 8 || page.photometric == 3 ? 2 : 1
        return max(page.width, 1).saturatingTimes(channels * bytes)
    }

    /// What decoding a page of `page`'s layout on two threads adds (``bandRows(_:)``): the second
    /// decoder (``streamedBytes(_:fileBytes:)`` again) and the bands held. Zero when it would not be.
    static func bandedBytes(_ page: TIFFLayout, fileBytes: Int) -> Int {
        guard let rows = bandRows(page) else { return 0 }
        return streamedBytes(page, fileBytes: fileBytes)
            .saturatingPlus(bandsBytes(page, rows: rows))
    }

    /// What ImageMagick 6.9.11's TIFF coder misreads in a page of `page`'s layout, or nil:
    /// YCbCr other than new-style JPEG and old-style JPEG (stripes of green and magenta), 24-bit
    /// samples (scrambled), signed 8-bit ones (read as unsigned), integers of more than 32 bits
    /// (which it refuses as corrupt), floating point other than of 16, 32 or 64 bits. Its path is
    /// no fallback for them: the own path decodes them (``takes(_:)``), and any other decode of
    /// such a page is refused as `unsupportedFormat` (``ImageSource/checkLimits(frame:jpegHint:)``).
    /// Floats of 16, 32 and 64 bits it reads right, on its own scale (0-1: a picture stored 0-255
    /// comes out white), so it stays their fallback.
    static func imageMagickMisreads(_ page: TIFFLayout) -> String? {
        if page.compression == 6 { return "old-style JPEG (Compression 6)" }
        if page.photometric == 6 && page.compression != 7 { return "YCbCr in compression \(page.compression)" }
        let bits = page.bitsPerSample
        switch page.sampleFormat {
        case 2 where bits == 8: return "signed 8-bit samples"
        case 3: return [16, 32, 64].contains(bits) ? nil : "\(bits)-bit floating-point samples"
        default: break
        }
        if bits == 24 || bits > 32 { return "\(bits)-bit \(page.sampleFormat == 2 ? "signed" : "unsigned") integer samples" }
        return nil
    }

    /// The bytes the own path adds to read a page of `page`'s layout from a file of `fileBytes`,
    /// beyond the rows and the resampler (``DecodeEstimate/streamed(format:header:stored:decoded:output:fileBytes:banded:)``):
    /// libtiff's strip or tile offsets and byte counts (8 bytes each, and the file's copy of them
    /// as they are read); the decoded strips of separate planes, or a row of tiles; the
    /// compressed strip or tile libtiff reads whole (at most the file, and the libtiff limit);
    /// for JPEG (old-style too), libjpeg's coefficients of a strip or tile (a progressive one
    /// holds them all); the row being expanded; and libtiff's directory, tags and codec state.
    /// Through libtiff's RGBA interface (YCbCr, old-style JPEG): a band of RGBA rows, 4 bytes a
    /// pixel of a strip or a row of tiles, and the one strip or tile libtiff decodes into it.
    static func streamedBytes(_ page: TIFFLayout, fileBytes: Int) -> Int {
        let chunks = Chunks(page)
        let jpeg = page.compression == 7 || page.compression == 6
            ? chunks.pixels.saturatingTimes(max(page.samplesPerPixel, 1)).saturatingTimes(2) : 0
        let rgba = page.compression == 6 || (page.photometric == 6 && page.compression != 7)
            ? chunks.bandRows.saturatingTimes(max(page.width, 1)).saturatingTimes(4).saturatingPlus(chunks.decodedChunk) : 0
        return chunks.count.saturatingTimes(24)
            .saturatingPlus(chunks.decodedHeld)
            .saturatingPlus(rgba)
            .saturatingPlus(min(max(fileBytes, 0), chunks.rawLimit))
            .saturatingPlus(jpeg)
            .saturatingPlus(chunks.scanline.saturatingTimes(2))
            .saturatingPlus(Self.libtiffAllowance)
    }

    /// The most libtiff may allocate in one piece for a page of `page`'s layout: its compressed
    /// strip or tile, an array of their offsets, or ``minimumAllocationLimit``.
    static func allocationLimit(_ page: TIFFLayout?, fileBytes: Int) -> Int {
        guard let page else { return minimumAllocationLimit }
        let chunks = Chunks(page)
        return max(chunks.rawLimit, chunks.count.saturatingTimes(8).saturatingPlus(4096), minimumAllocationLimit)
    }

    /// libtiff's directory, its tags' values and its codec's state.
    static let libtiffAllowance = 2 << 20
    /// Enough for a directory's entries and ordinary tags (an ICC profile, a colour map).
    static let minimumAllocationLimit = 4 << 20

    /// A page's strips or tiles, in bytes.
    private struct Chunks {
        /// Strips or tiles, over all planes.
        var count = 0
        /// Pixels in one strip or tile.
        var pixels = 0
        /// The decoded bytes held at once: a strip of each plane, or a row of tiles.
        var decodedHeld = 0
        /// A compressed strip or tile libtiff may read whole (twice the decoded bytes of one).
        var rawLimit = 0
        /// One row of stored samples.
        var scanline = 0
        /// One decoded strip or tile.
        var decodedChunk = 0
        /// The rows of a strip, or of a row of tiles.
        var bandRows = 0

        init(_ page: TIFFLayout) {
            let width = max(page.width, 1), height = max(page.height, 1)
            let bits = max(page.bitsPerSample, 1), samples = max(page.samplesPerPixel, 1)
            let planes = page.isPlanar ? samples : 1
            let bitsPerChunkPixel = bits.saturatingTimes(page.isPlanar ? 1 : samples)
            scanline = width.saturatingTimes(bits).saturatingTimes(samples).saturatingPlus(7) / 8
            if let tile = page.tile {
                let tileWidth = max(tile.width, 1), tileHeight = max(tile.height, 1)
                let across = width / tileWidth + (width % tileWidth == 0 ? 0 : 1)
                let down = height / tileHeight + (height % tileHeight == 0 ? 0 : 1)
                count = across.saturatingTimes(down).saturatingTimes(planes)
                pixels = tileWidth.saturatingTimes(tileHeight)
                decodedChunk = pixels.saturatingTimes(bitsPerChunkPixel).saturatingPlus(7) / 8
                decodedHeld = decodedChunk.saturatingTimes(across).saturatingTimes(planes)
                bandRows = tileHeight
            } else {
                let rows = min(max(page.rowsPerStrip ?? height, 1), height)
                count = (height / rows + (height % rows == 0 ? 0 : 1)).saturatingTimes(planes)
                pixels = rows.saturatingTimes(width)
                decodedChunk = pixels.saturatingTimes(bitsPerChunkPixel).saturatingPlus(7) / 8
                decodedHeld = page.isPlanar && samples > 1 ? decodedChunk.saturatingTimes(planes) : 0
                bandRows = rows
            }
            rawLimit = max(decodedChunk.saturatingTimes(2).saturatingPlus(64 << 10), TIFFRows.minimumAllocationLimit)
        }
    }
}
