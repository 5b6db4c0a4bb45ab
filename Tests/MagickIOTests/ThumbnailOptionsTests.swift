import Foundation
import Testing
@testable import MagickIO

@Suite("Thumbnail options")
struct ThumbnailOptionsTests {
    /// The top-left colour of an upright thumbnail: red from the picture, magenta from the
    /// embedded thumbnail.
    func topLeft(_ image: Image) throws -> (r: UInt8, g: UInt8, b: UInt8) {
        let pixel = try image.pixels(.rgba8).rgba(x: image.width / 4, y: image.height / 4)
        return (pixel.r, pixel.g, pixel.b)
    }

    @Test("the embedded EXIF thumbnail is found and turned upright like the picture")
    func embeddedFound() throws {
        let source = try Fixture.source("embedded-thumbnail.jpg")
        let embedded = try #require(source.embeddedThumbnail())
        let p = try embedded.properties(at: 0)
        #expect(p.pixelWidth == 160 && p.pixelHeight == 240)
        #expect(p.orientation == .right)
        #expect(try Fixture.source("photo.jpg").embeddedThumbnail() == nil)
    }

    @Test("ifAbsent uses the embedded thumbnail when it is big enough, the picture otherwise")
    func ifAbsent() throws {
        let source = try Fixture.source("embedded-thumbnail.jpg")
        let small = try source.thumbnail(maxPixelSize: 160, options: ThumbnailOptions(embedded: .ifAbsent))
        #expect(small.width == 160 && small.height == 107)
        let fromEmbedded = try topLeft(small)
        #expect(fromEmbedded.r > 200 && fromEmbedded.b > 200 && fromEmbedded.g < 60, "magenta: \(fromEmbedded)")
        let large = try source.thumbnail(maxPixelSize: 400, options: ThumbnailOptions(embedded: .ifAbsent))
        #expect(large.width == 400)
        let fromPicture = try topLeft(large)
        #expect(fromPicture.r > 200 && fromPicture.b < 60, "red: \(fromPicture)")
        try expectUprightQuadrants(large)
    }

    @Test("always uses the embedded thumbnail, never upscaled; never ignores it")
    func alwaysAndNever() throws {
        let source = try Fixture.source("embedded-thumbnail.jpg")
        let always = try source.thumbnail(maxPixelSize: 400, options: ThumbnailOptions(embedded: .always))
        #expect(always.width == 240 && always.height == 160)
        #expect(try topLeft(always).b > 200)
        let never = try source.thumbnail(maxPixelSize: 160)
        #expect(try topLeft(never).b < 60)
    }

    @Test("an embedded ICC profile is applied when converting to sRGB, or kept on request")
    func colourManagement() throws {
        let source = try Fixture.source("adobe-rgb.jpg")
        let raw = try source.image(at: 0).pixels(.rgba8).rgba(x: 16, y: 16)
        #expect(abs(Int(raw.r) - 60) < 4 && abs(Int(raw.g) - 180) < 4, "stored as (60, 180, 90): \(raw)")
        let converted = try source.thumbnail(maxPixelSize: 32).pixels(.rgba8).rgba(x: 16, y: 16)
        // Little CMS puts Adobe RGB (60, 180, 90) at sRGB (0, 181, 83).
        #expect(converted.r < 8 && abs(Int(converted.g) - 181) < 4 && abs(Int(converted.b) - 83) < 4, "\(converted)")
        let kept = try source.thumbnail(maxPixelSize: 32, options: ThumbnailOptions(colorProfile: .keep))
        let keptPixel = try kept.pixels(.rgba8).rgba(x: 16, y: 16)
        #expect(abs(Int(keptPixel.r) - 60) < 4, "\(keptPixel)")
        let reread = try ImageSource(data: kept.encoded(as: .png))
        #expect(try reread.image(at: 0).encoded(as: .png).count > 0)
        let stripped = try source.thumbnail(maxPixelSize: 32).encoded(as: .jpeg(quality: 90))
        #expect(stripped.count < 600 + 400, "no ICC profile left in an ordinary thumbnail")
    }

    @Test("16-bit input gives 8-bit thumbnails")
    func sixteenBit() throws {
        let thumb = try Fixture.source("pages.tif").thumbnail(maxPixelSize: 8)
        #expect(try ImageSource(data: thumb.encoded(as: .png)).properties(at: 0).bitDepth == 8)
    }

    @Test("metadata on encode: keep all, keep all but GPS, strip all")
    func metadataPolicies() throws {
        let image = try Fixture.source("gps.jpg").image(at: 0)
        let all = try ImageSource(data: image.encoded(as: .jpeg(quality: 90))).properties(at: 0).exif
        #expect(all["Make"] == "MagickIO")
        #expect(all.keys.contains { $0.hasPrefix("GPS") })
        let noGPS = try ImageSource(data: image.encoded(as: .jpeg(quality: 90), metadata: .keepAllButGPS)).properties(at: 0).exif
        #expect(noGPS["Make"] == "MagickIO")
        #expect(noGPS["DateTimeOriginal"] == "2026:11:21 12:00:00")
        #expect(!noGPS.keys.contains { $0.hasPrefix("GPSLatitude") || $0.hasPrefix("GPSLongitude") }, "\(noGPS.keys.sorted())")
        let none = try ImageSource(data: image.encoded(as: .jpeg(quality: 90), metadata: .stripAll)).properties(at: 0).exif
        #expect(none.isEmpty)
        let thumbKept = try Fixture.source("gps.jpg").thumbnail(maxPixelSize: 64, options: ThumbnailOptions(metadata: .keepAllButGPS))
        let thumbExif = try ImageSource(data: thumbKept.encoded(as: .jpeg(quality: 90))).properties(at: 0).exif
        #expect(thumbExif["Make"] == "MagickIO")
        #expect(!thumbExif.keys.contains { $0.hasPrefix("GPSLatitude") })
    }

    @Test("removing GPS zeroes every GPS value's bytes")
    func gpsBytesGone() throws {
        let data = try Fixture.data("gps.jpg")
        let image = try ImageSource(data: data).image(at: 0)
        let cleaned = try image.encoded(as: .jpeg(quality: 90), metadata: .keepAllButGPS)
        // exiftool wrote 48 deg 51' 30.24" as big-endian rationals 48/1, 51/1, 756/25.
        let latitude: [UInt8] = [0, 0, 0, 0x30, 0, 0, 0, 1, 0, 0, 0, 0x33, 0, 0, 0, 1, 0, 0, 0x02, 0xF4, 0, 0, 0, 0x19]
        func contains(_ haystack: Data, _ needle: [UInt8]) -> Bool {
            let bytes = [UInt8](haystack)
            return bytes.indices.dropLast(needle.count).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
        }
        #expect(contains(data, latitude))
        #expect(!contains(cleaned, latitude))
    }
}
