internal import CCodecs
import Foundation

/// A still WebP's rows through libwebp's incremental decoder, scaled on decoding to the size the
/// plan chooses (``WebPScale``) by libwebp's own rescaler, as ImageMagick's WebP coder would
/// decode them otherwise: RGB, or RGBA when the bitstream has alpha, and the ICCP chunk's profile.
/// Lossy, lossless and lossy with an `ALPH` chunk alike. An animation, any error and a file that
/// ends before its image does are a ``RowSourceFailure/fallback(_:)``: ImageMagick decodes the
/// file instead (and applies the strictness to what it finds).
///
/// The picture held is libwebp's scaled output; besides it libwebp keeps its decoder's state (a
/// lossless bitstream: the whole stored image, 4 bytes a pixel; a lossy one's alpha plane: 1 a
/// pixel) and, read from a file descriptor, the file, read into one buffer as the decode goes.
final class WebPRows: RawRowSource {
    private let decoder: OpaquePointer
    private var info = mio_webp_info()
    private(set) var width = 0
    private(set) var height = 0
    private(set) var channels = 3
    private(set) var iccProfile: [UInt8]?
    private var rowsRead = 0
    /// One row as libwebp gives it.
    private var scratch: UnsafeMutableRawPointer?

    /// The largest ICCP chunk taken: a bigger one is ImageMagick's to judge.
    static let iccLimit = 16 << 20

    /// The header of `input` read and decoding started at `scaled` (no larger than the stored
    /// size). Throws a fallback for an animation, and for a bitstream whose size is not the
    /// `stored` one the plan was made for (the Swift header's). `threads`: another core is idle,
    /// and libwebp runs a lossy picture's loop filter on a second thread (a 24 MP photo to 256 px:
    /// 0.36 s against 0.30 s with `dwebp -mt`; the same pixels).
    init(input: UnsafePointer<UInt8>?, descriptor: Int32, size: Int, stored expected: (width: Int, height: Int),
         scaled: (width: Int, height: Int), threads: Bool = false) throws(RowSourceFailure) {
        guard let decoder = mio_webp_create() else { throw .fallback("libwebp could not start") }
        self.decoder = decoder
        try check(mio_webp_open(decoder, input, descriptor, size, Self.iccLimit, &info))
        guard info.has_animation == 0 else { throw .fallback("an animated WebP") }
        let stored = (width: Int(info.width), height: Int(info.height))
        guard stored == expected else {
            throw .fallback("libwebp reads \(stored.width)x\(stored.height), the header \(expected.width)x\(expected.height)")
        }
        guard scaled.width >= 1, scaled.height >= 1, scaled.width <= stored.width, scaled.height <= stored.height else {
            throw .fallback("a WebP of \(stored.width)x\(stored.height), asked for \(scaled.width)x\(scaled.height)")
        }
        var length = 0
        if let icc = mio_webp_icc(decoder, &length), length > 0 {
            iccProfile = Array(UnsafeBufferPointer(start: icc, count: length))
        }
        try check(mio_webp_start(decoder, UInt32(scaled.width), UInt32(scaled.height), threads ? 1 : 0, &info))
        width = Int(info.output_width)
        height = Int(info.output_height)
        channels = Int(info.output_channels)
        scratch = .allocate(byteCount: max(width * channels, 1), alignment: 16)
    }

    deinit {
        mio_webp_destroy(decoder)
        scratch?.deallocate()
    }

    var rawRowBytes: Int { width * channels }

    func readRow(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) {
        guard let scratch else { throw .fallback("not started") }
        try readRawRow(into: scratch)
        convert(scratch, into: row)
    }

    func readRawRow(into raw: UnsafeMutableRawPointer) throws(RowSourceFailure) {
        try check(mio_webp_read_row(decoder, raw.assumingMemoryBound(to: UInt8.self)))
        rowsRead += 1
    }

    var givesRGBBytes: Bool { channels == 3 }

    func convert(_ raw: UnsafeRawPointer, into row: UnsafeMutablePointer<Float>) {
        SampleConversion.convert(raw.assumingMemoryBound(to: UInt8.self), count: width * channels, into: row)
    }

    func finish() throws(RowSourceFailure) {
        // The rows nobody asked for are decoded by libwebp already or as the rest is fed.
        try check(mio_webp_finish(decoder))
    }

    private func check(_ status: Int32) throws(RowSourceFailure) {
        guard status != 0 else { return }
        throw .fallback("libwebp: \(message)")
    }

    /// The decoder's last message, in libwebp's words: the one place its failures are read.
    private var message: String {
        String(cString: mio_webp_message(decoder))
    }
}
