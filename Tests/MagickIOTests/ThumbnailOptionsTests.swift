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

    @Test("ifAbsent needs the embedded thumbnail to cover the request on both sides, not only the longest")
    func ifAbsentBothSides() throws {
        // The 240x160 thumbnail, upright 160x240: its longest side covers 200, its width does not.
        let source = try Fixture.source("embedded-thumbnail.jpg")
        let square = try source.thumbnail(size: ImageSize(width: 200, height: 200), mode: .fill,
                                          options: ThumbnailOptions(embedded: .ifAbsent))
        #expect(square.width == 200 && square.height == 200)
        let corner = try topLeft(square)
        #expect(corner.r > 200 && corner.g < 60 && corner.b < 60, "red: the picture, not the magenta thumbnail: \(corner)")
    }

    @Test("keepAllButGPS drops an XMP packet that names a place, without touching the rest")
    func xmpGPS() throws {
        let image = try Fixture.source("xmp-gps.jpg").image(at: 0)
        let kept = try ImageSource(data: image.encoded(as: .jpeg(quality: 90), metadata: .keepAll))
        #expect(try kept.image(at: 0).encoded(as: .jpeg(quality: 90)).range(of: Data("GPSLatitude".utf8)) != nil)
        let cleaned = try image.encoded(as: .jpeg(quality: 90), metadata: .keepAllButGPS)
        #expect(cleaned.range(of: Data("GPSLatitude".utf8)) == nil)
        #expect(try ImageSource(data: cleaned).properties(at: 0).exif["Make"] == "MagickIO")
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

    @Test("a thumbnail made from the EXIF thumbnail keeps the picture's metadata on request, marked upright")
    func embeddedKeepsMetadata() throws {
        let source = try Fixture.source("embedded-thumbnail.jpg")
        let kept = try source.thumbnail(maxPixelSize: 160, options: ThumbnailOptions(embedded: .ifAbsent, metadata: .keepAll))
        #expect(try topLeft(kept).b > 200, "made from the embedded thumbnail")
        let reread = try ImageSource(data: kept.encoded(as: .jpeg(quality: 90))).properties(at: 0)
        // The picture's EXIF says 6; the thumbnail's pixels are upright, so a viewer must not turn them.
        #expect(reread.exif["Orientation"] == "1", "\(reread.exif)")
        #expect(reread.orientation == .up && reread.pixelWidth == 160 && reread.pixelHeight == 107)
        let stripped = try source.thumbnail(maxPixelSize: 160, options: ThumbnailOptions(embedded: .ifAbsent))
        #expect(try ImageSource(data: stripped.encoded(as: .jpeg(quality: 90))).properties(at: 0).exif.isEmpty)
    }

    /// Checks the three quadrants the embedded HEIC thumbnail shares with the picture (its
    /// top-left is magenta where the picture's is red).
    func expectThumbnailItemUpright(_ image: Image, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pixels = try image.pixels(.rgba8)
        let (w, h) = (pixels.width, pixels.height)
        let topRight = pixels.rgba(x: 3 * w / 4, y: h / 4), bottomLeft = pixels.rgba(x: w / 4, y: 3 * h / 4)
        let bottomRight = pixels.rgba(x: 3 * w / 4, y: 3 * h / 4)
        #expect(topRight.g > 200 && topRight.r < 60 && topRight.b < 60, "lime: \(topRight)", sourceLocation: sourceLocation)
        #expect(bottomLeft.b > 200 && bottomLeft.r < 60 && bottomLeft.g < 60, "blue: \(bottomLeft)", sourceLocation: sourceLocation)
        #expect(bottomRight.r > 200 && bottomRight.g > 200 && bottomRight.b < 60, "yellow: \(bottomRight)", sourceLocation: sourceLocation)
    }

    @Test("a HEIC's thumbnail item is found through libheif, with its size as shown")
    func heifItemFound() throws {
        let source = try Fixture.source("embedded-thumbnail.heic")
        #expect(source.format == .heic)
        let p = try source.properties(at: 0)
        // libheif applies irot when decoding, so the picture is reported as it is shown.
        #expect(p.pixelWidth == 960 && p.pixelHeight == 640 && p.orientation == .up)
        let heif = try #require(source.index?.heif)
        let items = HEIFThumbnail.all(in: source.bytes, items: heif, options: source.decodingOptions)
        #expect(items.map { [$0.width, $0.height] } == [[240, 160]])
        #expect(HEIFThumbnail.all(in: source.bytes, items: heif, options: DecodingOptions(maxPixelCount: 240 * 160 - 1)).isEmpty, "over the pixel limit")
        // A pixel limit is not a side limit: 600,000 pixels admit the 240x160 item of a picture
        // wider (960) than the limit's square root (774).
        #expect(HEIFThumbnail.all(in: source.bytes, items: heif, options: DecodingOptions(maxPixelCount: 600_000)).map(\.width) == [240])
        let orient6 = try Fixture.source("orient-6.heic")
        #expect(HEIFThumbnail.all(in: orient6.bytes, items: try #require(orient6.index?.heif), options: DecodingOptions(maxPixelCount: 1 << 28)).isEmpty)
        #expect(try Fixture.source("photo.jpg").index?.heif == nil, "a JPEG's index holds no HEIF items, so no thumbnail item")
    }

    @Test("a HEIC's thumbnail item serves like the EXIF one: upright, by size, always, never")
    func heifItemServes() throws {
        let source = try Fixture.source("embedded-thumbnail.heic")
        let small = try source.thumbnail(maxPixelSize: 160, options: ThumbnailOptions(embedded: .ifAbsent))
        #expect(small.width == 160 && small.height == 107)
        let fromItem = try topLeft(small)
        #expect(fromItem.r > 200 && fromItem.b > 200 && fromItem.g < 60, "magenta: \(fromItem)")
        try expectThumbnailItemUpright(small)

        let large = try source.thumbnail(maxPixelSize: 400, options: ThumbnailOptions(embedded: .ifAbsent))
        #expect(large.width == 400 && large.height == 267)
        #expect(try topLeft(large).b < 60, "too small an item: the picture is decoded")
        try expectUprightQuadrants(large)

        let always = try source.thumbnail(maxPixelSize: 400, options: ThumbnailOptions(embedded: .always))
        #expect(always.width == 240 && always.height == 160, "never upscaled")
        #expect(try topLeft(always).b > 200)
        try expectThumbnailItemUpright(always)

        let square = try source.thumbnail(size: ImageSize(width: 100, height: 100), mode: .fill,
                                          options: ThumbnailOptions(embedded: .ifAbsent))
        #expect(square.width == 100 && square.height == 100)
        #expect(try topLeft(square).b > 200)

        let never = try source.thumbnail(maxPixelSize: 160)
        #expect(try topLeft(never).b < 60)
        try expectUprightQuadrants(never)

        // No item: the picture itself, whatever the option.
        let plain = try Fixture.source("orient-6.heic").thumbnail(maxPixelSize: 48, options: ThumbnailOptions(embedded: .always))
        #expect(plain.width == 48 && plain.height == 32)
        try expectUprightQuadrants(plain)
    }

    @Test("an AVIF's thumbnail item serves too, with its own orientation applied")
    func avifItem() throws {
        let source = try Fixture.source("embedded-thumbnail.avif")
        #expect(source.format == .avif)
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 480 && p.pixelHeight == 320 && p.orientation == .up)
        let always = try source.thumbnail(maxPixelSize: 400, options: ThumbnailOptions(embedded: .always))
        #expect(always.width == 120 && always.height == 80)
        #expect(try topLeft(always).b > 200, "magenta: made from the item")
        try expectThumbnailItemUpright(always)
        let never = try source.thumbnail(maxPixelSize: 120)
        #expect(never.width == 120 && never.height == 80)
        try expectUprightQuadrants(never)
    }

    @Test("a HEIF thumbnail item's ICC profile is applied, or kept, as the picture's is")
    func heifItemColour() throws {
        let source = try Fixture.source("adobe-rgb-item.heic")
        func centre(_ image: Image) throws -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
            try image.pixels(.rgba8).rgba(x: image.width / 2, y: image.height / 2)
        }
        for embedded in [ThumbnailOptions.EmbeddedThumbnail.always, .never] {
            let converted = try centre(source.thumbnail(maxPixelSize: 32, options: ThumbnailOptions(embedded: embedded)))
            // Little CMS puts Adobe RGB (60, 180, 90) at sRGB (0, 181, 83).
            #expect(converted.r < 8 && abs(Int(converted.g) - 181) < 5 && abs(Int(converted.b) - 83) < 5, "\(embedded): \(converted)")
            let kept = try centre(source.thumbnail(maxPixelSize: 32, options: ThumbnailOptions(embedded: embedded, colorProfile: .keep)))
            #expect(abs(Int(kept.r) - 60) < 5 && abs(Int(kept.g) - 180) < 5 && abs(Int(kept.b) - 90) < 5, "\(embedded): \(kept)")
        }
    }

    @Test("the source's time limit holds on the thumbnail item's path too")
    func heifItemTimeLimit() throws {
        let url = Fixture.url("embedded-thumbnail.heic")
        let hurried = try ImageSource(url: url, options: DecodingOptions(timeLimit: .nanoseconds(1)))
        do {
            _ = try hurried.thumbnail(maxPixelSize: 160, options: ThumbnailOptions(embedded: .always))
            Issue.record("a 1 ns time limit let the thumbnail through")
        } catch let error as MagickIOError {
            #expect(error.kind == .cancelled && error.limit?.name == "timeLimit", "\(error)")
        }
        let relaxed = try ImageSource(url: url, options: DecodingOptions(timeLimit: .seconds(60)))
        #expect(try relaxed.thumbnail(maxPixelSize: 160, options: ThumbnailOptions(embedded: .always)).width == 160)
    }

    @Test("a HEIC thumbnail item read from a file matches the one read from memory")
    func heifItemFromFile() throws {
        let options = ThumbnailOptions(embedded: .always)
        let fromFile = try Fixture.source("embedded-thumbnail.heic").thumbnail(maxPixelSize: 240, options: options)
        let fromMemory = try ImageSource(data: Fixture.data("embedded-thumbnail.heic")).thumbnail(maxPixelSize: 240, options: options)
        #expect(try fromFile.pixels(.rgba8).bytes == fromMemory.pixels(.rgba8).bytes)
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
