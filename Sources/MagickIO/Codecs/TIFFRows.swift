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
    /// One row as libtiff's samples are expanded to RGB(A).
    private var scratch: UnsafeMutableRawPointer?

    /// The first page of `input` opened and its rows set up. Throws a fallback for a layout this
    /// path does not take and for a page whose size is not the `stored` one the plan was made for
    /// (the Swift header's).
    init(input: UnsafePointer<UInt8>?, descriptor: Int32, size: Int, stored expected: (width: Int, height: Int),
         allocationLimit: Int) throws(RowSourceFailure) {
        guard let decoder = mio_tiff_create() else { throw .fallback("libtiff could not start") }
        self.decoder = decoder
        try check(mio_tiff_open(decoder, input, descriptor, size, allocationLimit, &info))
        try checkMessages()
        guard Int(info.width) == expected.width, Int(info.height) == expected.height else {
            throw .fallback("libtiff reads \(info.width)x\(info.height), the header \(expected.width)x\(expected.height)")
        }
        guard info.extra_samples <= 1 else { throw .fallback("a TIFF with \(info.extra_samples) extra samples") }
        var length = 0
        if let icc = mio_tiff_icc(decoder, &length), length > 0 {
            iccProfile = Array(UnsafeBufferPointer(start: icc, count: length))
        }
        try check(mio_tiff_start(decoder, &info))
        try checkMessages()
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
    /// report and judge: the file goes that way.
    private func checkMessages() throws(RowSourceFailure) {
        if mio_tiff_warnings(decoder) > 0 || mio_tiff_errors(decoder) > 0 {
            throw .fallback("libtiff: \(String(cString: mio_tiff_message(decoder)))")
        }
    }

    private func check(_ status: Int32) throws(RowSourceFailure) {
        guard status != 0 else { return }
        throw .fallback("libtiff: \(String(cString: mio_tiff_message(decoder)))")
    }
}

// MARK: - Which layouts, at what cost

extension TIFFRows {
    /// Whether the own path takes a page of this layout, from its header (libtiff's reading of
    /// the directory is checked again as it opens): unsigned samples; grey (1, 2, 4, 8, 16 bits,
    /// or 8 and 16 with alpha), palette (up to 8 bits), RGB(A) of 8 or 16 bits, or JPEG's YCbCr;
    /// uncompressed, CCITT G3 or G4 (1 bit), LZW, JPEG (8 bits), deflate or PackBits; no predictor
    /// but the horizontal one. Everything else (CMYK, YCbCr without JPEG, CIELab, floating point,
    /// more than 16 bits, other compressions) stays on ImageMagick's path.
    static func takes(_ page: TIFFLayout) -> Bool {
        let bits = page.bitsPerSample, samples = page.samplesPerPixel
        guard page.sampleFormat == 1, page.predictor == 1 || page.predictor == 2, page.width > 0, page.height > 0 else { return false }
        let low = [1, 2, 4].contains(bits), wide = bits == 8 || bits == 16
        switch page.compression {
        case 1, 5, 8, 32946, 32773: break
        case 3, 4: guard bits == 1, samples == 1, page.photometric <= 1 else { return false }
        case 7: guard bits == 8 else { return false }
        default: return false
        }
        if page.isPlanar, samples > 1, !wide { return false }
        if let tile = page.tile, tile.width <= 0 || tile.height <= 0 || tile.width % 16 != 0 || tile.height % 16 != 0 { return false }
        switch page.photometric {
        case 0, 1: return (samples == 1 && (low || wide)) || (samples == 2 && wide)
        case 3: return samples == 1 && (low || bits == 8)
        case 2: return (samples == 3 || samples == 4) && wide
        case 6: return page.compression == 7 && samples == 3
        default: return false
        }
    }

    /// The bytes the own path adds to read a page of `page`'s layout from a file of `fileBytes`,
    /// beyond the rows and the resampler (``DecodeEstimate/streamed(format:header:stored:decoded:output:fileBytes:)``):
    /// libtiff's strip or tile offsets and byte counts (8 bytes each, and the file's copy of them
    /// as they are read); the decoded strips of separate planes, or a row of tiles; the
    /// compressed strip or tile libtiff reads whole (at most the file, and the libtiff limit);
    /// for JPEG, libjpeg's coefficients of a strip or tile (a progressive one holds them all);
    /// the row being expanded; and libtiff's directory, tags and codec state.
    static func streamedBytes(_ page: TIFFLayout, fileBytes: Int) -> Int {
        let chunks = Chunks(page)
        let jpeg = page.compression == 7 ? chunks.pixels.saturatingTimes(max(page.samplesPerPixel, 1)).saturatingTimes(2) : 0
        return chunks.count.saturatingTimes(24)
            .saturatingPlus(chunks.decodedHeld)
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

        init(_ page: TIFFLayout) {
            let width = max(page.width, 1), height = max(page.height, 1)
            let bits = max(page.bitsPerSample, 1), samples = max(page.samplesPerPixel, 1)
            let planes = page.isPlanar ? samples : 1
            let bitsPerChunkPixel = bits.saturatingTimes(page.isPlanar ? 1 : samples)
            scanline = width.saturatingTimes(bits).saturatingTimes(samples).saturatingPlus(7) / 8
            let decodedChunk: Int
            if let tile = page.tile {
                let tileWidth = max(tile.width, 1), tileHeight = max(tile.height, 1)
                let across = width / tileWidth + (width % tileWidth == 0 ? 0 : 1)
                let down = height / tileHeight + (height % tileHeight == 0 ? 0 : 1)
                count = across.saturatingTimes(down).saturatingTimes(planes)
                pixels = tileWidth.saturatingTimes(tileHeight)
                decodedChunk = pixels.saturatingTimes(bitsPerChunkPixel).saturatingPlus(7) / 8
                decodedHeld = decodedChunk.saturatingTimes(across).saturatingTimes(planes)
            } else {
                let rows = min(max(page.rowsPerStrip ?? height, 1), height)
                count = (height / rows + (height % rows == 0 ? 0 : 1)).saturatingTimes(planes)
                pixels = rows.saturatingTimes(width)
                decodedChunk = pixels.saturatingTimes(bitsPerChunkPixel).saturatingPlus(7) / 8
                decodedHeld = page.isPlanar && samples > 1 ? decodedChunk.saturatingTimes(planes) : 0
            }
            rawLimit = max(decodedChunk.saturatingTimes(2).saturatingPlus(64 << 10), TIFFRows.minimumAllocationLimit)
        }
    }
}
