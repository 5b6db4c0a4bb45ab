import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// MagickIO's own WebP path (libwebp's incremental decoder, scaled as it decodes, its rows
/// streamed into the resampler) held to ImageMagick's path on the same files: the same size,
/// orientation, colours and alpha, the same refusals; animations handed to ImageMagick; and a
/// 24 MP WebP thumbnailed at default settings in a bounded peak.
@Suite("Own WebP decoder")
struct OwnWebPDecoderTests {
    /// Lossy (VP8), lossless (VP8L), lossy with an ALPH chunk, lossless with alpha, odd sides, an
    /// ICCP profile (scripts/webp-fixtures.sh), and every EXIF orientation (lossless,
    /// make-fixtures.sh).
    static let taken = ["webp-lossy.webp", "webp-lossless.webp", "webp-lossy-alpha.webp", "webp-lossless-alpha.webp",
                        "webp-odd.webp", "webp-icc.webp", "quadrants.webp"] + (1...8).map { "orient-\($0).webp" }

    @Test("a WebP thumbnail through libwebp matches ImageMagick's path", arguments: taken)
    func matchesImageMagick(name: String) throws {
        try OwnPathParity.expectMatches(name, through: .libwebp)
    }

    @Test("the ICCP profile is converted to sRGB on the own path, or kept on request")
    func colourProfile() throws {
        let source = try Fixture.source("webp-icc.webp")
        let converted = try source.thumbnail(maxPixelSize: 16)
        #expect(converted.decoder == .libwebp)
        // (60, 180, 90) in Adobe RGB is about (0, 181, 83) in sRGB (Little CMS, perceptual).
        let pixel = try converted.pixels(.rgba8).rgba(x: 8, y: 8)
        #expect(pixel.r <= 14 && abs(Int(pixel.g) - 181) <= 6 && abs(Int(pixel.b) - 83) <= 6, "\(pixel)")
        let kept = try source.thumbnail(maxPixelSize: 16, options: ThumbnailOptions(colorProfile: .keep))
        #expect(kept.decoder == .libwebp)
        let raw = try kept.pixels(.rgba8).rgba(x: 8, y: 8)
        #expect(abs(Int(raw.r) - 60) <= 5 && abs(Int(raw.g) - 180) <= 5 && abs(Int(raw.b) - 90) <= 5, "\(raw)")
    }

    @Test("alpha survives the rescaler: transparent stays transparent, opaque stays opaque")
    func alpha() throws {
        for name in ["webp-lossless-alpha.webp", "webp-lossy-alpha.webp"] {
            let source = try Fixture.source(name)
            let own = try source.thumbnail(maxPixelSize: 20)
            #expect(own.decoder == .libwebp && own.properties.hasAlpha, "\(name)")
            let magick = try source.thumbnail(maxPixelSize: 20, options: .imageMagickOnly)
            let a = try own.pixels(.rgba8), b = try magick.pixels(.rgba8)
            var largest = 0
            for i in stride(from: 3, to: a.bytes.count, by: 4) { largest = max(largest, abs(Int(a.bytes[i]) - Int(b.bytes[i]))) }
            #expect(largest <= 24, "\(name): alpha differs by up to \(largest)")
        }
    }

    @Test("an animation's frame is composited on its canvas by libwebp's WebPAnimDecoder, as ImageMagick's path composites it")
    func animation() throws {
        let source = try Fixture.source("patches.webp")
        #expect(source.count > 1)
        let own = try source.thumbnail(maxPixelSize: 12)
        #expect(own.decoder == .libwebp)
        try OwnPathParity.expectSame(own, try source.thumbnail(maxPixelSize: 12, options: .imageMagickOnly), "patches.webp")
    }

    /// libwebp stops at the end of the data; the own path hands the file over and ImageMagick's
    /// coder refuses it: it throws for a short bitstream (`insufficient image data`) rather than
    /// warning, so even `.acceptPartial` gets no picture, on either path.
    @Test("a WebP cut short is refused under either strictness, in ImageMagick's words on both paths",
          arguments: [Strictness.refuseDamage, .acceptPartial])
    func truncated(strictness: Strictness) throws {
        let source = try ImageSource(url: Fixture.url("webp-truncated.webp"), options: DecodingOptions(strictness: strictness))
        #expect(source.frames[0].pixelWidth == 320 && source.frames[0].pixelHeight == 240)
        let own = Result { () throws(MagickIOError) -> Image in
            try source.thumbnail(.maxPixelSize(40), at: 0, allowUpscale: false, options: ThumbnailOptions(), interrupt: nil)
        }
        let magick = Result { () throws(MagickIOError) -> Image in
            try source.thumbnail(.maxPixelSize(40), at: 0, allowUpscale: false, options: .imageMagickOnly, interrupt: nil)
        }
        guard case .failure(let ownError) = own, case .failure(let magickError) = magick else {
            Issue.record("own path \(own), ImageMagick's \(magick)")
            return
        }
        #expect(ownError.kind == .corruptImage && magickError.kind == .corruptImage)
        #expect(ownError.message == magickError.message)
        #expect(ownError.message.contains("insufficient image data"), "\(ownError.message)")
    }

    @Test("libwebp decodes shrunk by the largest whole factor that keeps twice the thumbnail on each axis")
    func scaleRule() {
        #expect(WebPScale.scaledSize(width: 11158, height: 2156, target: (256, 49)) == (532, 103))  // 1/21
        #expect(WebPScale.scaledSize(width: 4000, height: 3000, target: (256, 192)) == (572, 429))   // 1/7
        #expect(WebPScale.scaledSize(width: 4000, height: 3000, target: (1024, 768)) == (4000, 3000))
        #expect(WebPScale.scaledSize(width: 6000, height: 4000, target: (1024, 683)) == (3000, 2000))
        #expect(WebPScale.scaledSize(width: 300, height: 200, target: (256, 171)) == (300, 200))
        #expect(WebPScale.scaledSize(width: 161, height: 97, target: (53, 32)) == (161, 97))
        #expect(WebPScale.scaledSize(width: 161, height: 97, target: (16, 10)) == (41, 25))          // 1/4
        #expect(WebPScale.scaledSize(width: 1001, height: 10, target: (100, 1)) == (201, 2))         // 1/5
        for (width, height, target) in [(11158, 2156, (256, 49)), (4000, 3000, (250, 188)), (997, 13, (64, 1))] {
            let scaled = WebPScale.scaledSize(width: width, height: height, target: target)
            #expect(scaled.width >= 2 * target.0 && scaled.height >= 2 * target.1, "\(width)x\(height) -> \(target)")
            #expect(scaled.width <= width && scaled.height <= height)
        }
    }

    @Test("the rows from a file descriptor are the rows from memory, at the scaled size")
    func rowsFromDescriptorAndMemory() throws {
        let data = try Fixture.data("webp-lossy-alpha.webp")
        let url = Fixture.url("webp-lossy-alpha.webp")
        let descriptor = open(url.path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try data.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let memory = try WebPRows(input: base, descriptor: -1, size: raw.count, stored: (160, 120), scaled: (61, 46))
            let file = try WebPRows(input: nil, descriptor: descriptor, size: raw.count, stored: (160, 120), scaled: (61, 46))
            #expect(memory.width == 61 && memory.height == 46 && memory.channels == 4)
            var a = [Float](repeating: 0, count: 61 * 4), b = a
            for _ in 0..<46 {
                try memory.readRow(into: &a)
                try file.readRow(into: &b)
                #expect(a == b)
            }
            try memory.finish()
            try file.finish()
            #expect(throws: RowSourceFailure.self) {
                try WebPRows(input: base, descriptor: -1, size: raw.count, stored: (161, 120), scaled: (61, 46))
            }
        }
    }

    @Test("libwebp's second thread (an idle core) gives the same rows, scaled or not")
    func threadedRows() throws {
        // libwebp threads a lossy picture 512 px wide or more: a photo-like one, made here.
        let jpeg = try LargeImages.cached("photo-1200x800.jpg") { try LargeImages.writeJPEG(to: $0, width: 1200, height: 800) }
        let webp = try ImageSource(url: jpeg).image(at: 0).encoded(as: .webp(quality: 80), metadata: .stripAll)
        try webp.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for scaled in [(1200, 800), (300, 200)] {
                let plain = try WebPRows(input: base, descriptor: -1, size: raw.count, stored: (1200, 800), scaled: scaled)
                let threaded = try WebPRows(input: base, descriptor: -1, size: raw.count, stored: (1200, 800), scaled: scaled,
                                            threads: true)
                #expect(plain.width == scaled.0 && plain.height == scaled.1 && plain.channels == 3)
                var a = [UInt8](repeating: 0, count: scaled.0 * 3), b = [UInt8](repeating: 1, count: scaled.0 * 3)
                var same = true
                for _ in 0..<scaled.1 {
                    try plain.readRawRow(into: &a)
                    try threaded.readRawRow(into: &b)
                    same = same && a == b
                }
                #expect(same, "rows at \(scaled)")
                try plain.finish()
                try threaded.finish()
            }
        }
    }

    @Test("a lossless WebP's whole-image state is counted: a 16383x16383 VP8L is refused by the budget")
    func losslessCost() throws {
        let source = try Fixture.source("webp-lossless.webp")
        let plan = try #require(source.streamPlan(try source.thumbnailSizes(.maxPixelSize(32), at: 0, allowUpscale: false),
                                                  at: 0, options: ThumbnailOptions()))
        #expect(plan.estimate.bytes >= 176 * 132 * 5)
        var header = try #require(source.header)
        header.width = 16383
        header.height = 16383
        let huge = DecodeEstimate.streamed(format: .webp, header: header, stored: (16383, 16383), decoded: (512, 512),
                                           output: (256, 256))
        #expect(huge.bytes > DecodingOptions().memoryBudget)
        header.isLossless = false
        header.hasAlpha = false
        let lossy = DecodeEstimate.streamed(format: .webp, header: header, stored: (16383, 16383), decoded: (512, 512),
                                            output: (256, 256))
        #expect(lossy.bytes < 16 << 20)
        // A lossy picture's alpha plane is decoded at full size, and a losslessly compressed one
        // through a whole-image ARGB buffer: an 8191x8191 one peaked at 354 MiB.
        header.hasAlpha = true
        for estimate in [DecodeEstimate.streamed(format: .webp, header: header, stored: (8191, 8191), decoded: (256, 256), output: (256, 256)),
                         DecodeEstimate(format: .webp, header: header, width: 8191, height: 8191, jpegHint: nil)] {
            #expect(estimate.bytes >= 8191 * 8191 * 5 && estimate.bytes > DecodingOptions().memoryBudget, "\(estimate)")
        }
    }

    @Test("a 24 MP lossy WebP thumbnails at default settings in at most 48 MiB", .timeLimit(.minutes(10)),
          .enabled(if: !runningUnderSanitizer, "a sanitizer's allocator changes the peak"))
    func twentyFourMegapixels() throws {
        let input = try Self.twentyFourMegapixelWebP()
        let source = try ImageSource(url: input)
        #expect(source.frames[0].pixelWidth == 11_158)
        #expect(try source.thumbnail(maxPixelSize: 64).decoder == .libwebp)
        let run = try MemoryTests.thumbnail(input)
        #expect(run.status == 0, "\(run.json)")
        #expect(run.json["width"] as? Int == 256 && run.json["height"] as? Int == 49, "\(run.json)")
        #expect(run.peakRSS <= 48 << 20, "peak RSS \(run.peakRSS >> 20) MiB")
        #expect(run.temporaryFiles.isEmpty)
    }

    @Test("a WebP thumbnail decoded on two threads is the one decoded on one", .timeLimit(.minutes(10)))
    func pipelined() throws {
        // 2048 wide: libwebp shrinks by 2 (5579x1078, over the pipelining threshold).
        let source = try ImageSource(url: try Self.twentyFourMegapixelWebP(), options: DecodingOptions().inProcess)
        let two = try AdmissionGate.$idleCoreOverride.withValue(true) { try source.thumbnail(maxPixelSize: 2048) }
        let one = try AdmissionGate.$idleCoreOverride.withValue(false) { try source.thumbnail(maxPixelSize: 2048) }
        #expect(two.decoder == .libwebp && one.decoder == .libwebp)
        #expect(two.width == 2048 && two.height == 396)
        #expect(try two.pixels(.rgba8) == one.pixels(.rgba8))
    }

    @Test("a stop reaches the WebP decoder between two rows", .timeLimit(.minutes(10)))
    func stopsBetweenRows() throws {
        let source = try ImageSource(url: try Self.twentyFourMegapixelWebP(), options: DecodingOptions().inProcess)
        let interrupt = Interrupt()
        let outcome = CancellationTests.cancelAtFirstProgress(interrupt) { () throws(MagickIOError) in
            _ = try source.thumbnail(.maxPixelSize(1024), at: 0, allowUpscale: false, options: ThumbnailOptions(),
                                     interrupt: interrupt)
        }
        #expect(outcome == .cancelled)
        #expect(interrupt.stopsByMonitor.load(ordering: .relaxed) >= 1, "a progress point stopped it")
    }

    // MARK: - Helpers

    /// An 11158x2156 lossy WebP (the size of the issue's public file), encoded once by
    /// ImageMagick's WebP writer from a generated photo-like JPEG (cwebp is not on CI).
    static func twentyFourMegapixelWebP() throws -> URL {
        try LargeImages.cached("24mp-photo.webp") { try LargeImages.writeWebP(to: $0, width: 11_158, height: 2_156) }
    }
}
