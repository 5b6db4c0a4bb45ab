import Foundation
import Testing
@testable import MagickIO

@Suite("Crop choice for fill: attention, entropy, focal point, and the crop rectangle")
struct SmartCropTests {
    static let box = ImageSize(width: 100, height: 100)

    func thumbnail(_ data: Data, _ crop: ThumbnailOptions.Crop, gravity: Gravity = .center) throws -> Image {
        try ImageSource(data: data).thumbnail(size: Self.box, mode: .fill, gravity: gravity,
                                              options: ThumbnailOptions(crop: crop))
    }

    /// Whether the thumbnail shows the object's checkerboard where its centre falls in `rect`.
    func showsObject(_ image: Image, at object: (x: Int, y: Int), rect: ImageRect) throws -> Bool {
        let pixels = try image.pixels(.rgba8)
        let centre = (x: object.x + 30, y: object.y + 30)
        let x = (centre.x - rect.x) * pixels.width / rect.width, y = (centre.y - rect.y) * pixels.height / rect.height
        guard (0..<pixels.width).contains(x), (0..<pixels.height).contains(y) else { return false }
        let p = pixels.rgba(x: x, y: y)
        return p.r > 150 && p.b < 110  // red or yellow, never the grey background
    }

    @Test("attention and entropy keep an off-centre object the centre crop cuts off",
          arguments: [ThumbnailOptions.Crop.attention, .entropy], [(x: 225, y: 70), (x: 15, y: 120)])
    func keepsObject(crop: ThumbnailOptions.Crop, object: (x: Int, y: Int)) throws {
        let data = SceneImages.offCentreObject(at: object)
        let centre = try #require(try thumbnail(data, .center).cropRect)
        #expect(centre == ImageRect(x: 50, y: 0, width: 200, height: 200))
        #expect(centre.x > object.x || centre.x + centre.width < object.x + 60, "the centre crop must cut the object")

        let image = try thumbnail(data, crop)
        #expect(image.width == 100 && image.height == 100)
        let rect = try #require(image.cropRect)
        #expect(rect.width == 200 && rect.height == 200 && rect.y == 0)
        #expect(rect.x <= object.x && rect.x + rect.width >= object.x + 60, "\(crop) window \(rect) misses the object")
        #expect(try showsObject(image, at: object, rect: rect))
    }

    @Test("the crop rectangle is in the upright picture's pixels when the file is stored turned",
          arguments: [Orientation.right, .left, .down])
    func turned(orientation: Orientation) throws {
        let object = (x: 225, y: 70)
        let upright = try #require(try thumbnail(SceneImages.offCentreObject(at: object), .attention).cropRect)
        let data = SceneImages.offCentreObject(at: object, orientation: orientation)
        #expect(try ImageSource(data: data).properties(at: 0).orientation == orientation)
        let image = try thumbnail(data, .attention)
        let rect = try #require(image.cropRect)
        #expect(image.width == 100 && image.height == 100)
        #expect(rect.width == 200 && rect.height == 200 && rect.y == 0)
        #expect(abs(rect.x - upright.x) <= 4, "turned \(rect) against upright \(upright)")
        #expect(rect.x <= object.x && rect.x + rect.width >= object.x + 60)
        #expect(try showsObject(image, at: object, rect: rect))
    }

    /// 300x200 (or 200x300), red rising left to right, green top to bottom.
    static func gradient(tall: Bool) -> Data {
        let (w, h) = tall ? (200, 300) : (300, 200)
        return SceneImages.png(width: w, height: h) { x, y in (UInt8(x * 255 / (w - 1)), UInt8(y * 255 / (h - 1)), 60, 255) }
    }

    @Test("a focal point centres the window on it, kept inside the picture", arguments: [
        (tall: false, x: 0.6, y: 0.5, expected: ImageRect(x: 80, y: 0, width: 200, height: 200)),
        (tall: false, x: 0.0, y: 0.5, expected: ImageRect(x: 0, y: 0, width: 200, height: 200)),
        (tall: false, x: 1.0, y: 0.1, expected: ImageRect(x: 100, y: 0, width: 200, height: 200)),
        (tall: false, x: -3, y: 7, expected: ImageRect(x: 0, y: 0, width: 200, height: 200)),
        (tall: false, x: .nan, y: 0.5, expected: ImageRect(x: 50, y: 0, width: 200, height: 200)),
        (tall: true, x: 0.5, y: 0.6, expected: ImageRect(x: 0, y: 80, width: 200, height: 200)),
        (tall: true, x: 0.5, y: 0.95, expected: ImageRect(x: 0, y: 100, width: 200, height: 200)),
    ])
    func focalPoint(tall: Bool, x: Double, y: Double, expected: ImageRect) throws {
        let image = try thumbnail(Self.gradient(tall: tall), .focalPoint(x: x, y: y))
        #expect(image.cropRect == expected)
        // The thumbnail's top left pixel is the picture's at the window's top left corner.
        let pixel = try image.pixels(.rgba8).rgba(x: 0, y: 0)
        let (w, h) = tall ? (200, 300) : (300, 200)
        #expect(abs(Int(pixel.r) - expected.x * 255 / (w - 1)) <= 6, "red \(pixel.r) for x \(expected.x)")
        #expect(abs(Int(pixel.g) - expected.y * 255 / (h - 1)) <= 6, "green \(pixel.g) for y \(expected.y)")
    }

    @Test("center crops at the gravity; fit and a box of the picture's own shape report no crop")
    func gravityAndNoCrop() throws {
        let data = Self.gradient(tall: false)
        #expect(try thumbnail(data, .center, gravity: .east).cropRect == ImageRect(x: 100, y: 0, width: 200, height: 200))
        #expect(try thumbnail(data, .attention, gravity: .east).cropRect != nil)
        let source = try ImageSource(data: data)
        #expect(try source.thumbnail(maxPixelSize: 100).cropRect == nil)
        #expect(try source.thumbnail(size: ImageSize(width: 150, height: 100), mode: .fill,
                                     options: ThumbnailOptions(crop: .attention)).cropRect == nil)
    }

    @Test("a crop made from a camera's EXIF thumbnail is told in the picture's pixels, not the thumbnail's")
    func cropFromEmbeddedThumbnail() throws {
        // 640x960 stored, EXIF 6 (960x640 upright); its EXIF thumbnail is 160x240 (240x160 upright).
        let source = try Fixture.source("embedded-thumbnail.jpg")
        let box = ImageSize(width: 64, height: 64)
        let carried = try source.thumbnail(size: box, mode: .fill, options: ThumbnailOptions(embedded: .always))
        let decoded = try source.thumbnail(size: box, mode: .fill)
        #expect(carried.width == 64 && carried.height == 64)
        #expect(carried.cropRect == ImageRect(x: 160, y: 0, width: 640, height: 640))
        #expect(carried.cropRect == decoded.cropRect)
    }

    @Test("a plain picture, where nothing tells the windows apart, stays centred", arguments: [ThumbnailOptions.Crop.attention, .entropy])
    func plainStaysCentred(crop: ThumbnailOptions.Crop) throws {
        let plain = SceneImages.png(width: 300, height: 200) { _, _ in (90, 140, 200, 255) }
        let rect = try thumbnail(plain, crop).cropRect
        #expect(rect == ImageRect(x: 50, y: 0, width: 200, height: 200), "\(String(describing: rect))")
    }

    @Test("attention keeps a whole face-coloured band with room above it in a tall picture")
    func skinBandFits() throws {
        // 200x400 upright: a skin-toned oval (a face) high up, and a busy red/yellow pattern
        // (a patterned shirt) lower down that outweighs it on detail alone.
        let tall = SceneImages.png(width: 200, height: 400) { x, y in
            let dx = Double(x - 100) / 45, dy = Double(y - 110) / 60
            if dx * dx + dy * dy <= 1 { return (224, 172, 140, 255) }
            if y >= 230, y < 400, x >= 40, x < 160 {
                return ((x / 5 + y / 5) % 2 == 0) ? (220, 30, 30, 255) : (250, 220, 40, 255)
            }
            return (110, 110, 110, 255)
        }
        let rect = try #require(try thumbnail(tall, .attention).cropRect)
        #expect(rect.width == 200 && rect.height == 200)
        #expect(rect.y <= 50 && rect.y + rect.height >= 170, "window \(rect) cuts the face (rows 50...170)")
    }
}
