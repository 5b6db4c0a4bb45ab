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
        // No pitm: the colour item is shown, its alpha item (its part) with it.
        ("avifs-alpha-no-pitm.avif", 96, 64, [red, green, blue, yellow], true),
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
        // No pitm, and no one image to show instead.
        ("avifs-two-items-no-pitm.avif", "no pitm box) and has 2 image items that could be it (items 1 and 3)"),
        ("avifs-hidden-item-no-pitm.avif", "no pitm box), and its only image item is hidden (item 1)"),
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

    // MARK: - No pitm

    @Test("an AVIF sequence whose meta box names no primary image (libavif's Chimera-AV1-10bit) shows its one item as its twin with pitm does",
          arguments: ["avifs-10bit-no-pitm.avif", "avifs-10bit-no-pitm-mdat-size0.avif"])
    func impliedPrimary(name: String) throws {
        let source = try Fixture.source(name), twin = try Fixture.source("avifs-10bit-pitm.avif")
        #expect(source.format == .avif)
        let p = try source.properties(at: 0), q = try twin.properties(at: 0)
        #expect((p.pixelWidth, p.pixelHeight, p.hasAlpha, p.bitDepth) == (96, 64, false, 10),
                "\(name): \(p.pixelWidth)x\(p.pixelHeight), hasAlpha \(p.hasAlpha), \(p.bitDepth) bits")
        #expect((q.pixelWidth, q.pixelHeight, q.hasAlpha, q.bitDepth) == (p.pixelWidth, p.pixelHeight, p.hasAlpha, p.bitDepth))
        // Counted as the twin is: the walker's items feed the estimate.
        #expect(source.estimate(frame: 0).bytes == twin.estimate(frame: 0).bytes, "\(name): estimate")
        #expect(source.estimate(frame: 0).bytes > 96 * 64 * 4)
        let image = try source.image(at: 0)
        #expect((image.width, image.height, image.properties.hasAlpha) == (96, 64, false))
        let opaque: [Pixel] = [Self.red, (0, 255, 0, 255), Self.blue, (255, 255, 0, 255)]
        expect(try quadrants(image), opaque, "\(name) image")
        // 8 bits a sample, as the twin's: the same pixels.
        #expect(try image.pixels(.rgba8).bytes == twin.image(at: 0).pixels(.rgba8).bytes, "\(name): pixels differ from the twin's")
        let thumbnail = try source.thumbnail(maxPixelSize: 48)
        #expect((thumbnail.width, thumbnail.height, thumbnail.properties.hasAlpha) == (48, 32, false))
        expect(try quadrants(thumbnail), opaque, "\(name) thumbnail")
        #expect(try thumbnail.pixels(.rgba8).bytes == twin.thumbnail(maxPixelSize: 48).pixels(.rgba8).bytes,
                "\(name): the thumbnail differs from the twin's")
        // A decode worker gives what the decode in process gives.
        for call: (ImageSource) throws -> Image in [{ try $0.thumbnail(maxPixelSize: 48) }, { try $0.image(at: 0) }] {
            let (process, inProcess) = IsolationTests.both(name, DecodingOptions(), call)
            #expect(process == inProcess, "\(name): worker \(process), in process \(inProcess)")
            #expect(process.error == nil, "\(name): \(process)")
        }
    }

    @Test("the walker implies the primary image only without pitm, and only the one image that is no other's part")
    func impliedPrimaryItems() throws {
        func items(_ name: String) throws -> HEIFItems {
            var reader = ByteReader(.memory(try Data(contentsOf: Fixture.url(name))))
            return HEIFItems.read(&reader)
        }
        let implied = try items("avifs-10bit-no-pitm.avif")
        #expect(implied.primary == 1 && implied.impliedPrimary && implied.missingPrimary == nil)
        let named = try items("avifs-10bit-pitm.avif")
        #expect(named.primary == 1 && !named.impliedPrimary)
        let alpha = try items("avifs-alpha-no-pitm.avif")
        #expect(alpha.primary == 1 && alpha.impliedPrimary, "the alpha item (2) is the colour item's part")
        for name in ["avifs-two-items-no-pitm.avif", "avifs-hidden-item-no-pitm.avif"] {
            let refused = try items(name)
            #expect(refused.primary == nil && !refused.impliedPrimary && refused.missingPrimary != nil, "\(name)")
        }
    }

    @Test("a file without pitm cut short is corruptImage: libheif could not be shown a pitm past its end")
    func impliedPrimaryCut() throws {
        let whole = try Data(contentsOf: Fixture.url("avifs-10bit-no-pitm.avif"))
        let error = #expect(throws: MagickIOError.self) {
            _ = try ImageSource(data: whole.prefix(whole.count - 10)).thumbnail(maxPixelSize: 32)
        }
        #expect(error?.kind == .corruptImage, "\(String(describing: error))")
        #expect(error?.message.contains("no pitm box, and bytes past its last whole box") == true, "\(String(describing: error))")
    }
}
