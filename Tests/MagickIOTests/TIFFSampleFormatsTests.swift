import Foundation
import Testing
@testable import MagickIO

/// TIFF samples ImageMagick 6.9.11 misreads (issue 30), read on the own path as libvips and Pillow
/// read them (scripts/tiff-sample-fixtures.py): 24-bit (scrambled by ImageMagick), signed 8-bit
/// (read as unsigned) and 16-bit, floating point of 16, 32 and 64 bits (ImageMagick's 0-1 scale
/// makes a picture stored 0-255 flat white); alpha as the header says; 64-bit integers refused as
/// `unsupportedFormat`.
@Suite("TIFF sample formats")
struct TIFFSampleFormatsTests {
    static let opaque: [TIFFQuadrants.Colour] = [(200, 40, 40, 255), (40, 180, 60, 255), (50, 60, 200, 255), (220, 200, 80, 255)]

    @Test("24-bit samples (big-endian) show the picture")
    func twentyFourBits() throws {
        try TIFFQuadrants.expect("tiff-rgb24-be.tif", Self.opaque)
    }

    @Test("signed samples are on the unsigned scale of their width, negatives black, as libvips casts them",
          arguments: ["tiff-grey-int8.tif", "tiff-grey-int16.tif"])
    func signed(name: String) throws {
        // Stored 100, -60, 20, 127 (8-bit; the 16-bit page 257 times that, -60 times 256).
        try TIFFQuadrants.expect(name, [(100, 100, 100, 255), (0, 0, 0, 255), (20, 20, 20, 255), (127, 127, 127, 255)])
        #expect(try Fixture.source(name).thumbnail(maxPixelSize: 32).properties.colorSpace == "gray")
    }

    @Test("grey floating point is on the 0-255 scale, clipped, as Pillow's mode F and libvips read it")
    func greyFloat() throws {
        // Stored 200.0, 40.0, 50.0, 300.0 as half floats.
        try TIFFQuadrants.expect("tiff-grey-float16.tif", [(200, 200, 200, 255), (40, 40, 40, 255), (50, 50, 50, 255), (255, 255, 255, 255)])
    }

    @Test("RGB floating point is scRGB (linear, 1.0 white) encoded with the sRGB curve, as libvips reads it",
          arguments: ["tiff-rgb-float32.tif", "tiff-rgb-float64.tif"])
    func rgbFloat(name: String) throws {
        // The bottom right is stored (1.5, -0.2, 0.5): clipped, and 0.5 linear is 188 in sRGB.
        try TIFFQuadrants.expect(name, Self.opaque.prefix(3) + [(255, 0, 188, 255)])
    }

    @Test("a float alpha sample is on the 0-255 scale; imageinfo and the thumbnail both say alpha")
    func floatAlpha() throws {
        let source = try Fixture.source("tiff-rgba-float32.tif")
        #expect(try source.properties(at: 0).hasAlpha)
        #expect(try source.thumbnail(maxPixelSize: 32).properties.hasAlpha)
        // The right half stores alpha 127.5.
        try TIFFQuadrants.expect("tiff-rgba-float32.tif", [(200, 40, 40, 255), (40, 180, 60, 128), (50, 60, 200, 255), (255, 0, 188, 128)])
        for name in ["tiff-rgb24-be.tif", "tiff-grey-int8.tif", "tiff-rgb-float32.tif"] {
            let source = try Fixture.source(name)
            #expect(try source.properties(at: 0).hasAlpha == source.thumbnail(maxPixelSize: 32).properties.hasAlpha, "\(name)")
        }
    }

    @Test("64-bit integer samples are unsupportedFormat, naming the layout; the header still reads")
    func sixtyFourBitIntegers() throws {
        let source = try Fixture.source("tiff-grey-uint64.tif")
        #expect(try source.properties(at: 0).pixelWidth == 64)
        let error = #expect(throws: MagickIOError.self) { _ = try source.thumbnail(maxPixelSize: 32) }
        #expect(error?.kind == .unsupportedFormat, "\(String(describing: error))")
        #expect(error?.message.contains("64-bit unsigned integer samples") == true, "\(String(describing: error))")
        #expect(errorKind { _ = try source.image(at: 0) } == .unsupportedFormat)
    }

    @Test("a whole decode of a misread layout is unsupportedFormat, not ImageMagick's garbage",
          arguments: ["tiff-rgb24-be.tif", "tiff-grey-int8.tif"])
    func wholeDecodeRefused(name: String) throws {
        #expect(errorKind { _ = try Fixture.source(name).image(at: 0) } == .unsupportedFormat)
    }

    @Test("a whole decode of a float page is ImageMagick's, on its 0-1 scale (the fixture's 200.0 is white)")
    func wholeFloatDecode() throws {
        let image = try Fixture.source("tiff-grey-float16.tif").image(at: 0)
        #expect(image.decoder == .imageMagick)
        #expect(try TIFFQuadrants.colours(image)[0].r == 255)
    }

    @Test("the cost of the own path covers its buffers and stays small")
    func cost() throws {
        for name in ["tiff-rgb-float64.tif", "tiff-ycbcr22-deflate.tif", "tiff-ojpeg.tif"] {
            let bytes = try Fixture.source(name).thumbnailCost(.maxPixelSize(32), at: 0, allowUpscale: false)
            #expect(bytes > 0 && bytes < 32 << 20, "\(name): \(bytes)")
        }
        // libtiff's RGBA interface: a band of 4 bytes a pixel, a strip's rows, counted.
        let ycbcr = TIFFLayout(width: 4000, height: 3000, bitsPerSample: 8, samplesPerPixel: 3, rowsPerStrip: 64, compression: 8, photometric: 6)
        var rgb = ycbcr
        rgb.photometric = 2
        #expect(TIFFRows.streamedBytes(ycbcr, fileBytes: 1 << 20) - TIFFRows.streamedBytes(rgb, fileBytes: 1 << 20) >= 4000 * 64 * 4)
    }
}
