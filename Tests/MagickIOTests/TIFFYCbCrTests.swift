import Foundation
import Testing
@testable import MagickIO

/// TIFF in YCbCr stored other than as new-style JPEG, and old-style JPEG (Compression 6), which
/// ImageMagick 6.9.11 decodes into stripes (issue 30): read through libtiff's RGBA interface on the
/// own path, a strip or a row of tiles at a time, as Pillow shows them; refused as
/// `unsupportedFormat` by any decode ImageMagick would make (scripts/tiff-sample-fixtures.py).
@Suite("TIFF in YCbCr")
struct TIFFYCbCrTests {
    /// The quadrants as stored, as Pillow decodes the fixtures (the JPEG's rounding within 1).
    static let quadrants: [TIFFQuadrants.Colour] = [(200, 40, 40, 255), (40, 180, 60, 255), (50, 60, 200, 255), (220, 200, 80, 255)]

    @Test("subsampled YCbCr (2x2 deflate strips, 2x1 uncompressed tiles) and old-style JPEG show the picture",
          arguments: ["tiff-ycbcr22-deflate.tif", "tiff-ycbcr21-tiled.tif", "tiff-ojpeg.tif"])
    func picture(name: String) throws {
        try TIFFQuadrants.expect(name, Self.quadrants)
        let properties = try Fixture.source(name).properties(at: 0)
        #expect((properties.pixelWidth, properties.pixelHeight, properties.hasAlpha) == (64, 48, false))
    }

    @Test("the same from bytes in memory as from a file read by descriptor")
    func inMemory() throws {
        for name in ["tiff-ycbcr21-tiled.tif", "tiff-ojpeg.tif"] {
            let thumbnail = try ImageSource(data: try Fixture.data(name)).thumbnail(maxPixelSize: 32)
            #expect(thumbnail.decoder == .libtiff)
            let found = try TIFFQuadrants.colours(thumbnail)
            #expect(zip(found, Self.quadrants).allSatisfy { abs(Int($0.r) - Int($1.r)) <= 3 && abs(Int($0.b) - Int($1.b)) <= 3 }, "\(name): \(found)")
        }
    }

    @Test("a decode by ImageMagick is refused as unsupportedFormat, never striped")
    func imageMagickRefused() throws {
        for name in ["tiff-ycbcr22-deflate.tif", "tiff-ojpeg.tif"] {
            let source = try Fixture.source(name)
            let whole = #expect(throws: MagickIOError.self) { _ = try source.image(at: 0) }
            #expect(whole?.kind == .unsupportedFormat, "\(String(describing: whole))")
            #expect(whole.map { $0.message.contains("YCbCr") || $0.message.contains("old-style JPEG") } == true)
            #expect(errorKind { _ = try source.thumbnail(maxPixelSize: 32, options: .imageMagickOnly) } == .unsupportedFormat)
        }
    }

    @Test("libtiff's warning about the directory is listed, and refused under refuseWarnings as ImageMagick's path would")
    func warnings() throws {
        let name = "tiff-ycbcr22-unknown-tag.tif"
        let thumbnail = try Fixture.source(name).thumbnail(maxPixelSize: 32)
        #expect(thumbnail.decoder == .libtiff)
        #expect(thumbnail.warnings.contains { $0.contains("65000") }, "\(thumbnail.warnings)")
        let strict = try ImageSource(url: Fixture.url(name), options: DecodingOptions(strictness: .refuseWarnings))
        #expect(errorKind { _ = try strict.thumbnail(maxPixelSize: 32) } == .corruptImage)
    }
}
