import Foundation
import Testing
@testable import MagickIO

@Suite("Sizing modes")
struct SizingTests {
    func geometry(_ width: Int, _ height: Int, box: (Int, Int), _ mode: SizingMode, _ gravity: Gravity = .center,
                  upscale: Bool = false) -> ThumbnailGeometry {
        ThumbnailGeometry(width: width, height: height, box: ImageSize(width: box.0, height: box.1), mode: mode,
                          gravity: gravity, allowUpscale: upscale)
    }

    @Test("fit keeps the aspect ratio inside the box, never upscaling unless asked")
    func fit() {
        #expect(geometry(3000, 2000, box: (200, 200), .fit).size == (200, 133))
        #expect(geometry(2000, 3000, box: (300, 100), .fit).size == (67, 100))
        #expect(geometry(100, 50, box: (200, 200), .fit).size == (100, 50))
        #expect(geometry(100, 50, box: (200, 200), .fit, upscale: true).size == (200, 100))
        #expect(geometry(1, 1, box: (200, 200), .fit).size == (1, 1))
        #expect(geometry(1, 1, box: (200, 200), .fit, upscale: true).size == (200, 200))
        #expect(geometry(100_000, 1, box: (256, 256), .fit).size == (256, 1))
        #expect(geometry(1, 100_000, box: (256, 256), .fit).size == (1, 256))
    }

    @Test("fill covers the box and crops the overflow at the gravity")
    func fill() {
        let centre = geometry(300, 200, box: (100, 100), .fill)
        #expect(centre.scaled == (150, 100))
        #expect(centre.crop == ThumbnailGeometry.Crop(x: 25, y: 0, width: 100, height: 100))
        #expect(geometry(300, 200, box: (100, 100), .fill, .west).crop?.x == 0)
        #expect(geometry(300, 200, box: (100, 100), .fill, .east).crop?.x == 50)
        #expect(geometry(200, 300, box: (100, 100), .fill, .north).crop == ThumbnailGeometry.Crop(x: 0, y: 0, width: 100, height: 100))
        #expect(geometry(200, 300, box: (100, 100), .fill, .south).crop?.y == 50)
        #expect(geometry(200, 300, box: (100, 100), .fill, .southEast).crop?.y == 50)
    }

    @Test("fill without upscaling keeps the box's shape at the image's own scale")
    func fillWithoutUpscale() {
        #expect(geometry(100, 50, box: (200, 200), .fill).size == (50, 50))
        #expect(geometry(100, 50, box: (200, 200), .fill, upscale: true).size == (200, 200))
        #expect(geometry(1, 1, box: (200, 100), .fill).size == (1, 1))
        #expect(geometry(100_000, 2, box: (64, 64), .fill).size == (2, 2))
    }

    @Test("exact distorts to the box; without upscaling only shrinks")
    func exact() {
        #expect(geometry(300, 200, box: (50, 120), .exact).size == (50, 120))
        #expect(geometry(30, 20, box: (50, 10), .exact).size == (30, 10))
        #expect(geometry(30, 20, box: (50, 10), .exact, upscale: true).size == (50, 10))
    }

    @Test("a zero side is free, whatever the mode; both zero is the image's own size", arguments: SizingMode.allCases)
    func zeroSides(mode: SizingMode) {
        #expect(geometry(3000, 2000, box: (300, 0), mode).size == (300, 200))
        #expect(geometry(3000, 2000, box: (0, 100), mode).size == (150, 100))
        #expect(geometry(3000, 2000, box: (0, 0), mode).size == (3000, 2000))
        #expect(geometry(3000, 2000, box: (-5, 100), mode).size == (150, 100))
    }

    @Test("fill on a rotated photo crops in the upright picture", arguments: 1...8)
    func fillOnOrientedImage(exif: Int) throws {
        // The 96x64 upright picture filled into 32x32 from the west keeps its left third: red over blue.
        let thumb = try Fixture.source("orient-\(exif).jpg").thumbnail(size: ImageSize(width: 32, height: 32), mode: .fill, gravity: .west)
        #expect(thumb.width == 32 && thumb.height == 32)
        let pixels = try thumb.pixels(.rgba8)
        let top = pixels.rgba(x: 16, y: 6), bottom = pixels.rgba(x: 16, y: 26)
        #expect(top.r > 200 && top.g < 60 && top.b < 60, "orient-\(exif): top is \(top)")
        #expect(bottom.b > 200 && bottom.r < 60, "orient-\(exif): bottom is \(bottom)")
    }

    @Test("fit and exact on real bytes give the planned sizes")
    func realSizes() throws {
        let source = try Fixture.source("orient-6.jpg")
        let fit = try source.thumbnail(size: ImageSize(width: 48, height: 48))
        #expect(fit.width == 48 && fit.height == 32)
        try expectUprightQuadrants(fit)
        let exact = try source.thumbnail(size: ImageSize(width: 20, height: 40), mode: .exact)
        #expect(exact.width == 20 && exact.height == 40)
        try expectUprightQuadrants(exact)
        let onePixel = try Fixture.source("photo.jpg").thumbnail(size: ImageSize(width: 1, height: 1), mode: .fill)
        #expect(onePixel.width == 1 && onePixel.height == 1)
    }
}
