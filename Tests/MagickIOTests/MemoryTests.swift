import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// Big inputs, generated at test time (never committed), and the peak RSS of the built
/// `thumbnail` executable working on them in a child process.
@Suite("Bounded memory", .serialized)
struct MemoryTests {
    static let folder = LargeImages.cacheFolder

    /// Generates `name` once (the generators are deterministic, so the file is kept for later runs).
    static func input(_ name: String, _ make: (URL) throws -> Void) throws -> URL {
        try LargeImages.cached(name, make)
    }

    struct ThumbnailRun {
        var status: Int32
        var json: [String: Any]
        var peakRSS: Int
        var temporaryFiles: [String]
    }

    /// Runs the built `thumbnail` on one input with its own, empty temporary folder.
    static func thumbnail(_ input: URL, maxPixelSize: Int = 256) throws -> ThumbnailRun {
        let work = folder.appendingPathComponent("run-\(UUID())")
        let temporary = work.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.path
        environment["MAGICK_TEMPORARY_PATH"] = temporary.path
        let run = try runChild(
            try builtProduct("thumbnail"),
            [input.path, "--max-pixel-size", "\(maxPixelSize)", "--output", work.appendingPathComponent("out").path, "--jobs", "1", "--json",
             "--time-limit", "0"],
            environment: environment, timeout: .seconds(120))
        let line = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "{}"
        let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        return ThumbnailRun(status: run.status, json: json, peakRSS: run.peakRSSBytes, temporaryFiles: leftovers)
    }

    @Test("a 100 MP baseline JPEG thumbnails in at most 32 MiB, writing no temporary file", .timeLimit(.minutes(10)))
    func hundredMegapixelJPEG() throws {
        // libjpeg-turbo's rows at 1/8 scale stream into the resampler: only rows are held.
        let input = try Self.input("100mp.jpg") {
            try LargeImages.writeJPEG(to: $0, width: 10_000, height: 10_000, quality: 90, progressive: false)
        }
        let run = try Self.thumbnail(input)
        #expect(run.status == 0, "\(run.json)")
        #expect(run.json["width"] as? Int == 256 && run.json["height"] as? Int == 256)
        // The tool's own baseline (ImageMagick's libraries and start-up, the Swift runtime, the
        // worker threads) is most of it: a 320x240 photo costs the same tool about 32 MiB.
        let baseline = try Self.thumbnail(Fixture.url("photo.jpg"))
        #expect(run.peakRSS <= baseline.peakRSS + (4 << 20) || runningUnderSanitizer,
                "peak RSS \(run.peakRSS >> 10) KiB, \(baseline.peakRSS >> 10) KiB for a 320x240 photo")
        #expect(run.peakRSS <= 40 << 20 || runningUnderSanitizer, "peak RSS \(run.peakRSS >> 20) MiB")
        #expect(run.temporaryFiles.isEmpty, "\(run.temporaryFiles)")
    }

    @Test("a 24 MP and a 48 MP single-image phone HEIC thumbnail within the default budget above the tool's baseline",
          .timeLimit(.minutes(10)), .enabled(if: !runningUnderSanitizer, "a sanitizer's allocator changes the peak"),
          arguments: ["phone-24mp.heic", "phone-48mp.heic"])
    func phoneHEIC(_ name: String) throws {
        // libheif holds the picture as planar RGB, without its interleaved copy (the codec's
        // frame and its copy, the RGB planes, the turned copy of them: about 6 bytes a pixel for
        // the 24 MP 4:4:4 image turned by irot, 4.6 for the 48 MP 4:2:0 one); ImageMagick's pixel
        // cache never takes it whole, which would add 8 bytes a pixel, and the guard refuses on
        // that path.
        let run = try Self.thumbnail(Fixture.url(name))
        #expect(run.status == 0, "\(run.json)")
        #expect(run.json["width"] as? Int == 256 && run.json["height"] as? Int == 192)
        let baseline = try Self.thumbnail(Fixture.url("photo.jpg"))
        #expect(run.peakRSS <= baseline.peakRSS + DecodingOptions().memoryBudget,
                "peak RSS \(run.peakRSS >> 20) MiB, \(baseline.peakRSS >> 20) MiB for a 320x240 photo")
        #expect(run.temporaryFiles.isEmpty, "\(run.temporaryFiles)")
    }

    @Test("a 48 MP phone HEIC grid thumbnails at default settings within 128 MiB, a row of tiles at a time", .timeLimit(.minutes(10)),
          .enabled(if: !runningUnderSanitizer, "a sanitizer's allocator changes the peak"))
    func phoneHEICGrid48() throws {
        // libheif decodes one row of 512x512 tiles at a time (16 of them: 12 MiB of RGB); the whole
        // picture libheif would assemble (about 400 MiB) is never made.
        let run = try Self.thumbnail(Fixture.url("phone-48mp-grid.heic"))
        #expect(run.status == 0, "\(run.json)")
        #expect(run.json["width"] as? Int == 192 && run.json["height"] as? Int == 256)
        #expect(run.peakRSS <= 128 << 20, "peak RSS \(run.peakRSS >> 20) MiB")
        #expect(run.temporaryFiles.isEmpty, "\(run.temporaryFiles)")
    }

    @Test("a 10000x10000 RGBA PNG thumbnails under the default budget in at most 64 MiB", .timeLimit(.minutes(10)),
          .enabled(if: !runningUnderSanitizer, "400 million samples through instrumented code take minutes; the RSS is not measured there"))
    func hugeRGBAPNG() throws {
        // ImageMagick's PNG coder would hold the whole image (about 800 MB in its pixel cache, over
        // the budget); libpng's rows stream into the resampler instead.
        let input = try Self.input("100mp-rgba.png") {
            try LargeImages.writePNG(to: $0, width: 10_000, height: 10_000, alpha: true, content: .gradient)
        }
        #expect(try ImageSource(url: input).thumbnail(maxPixelSize: 64).decoderName == "libpng")
        let run = try Self.thumbnail(input)
        #expect(run.status == 0, "\(run.json)")
        #expect(run.json["width"] as? Int == 256 && run.json["height"] as? Int == 256, "\(run.json)")
        #expect(run.peakRSS <= 64 << 20 || runningUnderSanitizer, "peak RSS \(run.peakRSS >> 20) MiB")
        #expect(run.temporaryFiles.isEmpty)
    }

    @Test("the same PNG through ImageMagick's path is refused by the default budget, before decoding")
    func hugeRGBAPNGOnImageMagicksPath() throws {
        let input = try Self.input("100mp-rgba.png") {
            try LargeImages.writePNG(to: $0, width: 10_000, height: 10_000, alpha: true, content: .gradient)
        }
        var options = ThumbnailOptions()
        options.ownDecoders = false
        #expect {
            try ImageSource(url: input).thumbnail(maxPixelSize: 64, options: options)
        } throws: { error in
            (error as? MagickIOError)?.kind == .limitExceeded
        }
    }

    @Test("a 20000x20000 near-empty PNG is refused before decoding, in little memory", .timeLimit(.minutes(10)))
    func pixelBombPNG() throws {
        let input = try Self.input("bomb.png") {
            try LargeImages.writePNG(to: $0, width: 20_000, height: 20_000, alpha: false, content: .empty)
        }
        let fileSize = try #require(FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int)
        #expect(fileSize < 2 << 20)
        let source = try ImageSource(url: input)
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 20_000 && p.pixelHeight == 20_000)
        do {
            _ = try source.thumbnail(maxPixelSize: 256)
            Issue.record("the bomb decoded")
        } catch let error as MagickIOError {
            #expect(error.kind == .limitExceeded)
            #expect(error.limit == MagickIOError.Limit(name: "maxPixelCount", requested: 400_000_000, limit: 268_402_689))
        }
        let run = try Self.thumbnail(input)
        #expect(run.status == 1)
        #expect((run.json["error"] as? [String: Any])?["kind"] as? String == "limitExceeded")
        // The executable's shared libraries alone (Swift runtime, Foundation, MagickCore and its
        // dependencies) are about 30 MiB of resident code pages, whatever the input: `thumbnail
        // --help` peaks at 27 MiB. What the refusal itself costs is measured against the same
        // executable thumbnailing a 96x64 JPEG.
        let baseline = try Self.thumbnail(Fixture.url("orient-1.jpg"))
        #expect(baseline.status == 0)
        #expect(run.peakRSS <= baseline.peakRSS + (2 << 20) || runningUnderSanitizer,
                "peak RSS \(run.peakRSS >> 10) KiB refusing the bomb, \(baseline.peakRSS >> 10) KiB for a 96x64 JPEG")
        #expect(run.peakRSS < 40 << 20 || runningUnderSanitizer, "peak RSS \(run.peakRSS >> 20) MiB")
    }

    @Test("a 100 MP progressive JPEG's cost is predicted: refused by default, thumbnailed when the budget allows", .timeLimit(.minutes(10)))
    func progressiveJPEG() throws {
        let input = try Self.input("100mp-progressive.jpg") {
            try LargeImages.writeJPEG(to: $0, width: 10_000, height: 10_000, quality: 85, progressive: true)
        }
        let source = try ImageSource(url: input)
        #expect(try #require(source.header).isProgressive)
        do {
            _ = try source.thumbnail(maxPixelSize: 256)
            Issue.record("a 300 MB coefficient buffer went through a 256 MiB budget")
        } catch let error as MagickIOError {
            #expect(error.kind == .limitExceeded)
            #expect(error.limit?.name == "memoryBudget")
            #expect((error.limit?.requested ?? 0) >= 300_000_000, "4:2:0 coefficients: 1.5 samples a pixel, 2 bytes each")
        }
        let generous = try ImageSource(url: input, options: DecodingOptions(memoryBudget: 1 << 30))
        let thumb = try generous.thumbnail(maxPixelSize: 256)
        #expect(thumb.width == 256 && thumb.height == 256)
    }

    @Test("a JPEG over ImageMagick's width limit still opens and thumbnails through shrink-on-load", .timeLimit(.minutes(10)))
    func panoramaOverWidthLimit() throws {
        let input = try Self.input("panorama.jpg") {
            try LargeImages.writeJPEG(to: $0, width: 18_144, height: 998, quality: 85, progressive: false)
        }
        let source = try ImageSource(url: input)
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 18_144 && p.pixelHeight == 998)
        let thumb = try source.thumbnail(maxPixelSize: 256)
        #expect(thumb.width == 256 && thumb.height == 14)
        let error = #expect(throws: MagickIOError.self) { _ = try source.image(at: 0) }
        #expect(error?.kind == .limitExceeded, "\(String(describing: error))")
    }
}
