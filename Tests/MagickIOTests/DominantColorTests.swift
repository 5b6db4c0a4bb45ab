import Foundation
import Testing
@testable import MagickIO

@Suite("Dominant colour")
struct DominantColorTests {
    /// 128x96: the left half blue, a quarter red, the rest in yellow and white stripes. Made anew
    /// for each use: a `static let` would hold its bytes past the run, which LeakSanitizer reports.
    static var areas: Data {
        SceneImages.png(width: 128, height: 96) { x, y in
            if x < 64 { return (20, 90, 200, 255) }
            if y < 48 { return (200, 40, 40, 255) }
            return x % 2 == 0 ? (250, 220, 0, 255) : (255, 255, 255, 255)
        }
    }

    @Test("the largest area of colour comes back exactly, from the image and from the source")
    func knownAreas() throws {
        let source = try ImageSource(data: Self.areas)
        let colour = try source.image(at: 0).dominantColor()
        #expect(colour == RGBColor(r: 20, g: 90, b: 200))
        #expect(colour.hex == "#145ac8")
        // Through the 64-pixel thumbnail: Lanczos leaves the inside of a flat area as it was.
        let fromSource = try source.dominantColor()
        #expect(abs(Int(fromSource.r) - 20) <= 1 && abs(Int(fromSource.g) - 90) <= 1 && abs(Int(fromSource.b) - 200) <= 1,
                "\(fromSource)")
    }

    @Test("a saturated subject against a larger greyish background gives the subject's colour")
    func greyBackground() throws {
        // 70 % a mottled grey (shadow and wall), 30 % orange.
        let data = SceneImages.png(width: 100, height: 100) { x, y in
            if x >= 60, y >= 25 { return (230, 120, 20, 255) }
            let grey = UInt8(98 + (x * 7 + y * 13) % 8)
            return (grey, grey, grey + 4, 255)
        }
        let image = try ImageSource(data: data).image(at: 0)
        #expect(try image.dominantColor() == RGBColor(r: 230, g: 120, b: 20))
        // sharp's anchor, the fullest of the 4096 bins, would have been a grey one.
        let pixels = try image.pixels(.rgba8)
        var bins = [Int: Int]()
        for i in stride(from: 0, to: pixels.bytes.count, by: 4) {
            bins[Int(pixels.bytes[i] >> 4) << 8 | Int(pixels.bytes[i + 1] >> 4) << 4 | Int(pixels.bytes[i + 2] >> 4), default: 0] += 1
        }
        let fullest = try #require(bins.max { $0.value < $1.value }?.key)
        #expect(fullest >> 8 == (fullest >> 4) & 15, "the fullest bin is grey (r == g)")
    }

    @Test("a picture that is mostly grey gets a grey, its most common one")
    func allGrey() throws {
        // Greys, with 5 % of a faint tint and 5 % of saturated specks: too little colour to count.
        let data = SceneImages.png(width: 100, height: 100) { x, y in
            if y < 5 { return (200, 30, 30, 255) }
            if y < 10 { return (150, 150, 165, 255) }
            return x < 70 ? (64, 64, 64, 255) : (180, 180, 180, 255)
        }
        #expect(try ImageSource(data: data).image(at: 0).dominantColor() == RGBColor(r: 64, g: 64, b: 64))
    }

    @Test("transparent pixels are not counted unless every pixel is")
    func transparency() throws {
        let mostlyClear = SceneImages.png(width: 50, height: 50) { x, _ in x < 40 ? (250, 0, 0, 0) : (0, 160, 80, 255) }
        #expect(try ImageSource(data: mostlyClear).image(at: 0).dominantColor() == RGBColor(r: 0, g: 160, b: 80))
        let allClear = SceneImages.png(width: 50, height: 50) { _, _ in (250, 0, 0, 0) }
        #expect(try ImageSource(data: allClear).image(at: 0).dominantColor() == RGBColor(r: 250, g: 0, b: 0))
    }

    @Test("a picture larger than the grid is read on the same grid as its full export (RGB, RGBA, grey)",
          arguments: ["rgb", "rgba", "grey"])
    func gridMatchesFullExport(kind: String) throws {
        // 301x203: steps of 5 and 4; a pattern that changes every pixel, so that a grid one pixel
        // off would give other bins.
        let data = SceneImages.png(width: 301, height: 203) { x, y in
            let v = UInt8((x * 37 + y * 11) % 256)
            switch kind {
            case "grey": return (v, v, v, 255)
            case "rgba": return (v, UInt8((x * 5) % 256), UInt8((y * 9) % 256), x % 3 == 0 ? 0 : 255)
            default: return (v, UInt8((x * 5) % 256), UInt8((y * 9) % 256), 255)
            }
        }
        let image = try ImageSource(data: data).image(at: 0)
        let pixels = try image.pixels(.rgba8)
        #expect(try image.dominantColor() == DominantColor.of(rgba: pixels.bytes, width: pixels.width, height: pixels.height))
    }

    @Test("hex is #rrggbb in lower case, with leading zeros")
    func hex() {
        #expect(RGBColor(r: 0, g: 10, b: 255).hex == "#000aff")
        #expect(RGBColor(r: 171, g: 205, b: 239).description == "#abcdef")
    }
}
