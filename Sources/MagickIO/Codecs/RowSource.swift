import Foundation

/// The rows of a picture from one of MagickIO's own decoders (``JPEGRows``, ``PNGRows``,
/// ``WebPRows``, ``TIFFRows``, ``HEIFRows``), top to bottom, as floats 0...1, RGB or RGBA with straight alpha: what a thumbnail streams into
/// ``Resampler`` without the whole image ever being held.
protocol RowSource: AnyObject {
    /// The size the rows come at (a JPEG's after its DCT scale).
    var width: Int { get }
    var height: Int { get }
    /// 3 (RGB) or 4 (RGBA).
    var channels: Int { get }
    /// The embedded ICC profile, if any.
    var iccProfile: [UInt8]? { get }
    /// Reads the next row, `width * channels` floats.
    func readRow(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure)
    /// Whether ``readBytes(into:)`` gives the rows: RGB, 8-bit samples (libjpeg-turbo's, and
    /// libpng's, libtiff's and libwebp's 8-bit RGB), which the resampler reads as they are
    /// (``Resampler/streamBytes(input:output:read:write:progress:)``), not widened to floats first.
    var givesRGBBytes: Bool { get }
    /// Reads the next row as `width * 3` bytes, when ``givesRGBBytes``.
    func readBytes(into row: UnsafeMutablePointer<UInt8>) throws(RowSourceFailure)
    /// Reads what is left of the file after the last row (and the rows nobody asked for), so that
    /// damage at the end is seen as ImageMagick's decoder sees it.
    func finish() throws(RowSourceFailure)
}

extension RowSource {
    var givesRGBBytes: Bool { false }

    func readBytes(into row: UnsafeMutablePointer<UInt8>) throws(RowSourceFailure) {
        throw .fallback("the rows are not 8-bit RGB")
    }
}

/// A ``RowSource`` whose rows can also be taken as the decoder gives them (bytes) and converted
/// to floats apart: ``PipelinedRows`` decodes on one thread and converts on the reader's, which
/// leaves the decoder's thread, the slower of the two, only the decoding.
protocol RawRowSource: RowSource {
    /// The bytes of one row as the decoder gives it.
    var rawRowBytes: Int { get }
    /// Reads the next row as the decoder gives it, `rawRowBytes` bytes.
    func readRawRow(into raw: UnsafeMutableRawPointer) throws(RowSourceFailure)
    /// Converts one raw row to `width * channels` floats; touches nothing else (any thread).
    func convert(_ raw: UnsafeRawPointer, into row: UnsafeMutablePointer<Float>)
}

/// A ``RawRowSource`` that can give each row where it decoded it rather than copy it out
/// (``PipelinedRows`` then passes where rows lie, not their bytes): ``PNGRows``' ISA-L path, whose
/// copy of each row out of its batch was about 5% of its decoder thread's CPU on a None-filtered
/// 25 MP PNG, the thread the thumbnail waits on.
protocol RowLender: RawRowSource {
    /// Before the first row: makes the source lend its rows, and says how many more rows a lent
    /// one stays as it is while they are lent; 0 where it cannot lend (its rows are read as before),
    /// and when asked a second time.
    func startLending() -> Int
    /// The next row, ``RawRowSource/rawRowBytes`` bytes where the decoder holds it (read-only).
    func lendRawRow() throws(RowSourceFailure) -> UnsafeRawPointer
}

extension RawRowSource {
    /// A raw row that is 8-bit RGB (``RowSource/givesRGBBytes``) is the byte row itself.
    func readBytes(into row: UnsafeMutablePointer<UInt8>) throws(RowSourceFailure) {
        try readRawRow(into: row)
    }
}

/// Why an own decoder did not deliver: the file is not one it takes exactly as ImageMagick would
/// (then ImageMagick decodes it: the fallback), or the work was stopped.
enum RowSourceFailure: Error {
    /// Something ImageMagick's path handles: an unusual layout, a warning, an error. ImageMagick
    /// decodes the file instead, under the same strictness, and reports what it finds.
    case fallback(String)
    /// Cancelled or past its time limit, or a failure the other path would only repeat (libheif
    /// failing to decode a HEIF it opened: ImageMagick's path decodes it with libheif too): the
    /// thumbnail stops with this error.
    case stopped(MagickIOError)
}
