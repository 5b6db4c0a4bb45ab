import Foundation
import Testing
@testable import MagickIO

@Suite("Thumbnails")
struct ThumbnailTests {
    @Test("the longest side equals the maximum and the aspect is kept", arguments: [
        (256, 256, 192), (100, 100, 75), (64, 64, 48), (1, 1, 1), (320, 320, 240),
    ])
    func sizes(max: Int, width: Int, height: Int) throws {
        let thumb = try Fixture.source("photo.jpg").thumbnail(maxPixelSize: max)
        #expect(thumb.width == width)
        #expect(thumb.height == height)
    }

    @Test("no upscaling unless asked")
    func noUpscaling() throws {
        let source = try Fixture.source("photo.jpg")
        let thumb = try source.thumbnail(maxPixelSize: 1000)
        #expect(thumb.width == 320 && thumb.height == 240)
        let up = try source.thumbnail(maxPixelSize: 640, allowUpscale: true)
        #expect(up.width == 640 && up.height == 480)
    }

    @Test("fitted sizes round each side to nearest, at least 1")
    func geometry() {
        func fitted(_ width: Int, _ height: Int, _ side: Int) -> (Int, Int) {
            let size = ThumbnailRequest.maxPixelSize(side).geometry(width: width, height: height, allowUpscale: false).size
            return (size.width, size.height)
        }
        #expect(fitted(3000, 2000, 256) == (256, 171))
        #expect(fitted(2000, 3000, 256) == (171, 256))
        #expect(fitted(10000, 10, 256) == (256, 1))
        #expect(fitted(100, 50, 256) == (100, 50))
        #expect(fitted(100, 50, 0) == (1, 1))
        #expect(fitted(1, 1, 256) == (1, 1))
    }

    @Test("a thumbnail carries no metadata: no EXIF, no profiles")
    func metadataStripped() throws {
        let thumb = try Fixture.source("photo.jpg").thumbnail(maxPixelSize: 64)
        let reread = try ImageSource(data: thumb.encoded(as: .jpeg(quality: 85)))
        #expect(try reread.properties(at: 0).exif.isEmpty)
        let full = try ImageSource(data: Fixture.source("photo.jpg").image(at: 0).encoded(as: .jpeg(quality: 85)))
        #expect(try full.properties(at: 0).exif["Make"] == "MagickIO", "image(at:) keeps the metadata")
    }

    @Test("a CMYK JPEG becomes sRGB with the right colour")
    func cmykBecomesSRGB() throws {
        let thumb = try Fixture.source("cmyk.jpg").thumbnail(maxPixelSize: 32)
        let reread = try ImageSource(data: thumb.encoded(as: .png))
        #expect(try reread.properties(at: 0).colorSpace == "srgb")
        let pixel = try thumb.pixels(.rgba8).rgba(x: 16, y: 12)
        #expect(pixel.r < 40 && pixel.g > 200 && pixel.b > 200, "cyan came out as \(pixel)")
    }

    @Test("pixels(_:) of a decoded CMYK image or HEIC are sRGB, not the raw planes")
    func pixelsAreSRGB() throws {
        // The CMYK JPEG is pure cyan. A HEIC is decoded by libheif to RGB (ImageMagick's HEIC
        // coder, which MagickIO no longer uses for it, returned the YCbCr planes).
        let cyan = try Fixture.source("cmyk.jpg").image(at: 0).pixels(.rgba8).rgba(x: 32, y: 24)
        #expect(cyan.r < 40 && cyan.g > 200 && cyan.b > 200 && cyan.a == 255, "\(cyan)")
        let heic = try Fixture.source("orient-1.heic").image(at: 0)
        #expect(heic.properties.colorSpace == "srgb", "the decoded HEIC is in \(heic.properties.colorSpace)")
        try expectUprightQuadrants(heic)
        // An alpha-less HEIF is opaque everywhere (ImageMagick's HEIC coder left the opacity
        // uninitialised: fresh memory read as opaque, reused memory as anything). Several
        // decodes reuse some.
        for name in (1...8).map({ "orient-\($0).heic" }) + ["adobe-rgb-item.heic", "embedded-thumbnail.avif"] {
            let source = try Fixture.source(name)
            for pixels in [try source.image(at: 0).pixels(.rgba8), try source.thumbnail(maxPixelSize: 32, options: ThumbnailOptions(colorProfile: .keep)).pixels(.bgra8)] {
                #expect(stride(from: 3, to: pixels.bytes.count, by: 4).allSatisfy { pixels.bytes[$0] == 255 }, "\(name) is opaque")
            }
        }
        let gray = try Fixture.source("orient-1.heic").image(at: 0).pixels(.gray8)
        // Rec. 709 luma of red is about 54, of yellow about 237.
        #expect(gray.bytes[16 * gray.bytesPerRow + 24] < 90 && gray.bytes[48 * gray.bytesPerRow + 72] > 200)
    }

    @Test("alpha is kept in PNG and flattened onto white in JPEG")
    func alpha() throws {
        let thumb = try Fixture.source("alpha.png").thumbnail(maxPixelSize: 20)
        #expect(thumb.width == 20 && thumb.height == 15)
        let png = try ImageSource(data: thumb.encoded(as: .png))
        #expect(try png.properties(at: 0).hasAlpha)
        let pixels = try png.image(at: 0).pixels(.rgba8)
        #expect(pixels.rgba(x: 3, y: 7).a == 255)
        #expect(pixels.rgba(x: 16, y: 7).a == 0)

        let jpeg = try ImageSource(data: thumb.encoded(as: .jpeg(quality: 90)))
        #expect(try !jpeg.properties(at: 0).hasAlpha)
        let flat = try jpeg.image(at: 0).pixels(.rgba8)
        let left = flat.rgba(x: 3, y: 7), right = flat.rgba(x: 16, y: 7)
        #expect(left.r > 220 && left.g < 40, "opaque red stays red: \(left)")
        #expect(right.r > 240 && right.g > 240 && right.b > 240, "transparent becomes white: \(right)")
    }

    @Test("thumbnails are 8 bits per channel")
    func eightBit() throws {
        let sixteen = try ImageSource(data: Fixture.source("photo.png").image(at: 0).encoded(as: .png))
        let thumb = try sixteen.thumbnail(maxPixelSize: 32)
        #expect(try ImageSource(data: thumb.encoded(as: .png)).properties(at: 0).bitDepth == 8)
    }

    @Test("a frame of a GIF can be thumbnailed")
    func gifFrame() throws {
        let thumb = try Fixture.source("animated.gif").thumbnail(maxPixelSize: 12, at: 2)
        #expect(thumb.width == 12 && thumb.height == 8)
        let pixel = try thumb.pixels(.rgba8).rgba(x: 6, y: 4)
        #expect(pixel.b > 200 && pixel.r < 40, "frame 2 is blue: \(pixel)")
    }

    @Test("JPEG shrink-on-load gives the same size and colours as a full decode")
    func shrinkOnLoad() throws {
        let source = try Fixture.source("orient-6.jpg")
        let thumb = try source.thumbnail(maxPixelSize: 12)
        #expect(thumb.width == 12 && thumb.height == 8)
        try expectUprightQuadrants(thumb)
    }
}

@Suite("Shrink-on-load")
struct ShrinkOnLoadTests {
    @Test("the jpeg:size hint makes libjpeg decode at a reduced DCT scale, as predicted", arguments: [
        (128, 96), (80, 60), (40, 30), (100, 50), (50, 100), (200, 150),
    ])
    func hintReducesDecodeAsPredicted(hintWidth: Int, hintHeight: Int) throws {
        let source = try Fixture.source("photo.jpg")
        let hint = JPEGScale.Hint(width: hintWidth, height: hintHeight)
        let predicted = JPEGScale.decodedSize(width: 320, height: 240, hint: hint)
        let decoded = try source.withDecoded(frame: 0, jpegHint: hint) { (wand: Wand, _) in (wand.width, wand.height) }
        #expect(decoded == predicted)
        #expect(source.estimate(frame: 0, jpegHint: hint).width == decoded.0)
        #expect(decoded.0 >= min(hintWidth, 320) && decoded.1 >= min(hintHeight, 240), "never below the hint")
    }

    @Test("the hint picks the most reduced DCT scale of 1/8, 1/4 and 1/2 that keeps twice the target on each axis")
    func hintChoice() throws {
        func decoded(_ width: Int, _ height: Int, _ target: (Int, Int)) -> (Int, Int)? {
            JPEGScale.hint(width: width, height: height, target: target).map {
                let size = JPEGScale.decodedSize(width: width, height: height, hint: $0)
                return (size.width, size.height)
            }
        }
        // 12 MP to 256: 1/4 (1/8 would give 500 px, under twice 256).
        #expect(try #require(decoded(4000, 3000, (256, 192))) == (1000, 750))
        // 24 MP to 1024: 1/2, not 3/8 (libjpeg-turbo's 3x3 and 6x6 inverse DCTs have no SIMD code).
        #expect(try #require(decoded(6000, 4000, (1024, 683))) == (3000, 2000))
        // 100 MP to 256: 1/8.
        #expect(try #require(decoded(10_000, 10_000, (256, 256))) == (1250, 1250))
        // An 18144x998 panorama to 256x14: the short axis never goes below twice its target.
        let panorama = try #require(decoded(18_144, 998, (256, 14)))
        #expect(panorama.0 >= 512 && panorama.1 >= 28)
        #expect(JPEGScale.hint(width: 320, height: 240, target: (256, 192)) == nil)
        #expect(JPEGScale.hint(width: 320, height: 240, target: (100, 75)) == nil, "1/2 would give 160x120, under 200x150")
        #expect(try #require(decoded(320, 240, (80, 60))) == (160, 120))
    }

    @Test("a full decode is at full size")
    func fullDecode() throws {
        let full = try Fixture.source("photo.jpg").withDecoded(frame: 0) { (wand: Wand, _) in (wand.width, wand.height) }
        #expect(full == (320, 240))
    }
}
