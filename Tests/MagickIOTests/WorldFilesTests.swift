import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// Classes of real-world files the sweep found mishandled, each reproduced by a generated fixture
/// (scripts/world-fixtures.py): alpha, frame placement, BigTIFF, odd TIFF directories, EXIF in PNG
/// text, a phone's HEIC.
@Suite("Real-world files")
struct WorldFilesTests {
    static let tiffAlphaFiles = [
        "tiff-alpha-unassoc-8-contig.tif", "tiff-alpha-unassoc-8-planar.tif", "tiff-alpha-unassoc-16-contig.tif",
        "tiff-alpha-unassoc-16-planar.tif", "tiff-alpha-assoc-8-contig.tif", "tiff-alpha-assoc-16-contig.tif",
    ]

    /// Left half opaque red, right half fully transparent, in properties, thumbnail and pixels.
    func expectHalfTransparent(_ source: ImageSource, _ name: String) throws {
        #expect(try source.properties(at: 0).hasAlpha, "\(name): properties")
        for image in [try source.image(at: 0), try source.thumbnail(maxPixelSize: 32)] {
            let pixels = try image.pixels(.rgba8)
            let left = pixels.rgba(x: pixels.width / 8, y: pixels.height / 2)
            let right = pixels.rgba(x: pixels.width * 7 / 8, y: pixels.height / 2)
            #expect(left.a == 255 && left.r > 240 && left.b < 15, "\(name): left \(left)")
            #expect(right.a == 0, "\(name): right \(right)")
        }
        let png = try ImageSource(data: try source.thumbnail(maxPixelSize: 32).encoded(as: .png))
        #expect(try png.properties(at: 0).hasAlpha, "\(name): alpha kept in the PNG thumbnail")
    }

    @Test("a TIFF's alpha ExtraSample is alpha: 8 and 16 bit, contiguous and planar, associated and not",
          arguments: tiffAlphaFiles)
    func tiffAlpha(name: String) throws {
        try expectHalfTransparent(try Fixture.source(name), name)
    }

    @Test("HEIC and AVIF alpha (an auxiliary image ImageMagick 6 never reads) is kept",
          arguments: ["avif-alpha.avif", "heic-alpha.heic"])
    func heifAlpha(name: String) throws {
        try expectHalfTransparent(try Fixture.source(name), name)
        try expectHalfTransparent(try ImageSource(data: try Fixture.data(name)), name + " (memory)")
    }

    @Test("a GIF frame smaller than its canvas is drawn at its offset on a transparent canvas")
    func gifOffset() throws {
        let source = try Fixture.source("gif-offset-frame.gif")
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 75 && p.pixelHeight == 50 && p.hasAlpha)
        for image in [try source.image(at: 0), try source.thumbnail(maxPixelSize: 75)] {
            #expect(image.width == 75 && image.height == 50)
            let pixels = try image.pixels(.rgba8)
            #expect(pixels.rgba(x: 10, y: 25).a == 0, "left of the frame: transparent")
            let inside = pixels.rgba(x: 50, y: 25)
            #expect(inside.a == 255 && inside.r == 255 && inside.g == 0, "the frame: \(inside)")
        }
    }

    @Test("BigTIFF opens as TIFF and decodes")
    func bigTIFF() throws {
        let source = try Fixture.source("bigtiff.tif")
        #expect(source.format == .tiff)
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 64 && p.pixelHeight == 48)
        let pixels = try source.thumbnail(maxPixelSize: 64).pixels(.rgba8)
        #expect(pixels.rgba(x: 8, y: 24).r == 255 && pixels.rgba(x: 56, y: 24).b == 255)
    }

    @Test("odd TIFF directories a viewer shows decode: an unknown tag, a bogus count, a looping IFD chain",
          arguments: ["tiff-unknown-tag.tif", "tiff-bogus-count.tif", "tiff-ifd-loop.tif"])
    func oddTIFF(name: String) throws {
        let source = try Fixture.source(name)
        let pixels = try source.image(at: 0).pixels(.rgba8)
        #expect(pixels.width == 64 && pixels.rgba(x: 8, y: 24).r == 255 && pixels.rgba(x: 56, y: 24).b == 255)
        if name == "tiff-ifd-loop.tif" {
            #expect(source.count == 2, "two pages, then the chain loops back")
        }
    }

    @Test("a PNG's orientation in ImageMagick's Raw profile text chunk is read, as eXIf is")
    func pngRawProfile() throws {
        for source in [try Fixture.source("png-raw-exif-6.png"), try ImageSource(data: try Fixture.data("png-raw-exif-6.png"))] {
            let p = try source.properties(at: 0)
            #expect(p.orientation == .right)
            #expect(p.orientedWidth == 64 && p.orientedHeight == 48)
            let pixels = try source.thumbnail(maxPixelSize: 64).pixels(.rgba8)
            #expect(pixels.width == 64 && pixels.height == 48)
            #expect(pixels.rgba(x: 32, y: 8).r == 255, "red on top")
            #expect(pixels.rgba(x: 32, y: 40).b == 255, "blue at the bottom")
        }
    }

    @Test("a JPEG with a thousand segments and fill bytes before its frame header opens and decodes")
    func paddedJPEG() throws {
        let source = try Fixture.source("jpeg-padding-before-sof.jpg")
        #expect(source.header?.width == 64, "the header walk reached the frame header")
        #expect(try source.image(at: 0).width == 64)
    }

    @Test("a phone HEIC (12 MP, irot and an EXIF orientation) is turned exactly once")
    func phoneHEIC() throws {
        let source = try Fixture.source("phone-12mp.heic")
        let p = try source.properties(at: 0)
        #expect(p.orientation == .up, "libheif applies irot; the EXIF tag only restates it")
        #expect(p.pixelWidth == 4032 && p.pixelHeight == 3024)
        try expectUprightQuadrants(try source.thumbnail(maxPixelSize: 256))
        // The 320x240 item (magenta where the picture is red), upright too.
        let item = try source.thumbnail(maxPixelSize: 320, options: ThumbnailOptions(embedded: .always))
        #expect(item.width == 320 && item.height == 240)
        let topLeft = try item.pixels(.rgba8).rgba(x: 80, y: 60)
        #expect(topLeft.r > 200 && topLeft.b > 200 && topLeft.g < 60, "magenta top-left: \(topLeft)")
    }

    @Test("a 24 MP phone HEIC thumbnails upright under the default budget, its rows from libheif; decoded whole it is over")
    func phoneHEIC24() throws {
        let source = try Fixture.source("phone-24mp.heic")
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 5712 && p.pixelHeight == 4284 && p.orientation == .up)
        let thumbnail = try source.thumbnail(maxPixelSize: 256)
        #expect(thumbnail.decoder == .libheif)
        #expect(thumbnail.width == 256 && thumbnail.height == 192)
        try expectUprightQuadrants(thumbnail)
        // Whole, into ImageMagick's pixel cache (8 bytes a pixel more): over the 256 MiB budget.
        var wholeDecode = ThumbnailOptions()
        wholeDecode.ownDecoders = false
        do {
            _ = try source.thumbnail(maxPixelSize: 256, options: wholeDecode)
            Issue.record("a 24 MP HEIC decoded whole under the default budget")
        } catch let error as MagickIOError {
            #expect(error.kind == .limitExceeded && error.limit?.name == "memoryBudget", "\(error)")
        }
    }

    @Test("a phone HEIC decoded whole keeps its Exif, the orientation tag restating the upright pixels")
    func phoneHEICExif() throws {
        // The fixture's Exif block (its TIFF header at offset 0, where phones put it at 6) says 6.
        let source = try Fixture.source("phone-12mp.heic")
        let jpeg = try source.image(at: 0).encoded(as: .jpeg(quality: 80))
        let again = try ImageSource(data: jpeg)
        let p = try again.properties(at: 0)
        #expect(p.pixelWidth == 4032 && p.pixelHeight == 3024)
        #expect(p.orientation == .up, "a viewer must not turn the upright pixels again")
        #expect(p.exif["Orientation"] == "1", "the Exif block came along, its tag reset: \(p.exif)")
        try expectUprightQuadrants(try again.thumbnail(maxPixelSize: 256))
    }

    @Test("HEIC and AVIF through libheif give the pixels of ImageMagick's HEIC coder, their fallback",
          arguments: (1...8).map { "orient-\($0).heic" } + ["adobe-rgb-item.heic", "embedded-thumbnail.heic", "embedded-thumbnail.avif",
                                                             "heic-grid.heic"])
    func heifPathsAgree(name: String) throws {
        let data = try Fixture.data(name)
        let own = try ImageSource(data: data).image(at: 0)
        let coder = Wand()
        _ = try coder.read(.memory(data), format: name.hasSuffix(".avif") ? .avif : .heic, ping: false)
        let magick = Image(wand: coder, orientation: .up)
        #expect(own.width == magick.width && own.height == magick.height, "\(own.width)x\(own.height) vs \(magick.width)x\(magick.height)")
        #expect(!own.properties.hasAlpha)
        #expect(own.properties.colorSpace == "srgb", "libheif's RGB (the coder's is YCbCr, or sRGB with a profile)")
        let a = try own.pixels(.rgba8), b = try magick.pixels(.rgba8)
        guard a.bytes.count == b.bytes.count else { return }
        let sum = zip(a.bytes, b.bytes).reduce(0.0) { total, pair in
            let d = (Double(pair.0) - Double(pair.1)) / 255
            return total + d * d
        }
        let rmse = (sum / Double(a.bytes.count)).squareRoot()
        #expect(rmse < 0.01, "RMSE \(rmse)")
    }

    @Test("a HEIC whose primary image is a grid (as phones store photos) decodes and thumbnails like its tile")
    func heifGrid() throws {
        let source = try Fixture.source("heic-grid.heic")
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 96 && p.pixelHeight == 64 && p.orientation == .up)
        let image = try source.image(at: 0)
        #expect(image.width == 96 && image.height == 64)
        try expectUprightQuadrants(image, "decoded whole")
        let thumbnail = try source.thumbnail(maxPixelSize: 48)
        #expect(thumbnail.decoder == .libheif && thumbnail.width == 48 && thumbnail.height == 32)
        try expectUprightQuadrants(thumbnail, "thumbnail")
    }

    @Test("a 2x2 grid HEIC puts each tile in its place, through libheif's rows and whole")
    func heifGridTiles() throws {
        let tile = try Fixture.source("orient-1.heic").image(at: 0).pixels(.rgba8)
        let source = try Fixture.source("heic-grid-2x2.heic")
        #expect(source.header?.codedPixels == nil, "no picture larger than declared")
        let whole = try source.image(at: 0)
        let streamed = try source.thumbnail(maxPixelSize: 192)
        #expect(streamed.decoder == .libheif)
        for (what, image) in [("whole", whole), ("streamed", streamed)] {
            #expect(image.width == 192 && image.height == 128, "\(what): \(image.width)x\(image.height)")
            let pixels = try image.pixels(.rgba8)
            for (column, row) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                for (x, y) in [(20, 12), (76, 12), (20, 52), (76, 52), (48, 32)] {
                    let want = tile.rgba(x: x, y: y), got = pixels.rgba(x: column * 96 + x, y: row * 64 + y)
                    #expect(abs(Int(want.r) - Int(got.r)) < 24 && abs(Int(want.g) - Int(got.g)) < 24 && abs(Int(want.b) - Int(got.b)) < 24,
                            "\(what): tile (\(column), \(row)) at (\(x), \(y)): \(got), the tile has \(want)")
                }
            }
        }
    }

    @Test("a HEIF image or alpha item with no coded data (dav1d leaks on it) is refused at open, with why",
          arguments: [("avif-no-coded-data.avif", "the HEIF item 1 (av01) has no coded data"),
                      ("avif-alpha-no-coded-data.avif", "the HEIF item 2 (av01) has no coded data")])
    func undecodableHEIFItems(name: String, reason: String) throws {
        let data = try Fixture.data(name)
        for (how, open) in [("memory", { try ImageSource(data: data) }), ("file", { try Fixture.source(name) })] {
            do {
                _ = try open()
                Issue.record("\(name) (\(how)) opened")
            } catch let error as MagickIOError {
                #expect(error.kind == .corruptImage && error.message.contains(reason), "\(name) (\(how)): \(error)")
            }
        }
    }

    @Test("a HEIF picture larger than its declared 96x64 (a bitstream coding 4096x4096, a 20000x20000 grid canvas) is what the guard counts",
          arguments: [("heic-coded-past-ispe.heic", 4096 * 4096), ("avif-coded-past-ispe.avif", 4096 * 4096),
                      ("heic-grid-canvas-past-ispe.heic", 20000 * 20000)])
    func heifPictureLargerThanDeclared(name: String, pixels: Int) throws {
        let source = try Fixture.source(name)
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 96 && p.pixelHeight == 64, "the declared size is what the file says")
        #expect(source.header?.codedPixels == pixels)
        // A pixel limit the declared size passes by far, and a budget its decode would fit.
        let limited = try ImageSource(url: Fixture.url(name), options: DecodingOptions(maxPixelCount: 1_000_000))
        for (what, options) in [("own path", ThumbnailOptions()), ("ImageMagick's path", { var o = ThumbnailOptions(); o.ownDecoders = false; return o }())] {
            do {
                _ = try limited.thumbnail(maxPixelSize: 64, options: options)
                Issue.record("\(name) (\(what)): thumbnailed under a 1 MP limit")
            } catch let error as MagickIOError {
                #expect(error.kind == .limitExceeded && error.limit?.name == "maxPixelCount" && error.limit?.requested == pixels,
                        "\(name) (\(what)): \(error)")
            }
        }
        let whole = #expect(throws: MagickIOError.self, "\(name): decoded whole under the limit") { _ = try limited.image(at: 0) }
        #expect(whole?.kind == .limitExceeded && whole?.limit?.name == "maxPixelCount", "\(name): \(String(describing: whole))")
        // The estimate is the coded picture's: over a 64 MiB budget (96x64 would take a few KB),
        // with no pixel limit to refuse it first.
        let budgeted = try ImageSource(url: Fixture.url(name), options: DecodingOptions(maxPixelCount: .max, memoryBudget: 64 << 20))
        do {
            _ = try budgeted.thumbnail(maxPixelSize: 64)
            Issue.record("\(name): thumbnailed under a 64 MiB budget")
        } catch let error as MagickIOError {
            #expect(error.kind == .limitExceeded && error.limit?.name == "memoryBudget", "\(name): \(error)")
        }
    }

    @Test("a HEIF bitstream coding 4096x4096 under a declared 96x64 is thumbnailed on the own path from libheif's picture, planned at that size, in bounded memory",
          arguments: ["heic-coded-past-ispe.heic", "avif-coded-past-ispe.avif"])
    func heifCodedPastDeclaredThumbnailed(name: String) throws {
        let source = try Fixture.source(name)
        let plan = try source.thumbnailSizes(.maxPixelSize(64), at: 0, allowUpscale: false)
        let stream = try #require(source.streamPlan(plan, at: 0, options: ThumbnailOptions()))
        #expect(stream.codedPixels == 4096 * 4096)
        // The coded picture's: as planar RGB for the 8-bit HEVC one (4.75 bytes a pixel), whole
        // and interleaved for the AV1 one (8).
        #expect(stream.estimate.bytes >= 4096 * 4096 * (name.hasSuffix(".heic") ? 4 : 8), "the estimate is the coded picture's")
        if LibHeif.takesLimitsAndStops {
            // libheif 1.19 and later refuse themselves a picture coded larger than its item says
            // (a limit they derive from `ispe`), whatever MagickIO's limits allow.
            let error = #expect(throws: MagickIOError.self) { try source.thumbnail(maxPixelSize: 64) }
            #expect(error?.kind == .limitExceeded && error?.message.contains("(libheif)") == true, "\(String(describing: error))")
            return
        }
        let thumbnail = try source.thumbnail(maxPixelSize: 64)
        #expect(thumbnail.width == 64 && thumbnail.height == 43)
        #expect(thumbnail.decoder == .libheif, "decoded once, by the own path")
        let run = try MemoryTests.thumbnail(Fixture.url(name))
        #expect(run.status == 0, "\(run.json)")
        #expect(run.peakRSS <= 300 << 20 || runningUnderSanitizer, "peak RSS \(run.peakRSS >> 20) MiB")
    }

    @Test("a HEIF thumbnail item with no coded data is passed over: the picture itself gives the thumbnail")
    func emptyHEIFThumbnailItem() throws {
        let always = ThumbnailOptions(embedded: .always)
        // The same file with its item intact: the 120x80 item, magenta where the picture is red.
        let intact = try Fixture.source("embedded-thumbnail.avif").thumbnail(maxPixelSize: 120, options: always)
        let magenta = try intact.pixels(.rgba8).rgba(x: 30, y: 20)
        #expect(magenta.r > 200 && magenta.b > 200, "the item: \(magenta)")
        let source = try Fixture.source("avif-thumbnail-no-coded-data.avif")
        let thumbnail = try source.thumbnail(maxPixelSize: 120, options: always)
        #expect(thumbnail.width == 120 && thumbnail.height == 80)
        try expectUprightQuadrants(thumbnail, "from the picture (red, not the item's magenta)")
    }

    @Test("a greyscale JPEG with a broken ICC profile shows its grey, as viewers ignore the profile")
    func brokenProfile() throws {
        let thumb = try Fixture.source("jpeg-gray-broken-icc.jpg").thumbnail(maxPixelSize: 64)
        #expect(thumb.width == 64 && thumb.height == 48)
        let pixels = try thumb.pixels(.rgba8)
        let top = pixels.rgba(x: 32, y: 2), bottom = pixels.rgba(x: 32, y: 45)
        #expect(top.r > 220 && top.r == top.g && top.g == top.b, "white at the top: \(top)")
        #expect(bottom.r < 35, "black at the bottom: \(bottom)")
    }
}
