import Foundation
import Testing
@testable import MagickIO

/// Decoder warnings sorted by what they mean: container oddities a viewer shows are accepted and
/// listed, damage to the pixels is refused, and `strictness` moves that line.
@Suite("Strictness")
struct StrictnessTests {
    /// Files whose decoders warn, though every pixel is as the file has it (scripts/world-fixtures.py):
    /// the 64x48 picture, red left, blue right.
    static let benign = [
        "jpeg-extraneous-bytes.jpg", "jpeg-broken-xmp.jpg", "png-iccp-crc.png", "png-text-crc.png", "png-trns-invalid.png",
        "png-idat-extra.png",
    ]
    /// Files whose pixels are not all from the file.
    static let damaged = ["jpeg-bad-huffman.jpg", "truncated.jpg", "png-zlib-broken.png", "truncated.png", "tiff-short-strip.tif"]

    @Test("a warning about the container is accepted by default and listed in warnings", arguments: benign)
    func benignAccepted(name: String) throws {
        let source = try Fixture.source(name)
        let image = try source.image(at: 0)
        #expect(image.width == 64 && image.height == 48)
        #expect(!image.warnings.isEmpty, "the decoder's warning is listed")
        let pixels = try image.pixels(.rgba8)
        let left = pixels.rgba(x: 8, y: 24), right = pixels.rgba(x: 56, y: 24)
        #expect(left.r > 230 && left.b < 25, "left half red: \(left)")
        #expect(right.b > 230 && right.r < 25, "right half blue: \(right)")
        let thumb = try source.thumbnail(maxPixelSize: 32)
        #expect(thumb.width == 32 && thumb.height == 24)
        #expect(thumb.warnings == image.warnings)
    }

    @Test("refuseWarnings refuses the same files with the decoder's words", arguments: benign)
    func benignRefusedWhenStrict(name: String) throws {
        let strict = DecodingOptions(strictness: .refuseWarnings)
        do {
            let source = try ImageSource(url: Fixture.url(name), options: strict)
            _ = try source.image(at: 0)
            Issue.record("\(name) decoded under .refuseWarnings")
        } catch let error as MagickIOError {
            #expect(error.kind == .corruptImage)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("damage is refused by default, as corruptImage", arguments: damaged)
    func damageRefused(name: String) throws {
        #expect(errorKind { _ = try Fixture.source(name).image(at: 0) } == .corruptImage)
        #expect(errorKind { _ = try Fixture.source(name).thumbnail(maxPixelSize: 32) } == .corruptImage)
    }

    @Test("acceptPartial returns a damaged JPEG with its warning; a PNG whose stream breaks still fails")
    func partial() throws {
        let lenient = DecodingOptions(strictness: .acceptPartial)
        let jpeg = try ImageSource(url: Fixture.url("jpeg-bad-huffman.jpg"), options: lenient).image(at: 0)
        #expect(jpeg.width == 64 && jpeg.height == 48)
        #expect(jpeg.warnings.contains { $0.contains("Huffman") }, "\(jpeg.warnings)")
        // libpng fails outright: there is no image to return.
        #expect(errorKind { _ = try ImageSource(url: Fixture.url("png-zlib-broken.png"), options: lenient).image(at: 0) }
                == .corruptImage)
    }

    @Test("a clean decode has no warnings")
    func clean() throws {
        #expect(try Fixture.source("photo.jpg").image(at: 0).warnings.isEmpty)
        #expect(try Fixture.source("photo.png").thumbnail(maxPixelSize: 64).warnings.isEmpty)
    }

    @Test("warnings are classified per decoder by what they mean")
    func classification() {
        #expect(!DecoderWarning("Corrupt JPEG data: 3 extraneous bytes before marker 0xdb", format: .jpeg).meansDamage)
        #expect(DecoderWarning("Premature end of JPEG file", format: .jpeg).meansDamage)
        #expect(DecoderWarning("Corrupt JPEG data: bad Huffman code", format: .jpeg).meansDamage)
        #expect(DecoderWarning("a warning nobody has seen", format: .jpeg).meansDamage, "unknown JPEG warnings fail closed")
        #expect(!DecoderWarning("CorruptImageProfile `x.jpg' (XMP) @ warning/profile.c/ValidateXMPProfile/1675", format: .jpeg).meansDamage)
        #expect(!DecoderWarning("ParseError missing > @ warning/xml-tree.c/NewXMLTree/2224", format: .jpeg).meansDamage)
        #expect(!DecoderWarning("iCCP: CRC error", format: .png).meansDamage)
        #expect(!DecoderWarning("IDAT: Too much image data", format: .png).meansDamage)
        #expect(DecoderWarning("IDAT: Not enough image data", format: .png).meansDamage)
        #expect(!DecoderWarning("Unknown field with tag 65000 (0xfde8) encountered", format: .tiff).meansDamage)
        #expect(DecoderWarning("Read error at scanline 3", format: .tiff).meansDamage)
        #expect(DecoderWarning("anything at all", format: .gif).meansDamage)
        #expect(Strictness.refuseWarnings.refuses(DecoderWarning("iCCP: CRC error", format: .png)))
        #expect(!Strictness.acceptPartial.refuses(DecoderWarning("Premature end of JPEG file", format: .jpeg)))
    }
}
