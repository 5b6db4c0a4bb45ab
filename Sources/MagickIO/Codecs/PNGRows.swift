internal import CCodecs
import Foundation

/// A PNG's rows through libpng, one at a time, as ImageMagick's PNG coder would decode them:
/// non-interlaced RGB, RGBA or palette images (palette and `tRNS` expanded to RGBA, 16-bit kept),
/// whose gamma, if given, is sRGB's. Anything else (interlaced, grey, another gamma, an `oFFs`
/// page offset), any warning and any error is a ``RowSourceFailure/fallback(_:)``: ImageMagick
/// decodes the file instead.
///
/// libpng reads every chunk before the image data; the image data of 8-bit RGB and RGBA (no
/// `tRNS`) is then inflated by ISA-L and unfiltered by `png_inflate.c`, about twice as fast as
/// libpng's zlib, under the rules libpng applies (CRCs, Adler-32, IDAT contiguity, too much or too
/// little data, IEND); whatever it doubts is a fallback too. `fastInflate: false` keeps libpng's
/// rows throughout (the parity tests). In a decode worker that path reads the file where it lies
/// (``mapsFile(size:)``); decoded on a second thread (``PipelinedRows``) it lends its rows where
/// ISA-L inflated them (``RowLender``), three batches of 16 kept rather than one.
final class PNGRows: RowLender {
    private let decoder: OpaquePointer
    /// The ISA-L path, when it took the image data.
    private var fast: OpaquePointer?
    /// The file mapped for the ISA-L path to read in place (``mapsFile(size:)``), unmapped after it.
    private var mapping: FileMapping?
    private var info = mio_png_info()
    private(set) var width = 0
    private(set) var height = 0
    private(set) var channels = 3
    private(set) var iccProfile: [UInt8]?
    private var rowsRead = 0
    /// One row as libpng gives it.
    private var scratch: UnsafeMutableRawPointer?

    /// The most bytes one ancillary chunk (iCCP, zTXt, ...) may decompress to: libpng's default.
    static let chunkLimit = 8_000_000

    /// PNG's largest width and height (2^31 - 1).
    static let largestSide: UInt32 = 0x7FFF_FFFF

    /// What the ISA-L path holds besides its rows, whatever the width (``mio_pngfast_state_bytes``:
    /// its inflate state and read buffer, about 150 KiB), beside libpng's own state.
    static let fastStateBytes = Int(mio_pngfast_state_bytes())

    /// `mapsFile`: whether a file (`descriptor`) the ISA-L path reads is mapped rather than read
    /// (``mapsFile(size:)`` unless a test says); `releaseWindow`: how much of its image data read
    /// stays resident before it is let go (the whole file stays mapped).
    init(input: UnsafePointer<UInt8>?, descriptor: Int32, size: Int, fastInflate: Bool = true, mapsFile: Bool? = nil,
         releaseWindow: Int = PNGRows.releaseWindow) throws(RowSourceFailure) {
        // The sides libpng accepts: PNG's own largest. ImageMagick's width and height limits bind
        // its pixel cache, which these rows never enter; the limits checked before the decode
        // (pixel count, memory budget) bound what they cost.
        guard let decoder = mio_png_create(Self.chunkLimit, Self.largestSide, Self.largestSide) else { throw .fallback("libpng could not start") }
        self.decoder = decoder
        try check(mio_png_open(decoder, input, descriptor, size, &info))
        let colour = info.color_type
        // 2: RGB, 3: palette, 6: RGBA. Grey stays grey on ImageMagick's path.
        guard colour == 2 || colour == 3 || colour == 6, info.interlaced == 0, info.has_offs == 0 else {
            throw .fallback("a PNG of colour type \(colour), interlaced \(info.interlaced)")
        }
        // ImageMagick takes a gAMA other than sRGB's (1/2.2) as a colour space of its own (1.0 is
        // linear RGB) and converts from it; an sRGB chunk overrides gAMA.
        if info.has_gama != 0, info.has_srgb == 0, abs(info.gamma - 0.45455) > 0.00002 {
            throw .fallback("a PNG with gamma \(info.gamma)")
        }
        var length = 0
        if let icc = mio_png_icc(decoder, &length), length > 0 {
            iccProfile = Array(UnsafeBufferPointer(start: icc, count: length))
        }
        let takesFastPath = fastInflate && info.bit_depth == 8 && (colour == 2 || colour == 6) && info.has_trns == 0
        if takesFastPath, input == nil, mapsFile ?? Self.mapsFile(size: size) {
            mapping = FileMapping(descriptor: descriptor, size: size, access: .sequential)
        }
        if takesFastPath, let fast = mio_pngfast_create(input ?? mapping?.bytes, descriptor, size, mio_png_offset(decoder),
                                                        info.width, info.height, colour == 6 ? 4 : 3, Self.chunkLimit) {
            self.fast = fast
            if mapping != nil { mio_pngfast_release_behind(fast, releaseWindow) }
            info.channels = colour == 6 ? 4 : 3
            info.bytes_per_sample = 1
            info.row_bytes = Int(info.width) * Int(info.channels)
        } else {
            mapping = nil
            try check(mio_png_start(decoder, &info))
        }
        try checkWarnings()
        guard info.channels == 3 || info.channels == 4 else { throw .fallback("libpng gave \(info.channels) channels") }
        width = Int(info.width)
        height = Int(info.height)
        channels = Int(info.channels)
        scratch = .allocate(byteCount: max(info.row_bytes, 1), alignment: 16)
    }

    deinit {
        mio_pngfast_destroy(fast)
        mio_png_destroy(decoder)
        scratch?.deallocate()
    }

    /// Whether a file of `size` bytes the ISA-L path decodes is mapped (``FileMapping``, read in as
    /// it is reached) rather than read 64 KiB at a time: only in a decode worker
    /// (``FileMapping/isAllowed(size:)``, which says why). A PNG is inflated at a few hundred
    /// MB/s, so the copy of every byte the reads made was a tenth of its decode. The pages of image
    /// data read are let go a ``releaseWindow`` at a time: the worker holds about that much of them
    /// however long they are, and the chunks before and after them.
    static func mapsFile(size: Int) -> Bool {
        FileMapping.isAllowed(size: size)
    }

    /// How much of a mapped file's pages the ISA-L path holds before it lets them go: 1 MiB.
    static let releaseWindow = 1 << 20

    /// Whether the ISA-L path reads the file where it lies (``mapsFile(size:)``).
    var isMapped: Bool { mapping != nil }

    /// The bytes of the mapped file let go so far.
    var releasedBytes: Int { fast.map { Int(mio_pngfast_released($0)) } ?? 0 }

    var rawRowBytes: Int { Int(info.row_bytes) }

    func readRow(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) {
        guard let scratch else { throw .fallback("not started") }
        try readRawRow(into: scratch)
        convert(scratch, into: row)
    }

    func readRawRow(into raw: UnsafeMutableRawPointer) throws(RowSourceFailure) {
        if let fast {
            try checkFast(mio_pngfast_read_row(fast, raw.assumingMemoryBound(to: UInt8.self)))
            rowsRead += 1
            return
        }
        try check(mio_png_read_row(decoder, raw.assumingMemoryBound(to: UInt8.self)))
        try checkWarnings()
        rowsRead += 1
    }

    var givesRGBBytes: Bool { channels == 3 && info.bytes_per_sample == 1 }

    func convert(_ raw: UnsafeRawPointer, into row: UnsafeMutablePointer<Float>) {
        let count = width * channels
        SampleConversion.convert(raw, bytesPerSample: Int(info.bytes_per_sample), count: count, into: row)
    }

    func finish() throws(RowSourceFailure) {
        guard let scratch else { throw .fallback("not started") }
        while rowsRead < height {
            try readRawRow(into: scratch)
        }
        if let fast {
            try checkFast(mio_pngfast_finish(fast))
            return
        }
        try check(mio_png_finish(decoder))
        try checkWarnings()
    }

    /// Whether ISA-L inflates the image data (else libpng's rows).
    var inflatesWithISAL: Bool { fast != nil }

    func startLending() -> Int {
        guard let fast, rowsRead == 0, mio_pngfast_lend_rows(fast) == 0 else { return 0 }
        return Int(mio_pngfast_rows_kept(fast))
    }

    func lendRawRow() throws(RowSourceFailure) -> UnsafeRawPointer {
        guard let fast else { throw .fallback("libpng's rows are not lent") }
        guard let row = mio_pngfast_next_row(fast) else { throw fastFailure(fast) }
        rowsRead += 1
        return UnsafeRawPointer(row)
    }

    private func checkFast(_ status: Int32) throws(RowSourceFailure) {
        guard status != 0, let fast else { return }
        throw fastFailure(fast)
    }

    /// Why ISA-L's inflate stopped, as the fallback's reason.
    private func fastFailure(_ fast: OpaquePointer) -> RowSourceFailure {
        .fallback("PNG image data: \(String(cString: mio_pngfast_message(fast)))")
    }

    private func checkWarnings() throws(RowSourceFailure) {
        if mio_png_warnings(decoder) > 0 {
            throw .fallback("libpng warned: \(message)")
        }
    }

    private func check(_ status: Int32) throws(RowSourceFailure) {
        guard status != 0 else { return }
        throw .fallback("libpng: \(message)")
    }

    /// The decoder's last message, in libpng's words: the one place its failures are read.
    private var message: String {
        String(cString: mio_png_message(decoder))
    }
}
