import Foundation
import Testing
@testable import MagickIO

@Suite("Limits")
struct LimitsTests {
    @Test("the Swift header parse agrees with the frame walkers' properties", arguments: [
        "photo.jpg", "orient-6.jpg", "cmyk.jpg", "quadrants.png", "alpha.png", "animated.gif", "quadrants.webp",
    ])
    func headerMatchesProperties(name: String) throws {
        let source = try Fixture.source(name)
        let header = try #require(source.header)
        let properties = try source.properties(at: 0)
        #expect(header.width == properties.pixelWidth)
        #expect(header.height == properties.pixelHeight)
        #expect(header.hasAlpha == properties.hasAlpha)
        if source.format == .jpeg {
            #expect((header.orientation ?? .up) == properties.orientation)
            #expect(!header.isProgressive)
        }
    }

    @Test("HEIC, AVIF and lossless/alpha WebP headers are parsed", arguments: [
        EncodingFormat.heic(quality: 50), .avif(quality: 50), .webp(quality: 100), .png,
    ])
    func encodedHeaders(format: EncodingFormat) throws {
        guard format.isAvailable else { return }
        let data = try Fixture.source("alpha.png").image(at: 0).encoded(as: format)
        let source = try ImageSource(data: data)
        let header = try #require(source.header)
        // The size shown: libheif 1.23's encoder (Debian 13) codes 64x64 under a `clap` to 40x30,
        // where 1.15's coded 40x30 (the size stored, `width` and `height`, is the codec's).
        #expect((header.shown?.width ?? header.width) == 40 && (header.shown?.height ?? header.height) == 30, "\(header)")
    }

    @Test("a progressive JPEG is recognised and its coefficient buffer counted")
    func progressive() throws {
        let image = try Fixture.source("photo.jpg").image(at: 0)
        let baseline = try ImageSource(data: image.encoded(as: .jpeg(quality: 80)))
        let progressive = try ImageSource(data: Fixture.data("progressive.jpg"))
        #expect(try #require(progressive.header).isProgressive)
        // ImageMagick writes 4:2:0 chroma: 1.5 coded samples a pixel, 2 bytes each.
        #expect(try #require(progressive.header).samplesPerPixel == 1.5)
        // The coefficient buffer on top of the same pixel cache (and the model's 1/16 margin).
        let extra = progressive.estimate(frame: 0).bytes - baseline.estimate(frame: 0).bytes
        #expect(extra == 320 * 240 * 3 + 320 * 240 * 3 / 16 || extra == 320 * 240 * 3 + 320 * 240 * 3 / 16 + 1, "\(extra)")
        #expect(progressive.estimate(frame: 0).cacheBytes == baseline.estimate(frame: 0).cacheBytes)
    }

    @Test("maxPixelCount refuses before decoding, with the numbers; the header still opens")
    func maxPixelCount() throws {
        let source = try ImageSource(url: Fixture.url("photo.jpg"), options: DecodingOptions(maxPixelCount: 320 * 240 - 1))
        #expect(try source.properties(at: 0).pixelWidth == 320)
        do {
            _ = try source.thumbnail(maxPixelSize: 32)
            Issue.record("decoded past maxPixelCount")
        } catch let error as MagickIOError {
            #expect(error.kind == .limitExceeded)
            #expect(error.limit == MagickIOError.Limit(name: "maxPixelCount", requested: 76_800, limit: 76_799))
        }
    }

    @Test("the memory budget counts shrink-on-load: a thumbnail fits where a full decode does not")
    func memoryBudget() throws {
        // Full decode: 320 x 240 x 8 bytes = 614,400 of pixel cache, about 1.4 MB with the model's
        // margins; at 1/4 scale: 80 x 60 x 8 = 38,400, about 0.83 MB.
        let source = try ImageSource(url: Fixture.url("photo.jpg"), options: DecodingOptions(memoryBudget: 1_000_000))
        let full = DecodeEstimate(format: .jpeg, header: source.header, width: 320, height: 240, jpegHint: nil)
        #expect(full.cacheBytes == 614_400)
        do {
            _ = try source.image(at: 0)
            Issue.record("decoded past the memory budget")
        } catch let error as MagickIOError {
            #expect(error.kind == .limitExceeded)
            #expect(error.limit?.name == "memoryBudget")
            #expect(error.limit?.requested == full.bytes)
            #expect(error.limit?.limit == 1_000_000)
        }
        let thumb = try source.thumbnail(maxPixelSize: 32)
        #expect(thumb.width == 32 && thumb.height == 24)
    }

    @Test("the process limits read back what is in force, within the system policy")
    func processLimits() throws {
        let current = ResourceLimits.current
        #expect(current.threads == 1)
        #expect(current.map == 0)
        #expect(current.disk == 0)
        #expect(current.memory <= 256 << 20)
        #expect(current.width <= 16_384 && current.height <= 16_384)
        var asked = current
        asked.memory = 1 << 40
        let effective = ResourceLimits.apply(asked)
        #expect(effective.memory <= 1 << 40)
        #expect(effective.width == current.width)
        ResourceLimits.apply(current)
        #expect(ResourceLimits.current == current)
    }
}

@Suite("Paths")
struct PathTests {
    @Test("file names are data, never ImageMagick syntax", arguments: [
        "a[1].jpg", "png:b.jpg", "@list.jpg", "-flag.jpg", "100%d.jpg", "spa ce;$(x).jpg", "vid:c.jpg",
    ])
    func literalNames(name: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magickio-paths-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        try Fixture.data("orient-6.jpg").write(to: url)
        let source = try ImageSource(url: url)
        #expect(source.format == .jpeg)
        try expectUprightQuadrants(try source.thumbnail(maxPixelSize: 48))
    }

    @Test("a source keeps reading the file it opened when the path is replaced")
    func replacedPath() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("magickio-\(UUID()).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        try Fixture.data("orient-6.jpg").write(to: url)
        let source = try ImageSource(url: url)
        try Fixture.data("photo.jpg").write(to: url, options: .atomic)
        let thumb = try source.thumbnail(maxPixelSize: 48)
        #expect(thumb.width == 48 && thumb.height == 32)
        try expectUprightQuadrants(thumb)
    }
}
