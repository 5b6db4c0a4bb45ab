import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// MagickIO's own JPEG, PNG and HEIF paths (libjpeg-turbo's, libpng's and libheif's rows streamed
/// into the resampler) held to ImageMagick's path on the same files: the same size, orientation, colours, alpha,
/// warnings and errors; and everything they do not take exactly handed to ImageMagick.
@Suite("Own JPEG, PNG and HEIF decoders")
struct OwnDecoderTests {
    static let imageMagickOnly: ThumbnailOptions = {
        var options = ThumbnailOptions()
        options.ownDecoders = false
        return options
    }()

    /// Files the own paths take: baseline and progressive JPEG, 4:2:0 and 4:4:4, an Adobe RGB
    /// profile, every EXIF orientation; 8-bit RGB and RGBA PNG, 16-bit RGBA, a 4-bit palette with
    /// tRNS, RGB with a tRNS colour, sRGB's gAMA, an iCCP profile, a raw-profile orientation;
    /// HEIC with every irot/imir, an Adobe RGB profile, alpha, HEIC and AVIF with thumbnail items
    /// (ImageMagick's path decodes these through libheif whole into its pixel cache).
    static let taken: [(String, Image.Decoder)] =
        ["photo.jpg", "progressive.jpg", "own-444.jpg", "adobe-rgb.jpg", "jpeg-broken-xmp.jpg"].map { ($0, .libjpeg) }
        + (1...8).map { ("orient-\($0).jpg", .libjpeg) }
        + ["photo.png", "alpha.png", "quadrants.png", "own-rgba16.png", "own-palette-trns.png", "own-rgb-trns.png",
           "own-gamma-srgb.png", "own-icc.png", "png-raw-exif-6.png"].map { ($0, .libpng) }
        + (1...8).map { ("orient-\($0).png", .libpng) }
        + ((1...8).map { "orient-\($0).heic" } + ["adobe-rgb-item.heic", "heic-alpha.heic", "avif-alpha.avif",
                                                  "embedded-thumbnail.heic", "embedded-thumbnail.avif"]).map { ($0, .libheif) }

    /// Files handed to ImageMagick: CMYK, grey, an Adobe marker, interlaced PNG, a linear gAMA,
    /// and files a decoder warns about.
    static let handedOver = ["cmyk.jpg", "own-gray.jpg", "own-adobe.jpg", "jpeg-extraneous-bytes.jpg",
                             "jpeg-gray-broken-icc.jpg", "own-gray.png", "own-interlaced.png", "own-gamma-linear.png",
                             "png-idat-extra.png", "png-trns-invalid.png", "png-text-crc.png", "png-iccp-crc.png"]

    @Test("a thumbnail through the own path matches ImageMagick's path", arguments: taken)
    func matchesImageMagick(name: String, decoder: Image.Decoder) throws {
        let source = try Fixture.source(name)
        let side = max(source.frames[0].orientedWidth, source.frames[0].orientedHeight)
        for size in Set([16, side / 3, side / 2 + 1, side]) where size >= 1 {
            let own = try source.thumbnail(maxPixelSize: size)
            let magick = try source.thumbnail(maxPixelSize: size, options: Self.imageMagickOnly)
            #expect(own.decoder == decoder, "\(name) at \(size)")
            #expect(magick.decoder == .imageMagick)
            try expectSame(own, magick, "\(name) at \(size)")
        }
    }

    @Test("what the own paths do not take exactly goes to ImageMagick, with its result", arguments: handedOver)
    func handsOver(name: String) throws {
        let source = try Fixture.source(name)
        let own = try source.thumbnail(maxPixelSize: 40)
        let magick = try source.thumbnail(maxPixelSize: 40, options: Self.imageMagickOnly)
        #expect(own.decoder == .imageMagick, "\(name)")
        try expectSame(own, magick, name)
    }

    @Test("damage is refused, or accepted with the same warnings, as on ImageMagick's path",
          arguments: ["truncated.jpg", "jpeg-bad-huffman.jpg", "png-zlib-broken.png"], [Strictness.refuseDamage, .acceptPartial])
    func damage(name: String, strictness: Strictness) throws {
        let source = try ImageSource(url: Fixture.url(name), options: DecodingOptions(strictness: strictness))
        let own = Result { () throws(MagickIOError) -> Image in try source.thumbnail(.maxPixelSize(40), at: 0, allowUpscale: false, options: ThumbnailOptions(), interrupt: nil) }
        let magick = Result { () throws(MagickIOError) -> Image in try source.thumbnail(.maxPixelSize(40), at: 0, allowUpscale: false, options: Self.imageMagickOnly, interrupt: nil) }
        switch (own, magick) {
        case (.success(let own), .success(let magick)):
            #expect(strictness == .acceptPartial, "\(name) thumbnailed under \(strictness)")
            #expect(own.decoder == .imageMagick)
            #expect(!own.warnings.isEmpty && own.warnings == magick.warnings)
            try expectSame(own, magick, name)
        case (.failure(let own), .failure(let magick)):
            #expect(own.kind == magick.kind && own.kind == .corruptImage)
            if name.hasSuffix(".jpg") {
                // libjpeg's damage ends the own path at the row it comes with (JPEGRows): the same
                // sentence and libjpeg's words, without ImageMagick's file and line.
                let meaning = try #require(magick.message.components(separatedBy: " (libjpeg through ImageMagick: ").first)
                #expect(own.message.hasPrefix(meaning + " (libjpeg: "), "\(own.message)")
            } else {
                #expect(own.message == magick.message)
            }
        default:
            Issue.record("\(name): own path \(own), ImageMagick's \(magick)")
        }
    }

    @Test("the header's own warnings (a corrupt XMP packet) are the thumbnail's, as on ImageMagick's path")
    func headerWarnings() throws {
        let source = try Fixture.source("jpeg-broken-xmp.jpg")
        let own = try source.thumbnail(maxPixelSize: 32)
        #expect(own.decoder == .libjpeg)
        #expect(!own.warnings.isEmpty)
        #expect(own.warnings == (try source.thumbnail(maxPixelSize: 32, options: Self.imageMagickOnly)).warnings)
    }

    @Test("an Adobe RGB profile is converted to sRGB on the own path, or kept on request")
    func colourProfile() throws {
        let source = try Fixture.source("adobe-rgb.jpg")
        let converted = try source.thumbnail(maxPixelSize: 16)
        #expect(converted.decoder == .libjpeg)
        // (60, 180, 90) in Adobe RGB is about (0, 181, 83) in sRGB (Little CMS, perceptual).
        let pixel = try converted.pixels(.rgba8).rgba(x: 8, y: 8)
        #expect(pixel.r <= 12 && abs(Int(pixel.g) - 181) <= 4 && abs(Int(pixel.b) - 83) <= 4, "\(pixel)")
        let kept = try source.thumbnail(maxPixelSize: 16, options: ThumbnailOptions(colorProfile: .keep))
        #expect(kept.decoder == .libjpeg)
        let raw = try kept.pixels(.rgba8).rgba(x: 8, y: 8)
        #expect(abs(Int(raw.r) - 60) <= 3 && abs(Int(raw.g) - 180) <= 3 && abs(Int(raw.b) - 90) <= 3, "\(raw)")
    }

    @Test("the thumbnail keeps the file's resolution and names its format, as ImageMagick's does")
    func description() throws {
        for name in ["photo.jpg", "photo.png", "own-rgba16.png"] {
            let source = try Fixture.source(name)
            let own = try source.thumbnail(maxPixelSize: 50)
            let magick = try source.thumbnail(maxPixelSize: 50, options: Self.imageMagickOnly)
            #expect(own.decoder != .imageMagick)
            #expect(own.properties.resolution == magick.properties.resolution, "\(name)")
            #expect(own.properties.format == magick.properties.format, "\(name)")
            #expect(own.properties.hasAlpha == magick.properties.hasAlpha, "\(name)")
        }
    }

    @Test("metadata kept, enlargements and frames other than the first take ImageMagick's path")
    func notTaken() throws {
        let source = try Fixture.source("gps.jpg")
        #expect(try source.thumbnail(maxPixelSize: 50, options: ThumbnailOptions(metadata: .keepAll)).decoder == .imageMagick)
        #expect(try source.thumbnail(maxPixelSize: 50).decoder == .libjpeg)
        #expect(try source.thumbnail(maxPixelSize: 640, allowUpscale: true).decoder == .imageMagick)
    }

    @Test("the DCT scale is the smallest of ImageMagick's that keeps twice the thumbnail on each axis")
    func scaleRule() throws {
        #expect(JPEGScale.numerator(width: 4000, height: 3000, target: (256, 192)) == 2)   // 1000x750
        #expect(JPEGScale.numerator(width: 4000, height: 3000, target: (250, 187)) == 1)   // 500x375
        #expect(JPEGScale.numerator(width: 4000, height: 3000, target: (250, 188)) == 2)
        #expect(JPEGScale.numerator(width: 6000, height: 4000, target: (1024, 683)) == 4)  // 3000x2000, not 3/8
        #expect(JPEGScale.numerator(width: 12000, height: 8334, target: (256, 178)) == 1)  // 1500x1042
        #expect(JPEGScale.numerator(width: 300, height: 200, target: (256, 171)) == 8)
        // 5/8 would do (142x94) but ImageMagick's path cannot reach it: both decode whole.
        #expect(JPEGScale.numerator(width: 227, height: 149, target: (64, 42)) == 8)
        // Both paths pick the same scale.
        for (width, height, target) in [(4000, 3000, (256, 192)), (6000, 4000, (1024, 683)), (227, 149, (64, 42)), (1000, 1000, (300, 300))] {
            let hint = JPEGScale.hint(width: width, height: height, target: target)
            let imageMagick = hint.map { JPEGScale.decodedSize(width: width, height: height, hint: $0) } ?? (width, height)
            let own = JPEGScale.scaledSize(width: width, height: height,
                                           numerator: JPEGScale.numerator(width: width, height: height, target: target))
            #expect(own == imageMagick, "\(width)x\(height) -> \(target)")
        }
        #expect(JPEGScale.scaledSize(width: 4001, height: 3001, numerator: 1) == (501, 376))
        // 3/8 only where 1/2 would be over the size limits and 3/8 is not: 2x20000 against 2x15000.
        #expect(JPEGScale.numerator(width: 3, height: 40_000, target: (1, 256)) == 4)
        #expect(JPEGScale.numerator(width: 3, height: 40_000, target: (1, 256), within: (16_384, 16_384)) == 3)
        #expect(JPEGScale.numerator(width: 3, height: 60_000, target: (1, 256), within: (16_384, 16_384)) == 4, "over at 3/8 too")
        #expect(JPEGScale.numerator(width: 6000, height: 4000, target: (1024, 683), within: (16_384, 16_384)) == 4)
        let strip = try #require(JPEGScale.hint(width: 3, height: 40_000, target: (1, 256), within: (16_384, 16_384)))
        #expect(JPEGScale.decodedSize(width: 3, height: 40_000, hint: strip) == (2, 15_000))
    }

    @Test("a strip whose 1/2 decode is over the height limit decodes at 3/8 on both paths, not refused")
    func stripUnderTheLimits() throws {
        let url = try LargeImages.cached("strip-3x40000.jpg") { try LargeImages.writeJPEG(to: $0, width: 3, height: 40_000) }
        let source = try ImageSource(url: url)
        var imageMagick = ThumbnailOptions()
        imageMagick.ownDecoders = false
        for (options, decoder) in [(ThumbnailOptions(), Image.Decoder.libjpeg), (imageMagick, .imageMagick)] {
            let thumbnail = try source.thumbnail(maxPixelSize: 256, options: options)
            #expect(thumbnail.width == 1 && thumbnail.height == 256 && thumbnail.decoder == decoder,
                    "\(thumbnail.width)x\(thumbnail.height) by \(thumbnail.decoder)")
        }
    }

    @Test("rows decoded on a second thread are the same rows; a failure and a stop reach the reader")
    func pipelinedRows() throws {
        func withJPEG(_ name: String, strictness: Strictness = .refuseDamage, _ body: (() throws -> JPEGRows) throws -> Void) throws {
            let data = try Fixture.data(name)
            try data.withUnsafeBytes { raw in
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                try body {
                    try JPEGRows(input: base, descriptor: -1, size: raw.count, scale: 8, memoryLimit: 64 << 20, strictness: strictness,
                                 interrupt: nil)
                }
            }
        }
        try withJPEG("photo.jpg") { open in
            let direct = try open(), piped = PipelinedRows(try open(), slots: 3)
            #expect(piped.width == 320 && piped.height == 240 && piped.channels == 3)
            var a = [Float](repeating: 0, count: 320 * 3 + 1), b = a
            for _ in 0..<direct.height {
                try direct.readRow(into: &a)
                try piped.readRow(into: &b)
                #expect(a == b)
            }
            try direct.finish()
            try piped.finish()
            // A second pipeline stopped after two rows: its thread is joined, nothing is left running.
            let stopped = PipelinedRows(try open(), slots: 2)
            try stopped.readRow(into: &a)
            try stopped.readRow(into: &a)
            stopped.stop()
        }
        // truncated.jpg: libjpeg's warning at the end of the data reaches the reader, as the end of
        // the decode when the strictness refuses damage, else as a fallback (ImageMagick then
        // gives the partial picture and lists the warning).
        for strictness in [Strictness.refuseDamage, .acceptPartial] {
            try withJPEG("truncated.jpg", strictness: strictness) { open in
                let piped = PipelinedRows(try open())
                var row = [Float](repeating: 0, count: piped.width * 3 + 1)
                var failure: RowSourceFailure?
                do throws(RowSourceFailure) {
                    for _ in 0..<piped.height { try piped.readRow(into: &row) }
                    try piped.finish()
                } catch {
                    failure = error
                }
                switch (strictness, failure) {
                case (.refuseDamage, .stopped(let error)?):
                    #expect(error.kind == .corruptImage && error.message.contains("(libjpeg: Premature end of JPEG file"), "\(error)")
                case (.acceptPartial, .fallback(let reason)?):
                    #expect(reason.contains("libjpeg"), "\(reason)")
                default:
                    Issue.record("\(strictness): \(String(describing: failure))")
                }
            }
        }
    }

    @Test("a damaged JPEG declaring 8800x8800 is refused at its first damaged row by the own path, never decoded again by ImageMagick")
    func damageStopsTheOwnPath() throws {
        let source = try Fixture.source("jpeg-8800-cut.jpg")
        #expect(try source.properties(at: 0).pixelWidth == 8800)
        let error = #expect(throws: MagickIOError.self) { _ = try source.thumbnail(maxPixelSize: 256) }
        #expect(error?.kind == .corruptImage, "\(String(describing: error))")
        // libjpeg's words as the own path reports them, not ImageMagick's coder's (jpeg.c).
        let message = error?.message ?? ""
        #expect(message.contains("(libjpeg: ") && !message.contains("jpeg.c"), "\(message)")
        // Accepting partial pictures, ImageMagick gives the picture with its grey rows.
        let partial = try ImageSource(url: Fixture.url("jpeg-8800-cut.jpg"), options: DecodingOptions(strictness: .acceptPartial))
        let thumbnail = try partial.thumbnail(maxPixelSize: 256)
        #expect((thumbnail.width, thumbnail.height) == (256, 256) && !thumbnail.warnings.isEmpty, "\(thumbnail.warnings)")
    }

    @Test("a thumbnail decoded on two threads is the one decoded on one", arguments: ["jpeg", "png"])
    func pipelinedThumbnail(format: String) throws {
        let url = format == "jpeg"
            ? try LargeImages.cached("12mp.jpg") { try LargeImages.writeJPEG(to: $0, width: 4000, height: 3000, quality: 90) }
            : try LargeImages.cached("12mp-rgba.png") { try LargeImages.writePNG(to: $0, width: 4000, height: 3000, alpha: true) }
        let source = try ImageSource(url: url, options: DecodingOptions().inProcess)
        let two = try AdmissionGate.$idleCoreOverride.withValue(true) { try source.thumbnail(maxPixelSize: 1024) }
        let one = try AdmissionGate.$idleCoreOverride.withValue(false) { try source.thumbnail(maxPixelSize: 1024) }
        #expect(two.decoder != .imageMagick && two.decoder == one.decoder)
        #expect(try two.pixels(.rgba8) == one.pixels(.rgba8))
        let magick = try source.thumbnail(maxPixelSize: 1024, options: Self.imageMagickOnly)
        try expectSame(two, magick, url.lastPathComponent)
    }

    @Test("a JPEG read from its file in several reads is the JPEG decoded from memory, whole or cut short")
    func fileReads() throws {
        let url = try LargeImages.cached("12mp.jpg") { try LargeImages.writeJPEG(to: $0, width: 4000, height: 3000, quality: 90) }
        let bytes = try Data(contentsOf: url)
        let read = JPEGRows.readBufferBytes(fileBytes: .max)
        try #require(bytes.count > 3 * read, "\(bytes.count) bytes: fewer than three reads")
        let options = DecodingOptions().inProcess
        let directory = try TemporaryDirectory("magickio-jpeg-reads")
        let fromFile = try ImageSource(url: url, options: options).thumbnail(maxPixelSize: 512)
        let fromMemory = try ImageSource(data: bytes, options: options).thumbnail(maxPixelSize: 512)
        #expect(fromFile.decoder == .libjpeg && fromMemory.decoder == .libjpeg)
        #expect(fromFile.width == 512 && fromFile.height == 384 && fromFile.warnings.isEmpty)
        #expect(try fromFile.pixels(.rgba8) == fromMemory.pixels(.rgba8))

        // Cut in the middle of the third read: the own path stops at the row where the data ends,
        // with libjpeg's warning, from the file as from memory.
        let cut = directory.url.appendingPathComponent("cut.jpg")
        let part = bytes.prefix(2 * read + read / 2)
        try part.write(to: cut)
        func failure(_ source: ImageSource) -> MagickIOError? {
            do { _ = try source.thumbnail(maxPixelSize: 512); return nil } catch { return error as? MagickIOError }
        }
        let fileError = try #require(failure(try ImageSource(url: cut, options: options)))
        let memoryError = try #require(failure(try ImageSource(data: Data(part), options: options)))
        #expect(fileError.kind == .corruptImage && memoryError.kind == .corruptImage)
        #expect(fileError.message.contains("(libjpeg: ") && fileError.message == memoryError.message, "\(fileError.message)")

        // A frame that starts past three reads: libjpeg skips 14 APP15 segments of 64 KiB (the
        // skip runs past what is read), then decodes the picture as without them.
        let photo = try Data(contentsOf: Fixture.url("photo.jpg"))
        var padding = Data([0xFF, 0xEF, 0xFF, 0xFF])
        padding.append(Data(repeating: 0x41, count: 65_533))
        let padded = directory.url.appendingPathComponent("padded.jpg")
        try (photo.prefix(2) + Data((0..<14).flatMap { _ in padding }) + photo.dropFirst(2)).write(to: padded)
        let plain = try ImageSource(url: Fixture.url("photo.jpg"), options: options).thumbnail(maxPixelSize: 64)
        let skipped = try ImageSource(url: padded, options: options).thumbnail(maxPixelSize: 64)
        #expect(try FileManager.default.attributesOfItem(atPath: padded.path)[.size] as? Int ?? 0 > 3 * read)
        #expect(skipped.decoder == .libjpeg && plain.decoder == .libjpeg)
        #expect(try skipped.pixels(.rgba8) == plain.pixels(.rgba8))
    }

    // MARK: - Helpers

    private func expectSame(_ own: Image, _ magick: Image, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(own.width == magick.width && own.height == magick.height, "\(what): \(own.width)x\(own.height) vs \(magick.width)x\(magick.height)", sourceLocation: sourceLocation)
        #expect(own.orientation == magick.orientation, sourceLocation: sourceLocation)
        #expect(own.properties.hasAlpha == magick.properties.hasAlpha, "\(what): alpha", sourceLocation: sourceLocation)
        guard own.width == magick.width, own.height == magick.height else { return }
        let a = try own.pixels(.rgba8), b = try magick.pixels(.rgba8)
        var sum = 0.0
        for i in a.bytes.indices {
            let d = Double(Int(a.bytes[i]) - Int(b.bytes[i])) / 255
            sum += d * d
        }
        let rmse = (sum / Double(a.bytes.count)).squareRoot()
        #expect(rmse < 0.01, "\(what): RMSE \(rmse)", sourceLocation: sourceLocation)
    }
}
