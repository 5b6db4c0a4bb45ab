internal import CHeif

/// The rows of a HEIC or AVIF primary image for a thumbnail (``RowSource``): libheif decodes the
/// picture whole (it has no row interface; a phone's grid of tiles goes to ``HEIFTileRows``), upright,
/// to 8-bit RGB or RGBA, and the rows go from its buffer straight into the resampler. So the
/// picture is never copied into ImageMagick's pixel cache, which on the other path takes 8 bytes
/// a pixel more than libheif's own 3 or 4.
final class HEIFRows: RawRowSource {
    let width: Int
    let height: Int
    let channels: Int
    let iccProfile: [UInt8]?
    var rawRowBytes: Int { width * channels }

    private let file: HEIFFile
    private let decoded: HEIFFile.Decoded
    private var next = 0

    /// Opens and decodes the primary image of `bytes` (`items`: its walk at open). A file libheif
    /// cannot open goes to the other path (``RowSourceFailure/fallback(_:)``: ImageMagick's HEIC
    /// coder reads it as it can and says why not); a decode libheif fails is final (``RowSourceFailure/stopped(_:)``), with
    /// libheif's reason: the other path would decode it with libheif again, after a guard that
    /// counts ImageMagick's pixel cache too and could refuse it for its size instead.
    init(_ bytes: SourceBytes, items: HEIFItems?, maxPixelCount: Int) throws(RowSourceFailure) {
        guard let file = HEIFFile(bytes, items: items, maxPixelCount: maxPixelCount) else { throw .fallback("libheif cannot open the file") }
        do {
            decoded = try file.decodeInterleaved(file.primary, what: "the HEIF image")
        } catch {
            throw .stopped(error)
        }
        self.file = file
        width = decoded.width
        height = decoded.height
        channels = decoded.channels
        iccProfile = file.iccProfile(file.primary)
    }

    deinit {
        file.heif.image_release(decoded.image)
    }

    func readRawRow(into raw: UnsafeMutableRawPointer) throws(RowSourceFailure) {
        raw.copyMemory(from: try nextRow(), byteCount: rawRowBytes)
    }

    func readRow(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) {
        convert(try nextRow(), into: row)
    }

    func convert(_ raw: UnsafeRawPointer, into row: UnsafeMutablePointer<Float>) {
        SampleConversion.convert(raw.assumingMemoryBound(to: UInt8.self), count: rawRowBytes, into: row)
    }

    /// Nothing is left to read: libheif decoded the whole file's picture up front.
    func finish() throws(RowSourceFailure) {}

    private func nextRow() throws(RowSourceFailure) -> UnsafePointer<UInt8> {
        guard next < height else { throw .fallback("a row past the image's \(height) was asked for") }
        defer { next += 1 }
        return decoded.plane + next * decoded.stride
    }
}
