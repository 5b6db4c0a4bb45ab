import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// HEIF files whose items relate in ways libheif 1.15 gets wrong (issue 30), on the fixtures
/// scripts/heif-items-fixtures.py writes: a 96x64 picture of quadrants, red opaque top left,
/// green half transparent (alpha 128) top right, blue opaque bottom left, yellow a quarter opaque
/// (alpha 64) bottom right.
@Suite("HEIF items")
struct HEIFItemsTests {
    typealias Pixel = (r: UInt8, g: UInt8, b: UInt8, a: UInt8)

    static let red: Pixel = (255, 0, 0, 255), green: Pixel = (0, 255, 0, 128)
    static let blue: Pixel = (0, 0, 255, 255), yellow: Pixel = (255, 255, 0, 64)

    /// The pixels at the centres of the four quadrants of `image`, in reading order.
    func quadrants(_ image: Image) throws -> [Pixel] {
        let pixels = try image.pixels(.rgba8)
        return [(1, 1), (3, 1), (1, 3), (3, 3)].map { x, y in pixels.rgba(x: pixels.width * x / 4, y: pixels.height * y / 4) }
    }

    /// Colours within 40, alpha within 8 of each other.
    func expect(_ found: [Pixel], _ wanted: [Pixel], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let near = zip(found, wanted).allSatisfy { a, b in
            abs(Int(a.r) - Int(b.r)) < 40 && abs(Int(a.g) - Int(b.g)) < 40 && abs(Int(a.b) - Int(b.b)) < 40 && abs(Int(a.a) - Int(b.a)) <= 8
        }
        #expect(near, "\(what): \(found)", sourceLocation: sourceLocation)
    }

    /// (fixture, shown size, the quadrants as shown, whether it has alpha).
    static let decoded: [(String, Int, Int, [Pixel], Bool)] = [
        // The alpha item without an ispe: libheif 1.15 left the alpha out.
        ("avif-alpha-noispe.avif", 96, 64, [red, green, blue, yellow], true),
        // The colour turned a quarter anticlockwise, its alpha not: libavif turns both.
        ("avif-alpha-noirot.avif", 64, 96, [green, yellow, red, blue], true),
        ("avif-alpha-irot.avif", 64, 96, [green, yellow, red, blue], true),
        // Items in idat, the meta box's size 0: libheif 1.15 read no meta box.
        ("avif-idat-meta-size0.avif", 96, 64, [red, green, blue, yellow], true),
        // A pyramid group libheif 1.15 cannot parse: the primary image decodes by itself.
        ("avif-pyramid-group.avif", 96, 64, [red, (0, 255, 0, 255), blue, (255, 255, 0, 255)], false),
    ]

    @Test("the alpha libheif 1.15 leaves out, and files it cannot open: properties, image and thumbnail agree",
          arguments: decoded.indices)
    func decodes(index: Int) throws {
        let (name, width, height, wanted, alpha) = Self.decoded[index]
        let source = try Fixture.source(name)
        let p = try source.properties(at: 0)
        #expect((p.pixelWidth, p.pixelHeight) == (width, height), "\(name): \(p.pixelWidth)x\(p.pixelHeight)")
        #expect(p.hasAlpha == alpha, "\(name): properties say hasAlpha \(p.hasAlpha)")
        let image = try source.image(at: 0)
        #expect((image.width, image.height) == (width, height), "\(name): image \(image.width)x\(image.height)")
        #expect(image.properties.hasAlpha == alpha, "\(name): the image says hasAlpha \(image.properties.hasAlpha)")
        expect(try quadrants(image), wanted, "\(name) image")
        let thumbnail = try source.thumbnail(maxPixelSize: max(width, height) / 2)
        #expect((thumbnail.width, thumbnail.height) == (width / 2, height / 2), "\(name): thumbnail \(thumbnail.width)x\(thumbnail.height)")
        #expect(thumbnail.properties.hasAlpha == alpha, "\(name): the thumbnail says hasAlpha \(thumbnail.properties.hasAlpha)")
        expect(try quadrants(thumbnail), wanted, "\(name) thumbnail")
    }

    /// (fixture, what the refusal names): valid files libheif 1.15 would decode wrong or not at all.
    static let refused: [(String, String)] = [
        ("avif-grid-shared-tile.avif", "input of two derived images"),
        ("avif-predicted.avif", "coded by prediction from item 3"),
        ("heif-unci.heif", "uncompressed (ISO/IEC 23001-17) (unci)"),
        ("heif-avc1.heif", "H.264/AVC (avc1)"),
    ]

    @Test("a shared grid tile, a predicted item, unci and avc1 items are unsupportedFormat, saying why",
          arguments: refused.indices)
    func refuses(index: Int) throws {
        let (name, reason) = Self.refused[index]
        let error = #expect(throws: MagickIOError.self) {
            _ = try Fixture.source(name).thumbnail(maxPixelSize: 32)
        }
        #expect(error?.kind == .unsupportedFormat, "\(name): \(String(describing: error))")
        #expect(error?.message.contains(reason) == true, "\(name): \(String(describing: error))")
    }
}
