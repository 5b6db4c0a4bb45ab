internal import CHeif

/// The rows of a HEIC or AVIF primary image for a thumbnail (``RowSource``): libheif decodes the
/// picture whole (it has no row interface; a phone's grid of tiles goes to ``HEIFTileRows``), upright,
/// to 8-bit RGB or RGBA, and the rows go from its buffer straight into the resampler. So the
/// picture is never copied into ImageMagick's pixel cache, which on the other path takes 8 bytes
/// a pixel more than libheif's own 3 or 4. An 8-bit HEVC image without alpha
/// (``ImageHeader/planarImage``) is taken as the planar RGB libheif makes before it
/// interleaves, and interleaved here a row at a time: 3 bytes a pixel less at libheif's peak.
final class HEIFRows: HEIFByteRows {
    let width: Int
    let height: Int
    let channels: Int
    let iccProfile: [UInt8]?

    private let file: HEIFFile
    private let picture: Picture
    private var next = 0

    private enum Picture {
        case interleaved(HEIFFile.Decoded)
        case planar(HEIFFile.PlanarRGB)
    }

    /// Opens and decodes the primary image of `bytes` (`items`: its walk at open); `planar`: as
    /// planar RGB, as the estimate counted it. A file libheif cannot open, or an image not what
    /// the walk said it is, goes to the other path (``RowSourceFailure/fallback(_:)``: ImageMagick's
    /// HEIC coder reads it as it can and says why not); a decode libheif fails is final (``RowSourceFailure/stopped(_:)``), with
    /// libheif's reason: the other path would decode it with libheif again, after a guard that
    /// counts ImageMagick's pixel cache too and could refuse it for its size instead.
    init(_ bytes: SourceBytes, items: HEIFItems?, options: DecodingOptions, planar: Bool, interrupt: Interrupt?) throws(RowSourceFailure) {
        guard let file = HEIFFile(bytes, items: items, options: options) else { throw .fallback("libheif cannot open the file") }
        var chosen: Picture?
        do throws(MagickIOError) {
            chosen = planar ? try file.decodePlanarRGB(file.primary, what: "the HEIF image", interrupt: interrupt).map(Picture.planar)
                : .interleaved(try file.decodeInterleaved(file.primary, what: "the HEIF image", interrupt: interrupt))
        } catch {
            throw .stopped(error)
        }
        guard let chosen else { throw .fallback("the HEIF image is not 8-bit without alpha, as its hvcC said") }
        picture = chosen
        switch chosen {
        case .interleaved(let decoded): (width, height, channels) = (decoded.width, decoded.height, decoded.channels)
        case .planar(let decoded): (width, height, channels) = (decoded.width, decoded.height, 3)
        }
        self.file = file
        iccProfile = file.iccProfile(file.primary)
    }

    deinit {
        switch picture {
        case .interleaved(let decoded): file.heif.image_release(decoded.image)
        case .planar(let decoded): file.heif.image_release(decoded.image)
        }
    }

    func readRawRow(into raw: UnsafeMutableRawPointer) throws(RowSourceFailure) {
        guard next < height else { throw .fallback("a row past the image's \(height) was asked for") }
        defer { next += 1 }
        switch picture {
        case .interleaved(let decoded):
            raw.copyMemory(from: decoded.plane + next * decoded.stride, byteCount: rawRowBytes)
        case .planar(let decoded):
            let out = raw.assumingMemoryBound(to: UInt8.self)
            for (channel, plane) in decoded.planes.enumerated() {
                let row = plane.pointer + next * plane.stride
                for x in 0..<width { out[3 * x + channel] = row[x] }
            }
        }
    }

    /// Nothing is left to read: libheif decoded the whole file's picture up front.
    func finish() throws(RowSourceFailure) {}
}

/// A HEIF picture's rows as libheif gives them: 8-bit samples, `width * channels` a row.
protocol HEIFByteRows: RawRowSource {}

extension HEIFByteRows {
    var rawRowBytes: Int { width * channels }

    func readRow(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: rawRowBytes, alignment: 16)
        defer { raw.deallocate() }
        try readRawRow(into: raw)
        convert(raw, into: row)
    }

    func convert(_ raw: UnsafeRawPointer, into row: UnsafeMutablePointer<Float>) {
        SampleConversion.convert(raw.assumingMemoryBound(to: UInt8.self), count: rawRowBytes, into: row)
    }
}
