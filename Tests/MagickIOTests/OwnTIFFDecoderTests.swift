import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// MagickIO's own TIFF path (libtiff's rows, a strip or a row of tiles at a time, streamed into
/// the resampler) held to ImageMagick's path on the same files: the same size, orientation,
/// colours, alpha and colour space, the same refusals; the layouts it does not take handed to
/// ImageMagick; and a 29 MP G4 page and a 24 MP RGB TIFF thumbnailed at default settings in a
/// bounded peak.
@Suite("Own TIFF decoder")
struct OwnTIFFDecoderTests {
    /// One file for each layout taken (scripts/tiff-fixtures.sh), every orientation
    /// (make-fixtures.sh: deflate RGB), the alpha fixtures of the world files, and a BigTIFF.
    static let taken = [
        "tiff-rgb8-lzw.tif", "tiff-rgb8-tiled.tif", "tiff-rgb16-planar.tif", "tiff-rgba16-deflate.tif",
        "tiff-rgba8-tiled-planar.tif", "tiff-rgba8-assoc-packbits.tif", "tiff-grey8-miniswhite.tif", "tiff-grey16-tiled.tif",
        "tiff-greya8-lzw.tif", "tiff-grey4.tif", "tiff-palette8.tif", "tiff-palette4.tif", "tiff-g4-miniswhite.tif",
        "tiff-g3-minisblack.tif", "tiff-jpeg-ycbcr.tif", "tiff-jpeg-tiled.tif", "tiff-icc.tif",
        "tiff-alpha-assoc-8-contig.tif", "tiff-alpha-unassoc-16-planar.tif", "bigtiff.tif",
    ] + (1...8).map { "orient-\($0).tif" }

    @Test("a TIFF thumbnail through libtiff matches ImageMagick's path", arguments: taken)
    func matchesImageMagick(name: String) throws {
        try OwnPathParity.expectMatches(name, through: .libtiff)
    }

    @Test("the first page of a multi-page TIFF goes through libtiff; the others stay on ImageMagick's path")
    func pages() throws {
        let source = try Fixture.source("pages.tif")
        #expect(source.count == 2)
        let first = try source.thumbnail(maxPixelSize: 8)
        #expect(first.decoder == .libtiff && first.width == 8 && first.height == 8)
        try OwnPathParity.expectSame(first, try source.thumbnail(maxPixelSize: 8, options: .imageMagickOnly), "page 0")
        let second = try source.thumbnail(maxPixelSize: 4, at: 1)
        #expect(second.decoder == .imageMagick && second.width == 4)
    }

    @Test("a grey page stays grey, a palette and RGB stay sRGB, as on ImageMagick's path")
    func colourSpace() throws {
        for (name, space) in [("tiff-g4-miniswhite.tif", "gray"), ("tiff-grey16-tiled.tif", "gray"), ("tiff-greya8-lzw.tif", "gray"),
                              ("tiff-palette8.tif", "srgb"), ("tiff-rgb8-lzw.tif", "srgb")] {
            let own = try Fixture.source(name).thumbnail(maxPixelSize: 20)
            #expect(own.decoder == .libtiff)
            #expect(own.properties.colorSpace == space, "\(name): \(own.properties.colorSpace)")
        }
        // Min-is-white and min-is-black alike: the photo's sky (top left) is light on both paths.
        for name in ["tiff-g4-miniswhite.tif", "tiff-g3-minisblack.tif", "tiff-grey8-miniswhite.tif"] {
            let own = try Fixture.source(name).thumbnail(maxPixelSize: 10).pixels(.rgba8).rgba(x: 1, y: 1)
            let magick = try Fixture.source(name).thumbnail(maxPixelSize: 10, options: .imageMagickOnly).pixels(.rgba8).rgba(x: 1, y: 1)
            let difference = abs(Int(own.r) - Int(magick.r))
            #expect(difference <= 3, "\(name): \(own) vs \(magick)")
            #expect(own.r == own.g && own.g == own.b, "\(name): grey")
        }
    }

    @Test("the ICC profile is converted to sRGB on the own path, or kept on request")
    func colourProfile() throws {
        let source = try Fixture.source("tiff-icc.tif")
        let converted = try source.thumbnail(maxPixelSize: 16)
        let magick = try source.thumbnail(maxPixelSize: 16, options: .imageMagickOnly)
        #expect(converted.decoder == .libtiff)
        try OwnPathParity.expectSame(converted, magick, "converted")
        let kept = try source.thumbnail(maxPixelSize: 16, options: ThumbnailOptions(colorProfile: .keep))
        var keptByImageMagick = ThumbnailOptions(colorProfile: .keep)
        keptByImageMagick.ownDecoders = false
        #expect(kept.decoder == .libtiff)
        try OwnPathParity.expectSame(kept, try source.thumbnail(maxPixelSize: 16, options: keptByImageMagick), "kept")
        let a = try kept.pixels(.rgba8).rgba(x: 8, y: 8), b = try converted.pixels(.rgba8).rgba(x: 8, y: 8)
        let red = abs(Int(a.r) - Int(b.r)), green = abs(Int(a.g) - Int(b.g)), blue = abs(Int(a.b) - Int(b.b))
        let difference: Int = red + green + blue
        #expect(difference > 10, "the pixels kept in Adobe RGB (\(a)) differ from sRGB's (\(b))")
    }

    @Test("CMYK, a file libtiff warns about, and metadata to keep stay on ImageMagick's path")
    func fallback() throws {
        let cmyk = try Fixture.source("tiff-cmyk.tif")
        #expect(try cmyk.thumbnail(maxPixelSize: 20).decoder == .imageMagick)
        // An unknown tag: libtiff warns, and ImageMagick's path reports what it says.
        let unknown = try ImageSource(url: Fixture.url("tiff-unknown-tag.tif"))
        let own = try unknown.thumbnail(maxPixelSize: 20)
        let magick = try unknown.thumbnail(maxPixelSize: 20, options: .imageMagickOnly)
        #expect(own.decoder == .imageMagick)
        #expect(own.warnings == magick.warnings)
        let keeping = try Fixture.source("tiff-rgb8-lzw.tif").thumbnail(maxPixelSize: 20, options: ThumbnailOptions(metadata: .keepAll))
        #expect(keeping.decoder == .imageMagick)
    }

    /// libtiff fails on the missing strips; the own path hands the file over and ImageMagick's
    /// coder decides under the source's strictness: the same outcome on both paths.
    @Test("a TIFF cut short ends the same on both paths, under either strictness",
          arguments: [Strictness.refuseDamage, .acceptPartial])
    func truncated(strictness: Strictness) throws {
        let source = try ImageSource(url: Fixture.url("tiff-lzw-truncated.tif"), options: DecodingOptions(strictness: strictness))
        #expect(source.frames[0].pixelWidth == 100 && source.frames[0].pixelHeight == 75)
        let own = Result { () throws(MagickIOError) -> Image in
            try source.thumbnail(.maxPixelSize(40), at: 0, allowUpscale: false, options: ThumbnailOptions(), interrupt: nil)
        }
        let magick = Result { () throws(MagickIOError) -> Image in
            try source.thumbnail(.maxPixelSize(40), at: 0, allowUpscale: false, options: .imageMagickOnly, interrupt: nil)
        }
        switch (own, magick) {
        case (.failure(let ownError), .failure(let magickError)):
            #expect(strictness == .refuseDamage)
            #expect(ownError.kind == .corruptImage && magickError.kind == .corruptImage)
            #expect(ownError.message == magickError.message)
        case (.success(let ownImage), .success(let magickImage)):
            #expect(strictness == .acceptPartial)
            #expect(ownImage.decoder == .imageMagick && !ownImage.warnings.isEmpty)
            #expect(ownImage.warnings == magickImage.warnings)
        default:
            Issue.record("own path \(own), ImageMagick's \(magick)")
        }
    }

    @Test("the rows from a file descriptor are the rows from memory")
    func rowsFromDescriptorAndMemory() throws {
        for name in ["tiff-rgba8-tiled-planar.tif", "tiff-rgb16-planar.tif", "tiff-g3-minisblack.tif", "tiff-jpeg-ycbcr.tif"] {
            let data = try Fixture.data(name)
            let descriptor = open(Fixture.url(name).path, O_RDONLY)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            try data.withUnsafeBytes { raw in
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let limit = TIFFRows.minimumAllocationLimit
                let memory = try TIFFRows(input: base, descriptor: -1, size: raw.count, stored: (100, 75), allocationLimit: limit)
                let file = try TIFFRows(input: nil, descriptor: descriptor, size: raw.count, stored: (100, 75), allocationLimit: limit)
                var a = [Float](repeating: 0, count: 100 * memory.channels), b = a
                for _ in 0..<75 {
                    try memory.readRow(into: &a)
                    try file.readRow(into: &b)
                    #expect(a == b, "\(name)")
                }
                try memory.finish()
                try file.finish()
                // A page of another size than the header's goes to ImageMagick's path, saying why.
                let mismatch = #expect(throws: RowSourceFailure.self) {
                    try TIFFRows(input: base, descriptor: -1, size: raw.count, stored: (101, 75), allocationLimit: limit)
                }
                if case .fallback(let reason)? = mismatch {
                    #expect(reason == "libtiff reads 100x75, the header 101x75", "\(name)")
                } else {
                    Issue.record("\(name): \(String(describing: mismatch))")
                }
            }
        }
    }

    @Test("the estimate counts a strip of each plane, a row of tiles, libtiff's offsets and its compressed strip")
    func estimate() {
        var page = TIFFLayout(width: 6000, height: 4000, bitsPerSample: 8, samplesPerPixel: 3, rowsPerStrip: 4000, compression: 8)
        let contiguous = TIFFRows.streamedBytes(page, fileBytes: 30 << 20)
        // One deflate strip: libtiff reads all of it (up to the file), decoding a row at a time.
        #expect(contiguous >= 30 << 20 && contiguous < 40 << 20)
        page.isPlanar = true
        #expect(TIFFRows.streamedBytes(page, fileBytes: 30 << 20) >= 72_000_000, "three planes held whole")
        page.rowsPerStrip = 1
        let offsets = TIFFRows.streamedBytes(page, fileBytes: 1 << 20)
        #expect(offsets >= 12_000 * 16 && offsets < 8 << 20)
        page.tile = .init(width: 512, height: 512)
        page.isPlanar = false
        #expect(TIFFRows.streamedBytes(page, fileBytes: 1 << 20) >= 12 * 512 * 512 * 3, "a row of twelve tiles")
        #expect(TIFFRows.allocationLimit(page, fileBytes: 1 << 20) >= 512 * 512 * 3 * 2)
        // What the plan takes: not CMYK, 32-bit integers, LogLuv; floating point and YCbCr without
        // JPEG, which ImageMagick misreads (TIFFSampleFormatsTests, TIFFYCbCrTests), yes.
        #expect(TIFFRows.takes(TIFFLayout(width: 9, height: 9, bitsPerSample: 1, samplesPerPixel: 1, compression: 4, photometric: 0)))
        #expect(!TIFFRows.takes(TIFFLayout(width: 9, height: 9, bitsPerSample: 8, samplesPerPixel: 4, photometric: 5)))
        #expect(!TIFFRows.takes(TIFFLayout(width: 9, height: 9, bitsPerSample: 32, samplesPerPixel: 1, photometric: 1)))
        #expect(TIFFRows.takes(TIFFLayout(width: 9, height: 9, bitsPerSample: 32, samplesPerPixel: 1, sampleFormat: 3, photometric: 1)))
        #expect(TIFFRows.takes(TIFFLayout(width: 9, height: 9, bitsPerSample: 8, samplesPerPixel: 3, compression: 5, photometric: 6)))
        #expect(TIFFRows.takes(TIFFLayout(width: 9, height: 9, bitsPerSample: 8, samplesPerPixel: 3, compression: 7, photometric: 6)))
        #expect(!TIFFRows.takes(TIFFLayout(width: 9, height: 9, bitsPerSample: 16, samplesPerPixel: 1, compression: 34676, photometric: 32845)))
    }

    @Test("a 29 MP G4 page and a 24 MP RGB TIFF thumbnail at default settings in at most 48 MiB",
          .timeLimit(.minutes(10)), .enabled(if: !runningUnderSanitizer, "a sanitizer's allocator changes the peak"),
          arguments: ["29mp-g4.tif", "24mp-lzw.tif", "24mp-tiled.tif"])
    func large(name: String) throws {
        let input = try Self.large(name)
        let source = try ImageSource(url: input)
        #expect(try source.thumbnail(maxPixelSize: 32).decoder == .libtiff)
        let run = try MemoryTests.thumbnail(input)
        #expect(run.status == 0, "\(run.json)")
        #expect(run.json["width"] as? Int == (name.contains("g4") ? 194 : 256), "\(run.json)")
        #expect(run.peakRSS <= 48 << 20, "\(name): peak RSS \(run.peakRSS >> 20) MiB")
    }

    @Test("a 16-bit RGBA TIFF in one 4400x4400 deflate strip, which ImageMagick's path refuses, streams in little memory",
          .timeLimit(.minutes(10)), .enabled(if: !runningUnderSanitizer, "a sanitizer's allocator changes the peak, and its child takes minutes"))
    func oneStripStreams() throws {
        let file = try CostFixtures.tiff("rgba16-strip", width: 4400, height: 4400)
        let source = try ImageSource(url: file)
        // ImageMagick's coder reads the 155 MB strip whole: over the decode's budget, refused
        // before it decodes (not a corrupt file).
        let refusal = #expect(throws: MagickIOError.self) { _ = try source.thumbnail(maxPixelSize: 256, options: .imageMagickOnly) }
        #expect(refusal?.kind == .limitExceeded, "\(String(describing: refusal))")
        #expect(refusal?.limit?.name == "memoryBudget", "\(String(describing: refusal))")
        #expect(try source.thumbnail(maxPixelSize: 64).decoder == .libtiff)
        let run = try MemoryTests.thumbnail(file)
        #expect(run.status == 0, "\(run.json)")
        #expect(run.json["width"] as? Int == 256, "\(run.json)")
        #expect(run.peakRSS <= 64 << 20, "peak RSS \(run.peakRSS >> 20) MiB")
    }

    @Test("a TIFF thumbnail decoded on two threads is the one decoded on one", .timeLimit(.minutes(10)))
    func pipelined() throws {
        let source = try ImageSource(url: try Self.large("24mp-lzw.tif"), options: DecodingOptions().inProcess)
        let two = try AdmissionGate.$idleCoreOverride.withValue(true) { try source.thumbnail(maxPixelSize: 300) }
        let one = try AdmissionGate.$idleCoreOverride.withValue(false) { try source.thumbnail(maxPixelSize: 300) }
        #expect(two.decoder == .libtiff && one.decoder == .libtiff)
        #expect(try two.pixels(.rgba8) == one.pixels(.rgba8))
    }

    @Test("strips decoded on two threads, a band each in turn, are the rows one decoder reads; damage and a stop reach the reader")
    func bandedRows() throws {
        let directory = try TemporaryDirectory("banded-rows")
        // 700x300 in strips of 16 rows: bands of 32 rows, the last of 12.
        let lzw = directory.url.appendingPathComponent("lzw.tif")
        try LargeTIFFs.write(to: lzw, width: 700, height: 300, .rgb(compression: 5, tiled: false))
        let page = try #require(try ImageSource(url: lzw).header?.tiffPages.first)
        #expect(TIFFRows.bandRows(page) == 32)
        // A deflate TIFF with bytes of its seventh band's strips overwritten: zlib refuses them.
        let deflate = directory.url.appendingPathComponent("deflate.tif")
        try LargeTIFFs.write(to: deflate, width: 700, height: 300, .rgb(compression: 8, tiled: false))
        var damaged = try Data(contentsOf: deflate)
        let offsets = try #require(Self.stripOffsets(damaged))
        #expect(offsets.count == 19)
        for i in 0..<64 { damaged[offsets[13] + 4 + i] ^= 0x5A }

        func withRows(_ bytes: Data, _ body: (() throws(RowSourceFailure) -> TIFFRows) throws -> Void) throws {
            try bytes.withUnsafeBytes { raw in
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                try body { () throws(RowSourceFailure) in
                    try TIFFRows(input: base, descriptor: -1, size: raw.count, stored: (700, 300), allocationLimit: 64 << 20)
                }
            }
        }
        try withRows(try Data(contentsOf: lzw)) { open in
            let direct = try open(), banded = BandedRows(try open(), try open(), bandRows: 32)
            #expect(banded.width == 700 && banded.height == 300 && banded.channels == 3)
            var a = [Float](repeating: 0, count: 700 * 3), b = a
            for y in 0..<300 {
                try direct.readRow(into: &a)
                try banded.readRow(into: &b)
                #expect(a == b, "row \(y)")
            }
            try direct.finish()
            try banded.finish()
            // Stopped after a few rows: both threads joined, nothing left running.
            let stopped = BandedRows(try open(), try open(), bandRows: 32)
            for _ in 0..<40 { try stopped.readRow(into: &a) }
            stopped.stop()
        }
        try withRows(damaged) { open in
            var row = [Float](repeating: 0, count: 700 * 3)
            func failure(_ rows: RowSource) -> RowSourceFailure? {
                do throws(RowSourceFailure) {
                    for _ in 0..<300 { try rows.readRow(into: &row) }
                    try rows.finish()
                } catch {
                    return error
                }
                return nil
            }
            let banded = BandedRows(try open(), try open(), bandRows: 32)
            guard case .fallback(let reason)? = failure(banded) else {
                Issue.record("the damaged strip did not reach the reader")
                return
            }
            #expect(reason.contains("libtiff"), "\(reason)")
            guard case .fallback? = failure(try open()) else {
                Issue.record("one decoder read past the damaged strip")
                return
            }
        }
        // Through the thumbnail: ImageMagick's path takes the damaged file, as it would with one decoder.
        let file = directory.url.appendingPathComponent("damaged.tif")
        try damaged.write(to: file)
        let source = try ImageSource(url: file, options: DecodingOptions().inProcess)
        let two = Result { try AdmissionGate.$idleCoreOverride.withValue(true) { try source.thumbnail(maxPixelSize: 100) } }
        let one = Result { try AdmissionGate.$idleCoreOverride.withValue(false) { try source.thumbnail(maxPixelSize: 100) } }
        switch (two, one) {
        case (.success(let a), .success(let b)):
            #expect(a.decoder == b.decoder && a.decoder == .imageMagick)
            #expect(try a.pixels(.rgba8) == b.pixels(.rgba8))
        case (.failure(let a as MagickIOError), .failure(let b as MagickIOError)):
            #expect(a.kind == b.kind, "\(a) / \(b)")
        default:
            Issue.record("two threads and one disagree: \(two) / \(one)")
        }
    }

    /// The StripOffsets of a little-endian TIFF's first directory (LONG values), or nil.
    static func stripOffsets(_ data: Data) -> [Int]? {
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard bytes.count > 8, bytes[0] == 0x49 else { return nil }
        let ifd = u32(4)
        for entry in 0..<u16(ifd) {
            let at = ifd + 2 + 12 * entry
            guard u16(at) == 273, u16(at + 2) == 4 else { continue }
            let count = u32(at + 4), values = count == 1 ? at + 8 : u32(at + 8)
            return (0..<count).map { u32(values + 4 * $0) }
        }
        return nil
    }

    // MARK: - Helpers

    /// 4670x6170 1-bit G4 (the issue's scanned page) and 6000x4000 RGB, LZW in strips or
    /// uncompressed in tiles.
    static func large(_ name: String) throws -> URL {
        try LargeImages.cached(name) { url in
            switch name {
            case "29mp-g4.tif": try LargeTIFFs.write(to: url, width: 4670, height: 6170, .g4Page)
            case "24mp-lzw.tif": try LargeTIFFs.write(to: url, width: 6000, height: 4000, .rgb(compression: 5, tiled: false))
            default: try LargeTIFFs.write(to: url, width: 6000, height: 4000, .rgb(compression: 1, tiled: true))
            }
        }
    }
}
