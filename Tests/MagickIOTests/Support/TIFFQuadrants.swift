import Testing
@testable import MagickIO

/// The pictures of scripts/tiff-sample-fixtures.py: 64x48, four quadrants of one colour each.
enum TIFFQuadrants {
    typealias Colour = (r: UInt8, g: UInt8, b: UInt8, a: UInt8)

    /// The colours (RGBA) at the centres of the four quadrants of `image`, in reading order.
    static func colours(_ image: Image) throws -> [Colour] {
        let pixels = try image.pixels(.rgba8)
        return [(1, 1), (3, 1), (1, 3), (3, 3)].map { x, y in pixels.rgba(x: pixels.width * x / 4, y: pixels.height * y / 4) }
    }

    /// Expects the thumbnail of `name` (32x24, through libtiff's rows) to show `wanted`, each
    /// sample within `tolerance`.
    static func expect(_ name: String, _ wanted: [Colour], tolerance: Int = 3,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let thumbnail = try Fixture.source(name).thumbnail(maxPixelSize: 32)
        #expect((thumbnail.width, thumbnail.height) == (32, 24), "\(name)", sourceLocation: sourceLocation)
        #expect(thumbnail.decoder == .libtiff, "\(name)", sourceLocation: sourceLocation)
        let found = try colours(thumbnail)
        let close = zip(found, wanted).allSatisfy { f, w in
            [(f.r, w.r), (f.g, w.g), (f.b, w.b), (f.a, w.a)].allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
        }
        #expect(close, "\(name): \(found), expected \(wanted)", sourceLocation: sourceLocation)
    }
}
