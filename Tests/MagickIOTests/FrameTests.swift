import Foundation
import Testing
@testable import MagickIO

@Suite("Frames")
struct FrameTests {
    typealias RGB = (r: UInt8, g: UInt8, b: UInt8)

    func colour(_ image: Image, _ x: Int, _ y: Int) throws -> RGB {
        let pixel = try image.pixels(.rgba8).rgba(x: x, y: y)
        return (pixel.r, pixel.g, pixel.b)
    }

    @Test("a frame of an animation is composited on its canvas, as a viewer shows it", arguments: ["patches.gif", "patches.webp"])
    func composited(name: String) throws {
        let source = try Fixture.source(name)
        #expect(source.count == 3)
        for index in 0..<3 {
            let p = try source.properties(at: index)
            #expect(p.pixelWidth == 24 && p.pixelHeight == 16, "frame \(index) reports its canvas")
        }
        let second = try source.image(at: 1)
        #expect(second.width == 24 && second.height == 16)
        #expect(try colour(second, 1, 1) == (255, 0, 0))
        #expect(try colour(second, 6, 6) == (0, 0, 255))
        #expect(try colour(second, 14, 6) == (255, 0, 0), "frame 2's patch is not there yet")
        let third = try source.image(at: 2)
        #expect(try colour(third, 6, 6) == (0, 0, 255), "frame 1's patch stays")
        #expect(try colour(third, 14, 6) == (0, 255, 0))
        let thumb = try source.thumbnail(maxPixelSize: 12, at: 2)
        #expect(thumb.width == 12 && thumb.height == 8)
    }

    @Test("pages of a TIFF stand alone, each its own size; past the end is frameOutOfRange")
    func tiffPages() throws {
        let source = try Fixture.source("pages.tif")
        #expect(source.count == 2)
        #expect(try source.properties(at: 1).pixelWidth == 8)
        let second = try source.image(at: 1)
        #expect(second.width == 8 && second.height == 8)
        #expect(try colour(second, 4, 4) == (0, 0, 255))
        let thumb = try source.thumbnail(maxPixelSize: 4, at: 0)
        #expect(thumb.width == 4)
        let red = try colour(thumb, 2, 2)
        #expect(red == (255, 0, 0))
        #expect(errorKind { _ = try source.image(at: 2) } == .frameOutOfRange)
        #expect(errorKind { _ = try source.thumbnail(maxPixelSize: 8, at: 3) } == .frameOutOfRange)
    }

    @Test("a composited frame's decode cost counts the frames before it")
    func compositeCost() throws {
        let source = try Fixture.source("patches.gif")
        #expect(source.estimate(frame: 0).cacheBytes == 24 * 16 * 8 * 2, "the frame and its canvas")
        #expect(source.estimate(frame: 2).cacheBytes == 24 * 16 * 8 * 2 * 3)
        #expect(source.estimate(frame: 2).bytes == source.estimate(frame: 0).bytes * 3)
    }
}
