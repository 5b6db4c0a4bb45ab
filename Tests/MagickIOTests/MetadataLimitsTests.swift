import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// Metadata is counted by MagickIO's walkers before any decoder runs (``MetadataCensus``): a
/// decode that keeps it is refused past `maxMetadataBytes` or `maxFrameCount`, a thumbnail reads
/// the file without it and stays small.
@Suite("Metadata limits")
struct MetadataLimitsTests {
    static let gigabyte = 1 << 30

    /// The three hostile families measured in issue 18, as files in the tests' cache folder.
    static func zTXtBomb() throws -> URL {
        try MetadataBombs.cached("meta-ztxt-1g.png") { MetadataBombs.png([MetadataBombs.zTXt(inflatingTo: gigabyte)]) }
    }

    static func iCCPBomb() throws -> URL {
        try MetadataBombs.cached("meta-iccp-header-1g.png") { MetadataBombs.png([MetadataBombs.iCCP(inflatingTo: gigabyte)]) }
    }

    static func app15Flood() throws -> URL {
        try MetadataBombs.cached("meta-app15-600k-4b.jpg") { try MetadataBombs.jpeg(after: [MetadataBombs.app15(600_000)]) }
    }

    static func hostileFiles() throws -> [(URL, limit: String)] {
        [(try zTXtBomb(), "maxMetadataBytes"), (try iCCPBomb(), "maxMetadataBytes"), (try app15Flood(), "maxFrameCount")]
    }

    /// The quadrants' colours at their centres, within JPEG's error.
    static func expectQuadrants(_ image: Image, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(image.width == 64 && image.height == 64, "\(label): \(image.width)x\(image.height)", sourceLocation: sourceLocation)
        let pixels = try image.pixels(.rgba8)
        for (index, point) in [(16, 16), (48, 16), (16, 48), (48, 48)].enumerated() {
            let got = pixels.rgba(x: point.0, y: point.1), want = MetadataBombs.colours[index]
            let close = abs(Int(got.r) - Int(want.0)) < 12 && abs(Int(got.g) - Int(want.1)) < 12 && abs(Int(got.b) - Int(want.2)) < 12
            #expect(close, "\(label): quadrant \(index) is \(got), made as \(want)", sourceLocation: sourceLocation)
        }
    }

    @Test("a thumbnail of a zTXt, iCCP or APP15 bomb is made in a child within 300 MiB",
          .enabled(if: !runningUnderSanitizer, "LeakSanitizer cannot run in a child traced for its peak, and the peak is not a sanitizer's"))
    func hostileThumbnailsStaySmall() throws {
        for (file, _) in try Self.hostileFiles() {
            let run = try runChild(try builtProduct("DecodeProbe"), [file.path, "64"], timeout: .seconds(300))
            #expect(run.status == 0, "\(file.lastPathComponent): \(run.stdoutText) \(run.stderrText.suffix(2000))")
            #expect(run.stdoutText.contains("\"width\": 64, \"height\": 64"), "\(file.lastPathComponent): \(run.stdoutText)")
            #expect(run.peakRSSBytes <= 300 << 20, "\(file.lastPathComponent): peak RSS \(run.peakRSSBytes >> 20) MiB")
            print("MetadataLimits child \(file.lastPathComponent): peak RSS \(run.peakRSSBytes >> 20) MiB, \(run.stdoutText)")
        }
    }

    @Test("a thumbnail of each hostile file has the picture's size and colours")
    func hostileThumbnailsAreRight() throws {
        for (file, _) in try Self.hostileFiles() {
            for own in [true, false] {
                var options = ThumbnailOptions()
                options.ownDecoders = own
                let thumbnail = try ImageSource(url: file).thumbnail(maxPixelSize: 64, options: options)
                try Self.expectQuadrants(thumbnail, "\(file.lastPathComponent), own decoders \(own)")
            }
        }
    }

    @Test("image(at:) of each hostile file throws limitExceeded naming the limit, before any decoder runs")
    func hostileFullDecodesAreRefused() throws {
        for (file, limit) in try Self.hostileFiles() {
            let source = try ImageSource(url: file)
            let error = #expect(throws: MagickIOError.self) { try source.image(at: 0) }
            #expect(error?.kind == .limitExceeded, "\(file.lastPathComponent): \(String(describing: error))")
            #expect(error?.limit?.name == limit, "\(file.lastPathComponent): \(String(describing: error))")
            let keeping = ThumbnailOptions(metadata: .keepAll)
            let kept = #expect(throws: MagickIOError.self, "a thumbnail that keeps metadata is refused too") {
                try source.thumbnail(maxPixelSize: 64, options: keeping)
            }
            #expect(kept?.kind == .limitExceeded && kept?.limit?.name == limit, "\(file.lastPathComponent): \(String(describing: kept))")
        }
    }

    @Test("a PNG of 100,000 tEXt chunks: refused whole, thumbnailed without them")
    func manyTextChunks() throws {
        let chunks = (0..<100_000).map { MetadataBombs.tEXt("k", "\($0)") }
        let source = try ImageSource(data: MetadataBombs.png(chunks))
        let census = MetadataCensus.take(source.bytes, format: .png, cap: 16 << 20)
        #expect(census.segments == 100_000)
        do {
            _ = try source.image(at: 0)
            Issue.record("decoded")
        } catch let error as MagickIOError {
            #expect(error.limit?.name == "maxFrameCount", "\(error)")
        }
        try Self.expectQuadrants(try source.thumbnail(maxPixelSize: 64), "100,000 tEXt")
    }

    @Test("small zTXt, compressed iTXt and raw-profile chunks add up past the cap")
    func chunksAddUp() throws {
        let options = DecodingOptions(maxMetadataBytes: 4 << 20)
        let variants: [(String, [[UInt8]])] = [
            ("40 zTXt of 128 KiB", (0..<40).map { _ in MetadataBombs.zTXt(inflatingTo: 128 << 10) }),
            ("compressed iTXt", [MetadataBombs.compressedITXt(inflatingTo: 8 << 20)]),
            ("raw profile hex", [MetadataBombs.tEXt("Raw profile type xmp", "\nxmp\n" + String(repeating: "00", count: 3 << 20))]),
        ]
        for (label, chunks) in variants {
            let source = try ImageSource(data: MetadataBombs.png(chunks), options: options)
            do {
                _ = try source.image(at: 0)
                Issue.record("\(label): decoded")
            } catch let error as MagickIOError {
                #expect(error.limit?.name == "maxMetadataBytes", "\(label): \(error)")
            }
            try Self.expectQuadrants(try source.thumbnail(maxPixelSize: 64), label)
            // Under the default cap, the same file is decoded whole.
            #expect(try ImageSource(data: MetadataBombs.png(chunks)).image(at: 0).width == 64, "\(label)")
        }
    }

    @Test("an ICC profile over the cap is left out of a thumbnail, with a warning; keeping it is refused")
    func profileOverTheCap() throws {
        let options = DecodingOptions(maxMetadataBytes: 1 << 20)
        let source = try ImageSource(data: MetadataBombs.png([MetadataBombs.iCCP(inflatingTo: 2 << 20)]), options: options)
        let thumbnail = try source.thumbnail(maxPixelSize: 64)
        try Self.expectQuadrants(thumbnail, "iCCP over the cap")
        #expect(thumbnail.warnings.contains { $0.contains("ICC profile") }, "\(thumbnail.warnings)")
        let kept = #expect(throws: MagickIOError.self) {
            try source.thumbnail(maxPixelSize: 64, options: ThumbnailOptions(colorProfile: .keep))
        }
        #expect(kept?.kind == .limitExceeded && kept?.limit?.name == "maxMetadataBytes", "\(String(describing: kept))")
    }

    @Test("JPEG segments between scans and after the last are counted, and COM segments too")
    func jpegSegmentsEverywhere() throws {
        let base = try MetadataBombs.jpeg()
        let before = MetadataCensus.take(.memory(base), format: .jpeg, cap: 16 << 20)  // ImageMagick's JFIF APP0
        let application = MetadataBombs.segment(0xEB, Array(repeating: 0x41, count: 1000))
        let comment = MetadataBombs.segment(0xFE, Array(repeating: 0x42, count: 500))
        var bytes = [UInt8](base)
        bytes.insert(contentsOf: application + comment, at: bytes.count - 2)  // after the scan, before EOI
        let census = MetadataCensus.take(.memory(Data(bytes)), format: .jpeg, cap: 16 << 20)
        #expect(census.segments == before.segments + 1 && census.bytes == before.bytes + 1500,
                "\(census.segments) segments, \(census.bytes) bytes; \(before.segments) and \(before.bytes) without them (COM counts by its bytes only)")
        let options = DecodingOptions(maxMetadataBytes: 500)
        let source = try ImageSource(data: Data(bytes), options: options)
        let thrown = #expect(throws: MagickIOError.self) { try source.image(at: 0) }
        #expect(thrown?.kind == .limitExceeded && thrown?.limit?.name == "maxMetadataBytes", "\(String(describing: thrown))")
        try Self.expectQuadrants(try source.thumbnail(maxPixelSize: 64), "COM after the scan")
        let progressive = try Fixture.data("progressive.jpg")
        let scans = MetadataCensus.take(.memory(progressive), format: .jpeg, cap: 16 << 20)
        #expect(scans.isComplete, "the walk crosses every scan to EOI")
    }

    @Test("libjpeg's rows are admitted on the census to the first scan; ImageMagick's decode after them takes the whole file's")
    func jpegCensusForLibjpeg() throws {
        let base = try MetadataBombs.jpeg()
        var bytes = [UInt8](base)
        let application = MetadataBombs.segment(0xEB, Array(repeating: 0x41, count: 1000))
        bytes.insert(contentsOf: application + application, at: bytes.count - 2)  // after the scan, before EOI
        let data = Data(bytes)
        let header = MetadataCensus.take(.memory(data), format: .jpeg, cap: 16 << 20, jpegUntilScan: true)
        let whole = MetadataCensus.take(.memory(data), format: .jpeg, cap: 16 << 20)
        #expect(header.isComplete && whole.bytes == header.bytes + 2000 && whole.segments == header.segments + 2,
                "to the scan \(header.bytes) bytes in \(header.segments); to EOI \(whole.bytes) in \(whole.segments)")

        let source = try ImageSource(data: data, options: DecodingOptions(maxMetadataBytes: 1500))
        let own = try source.decoderInput(keeping: .pixelsOnly(profile: false), forLibjpeg: true)
        #expect(own.bytes.count == data.count, "the segments after the scan are libjpeg's to step over")
        let imageMagick = try source.decoderInput(keeping: .pixelsOnly(profile: false))
        #expect(imageMagick.bytes.count == data.count - 2 * application.count, "ImageMagick reads a copy without them")

        // The pipeline: the rows' admission does not stand for the picture's decode after them.
        let inputs = try source.thumbnailPlan(.maxPixelSize(64), at: 0, allowUpscale: false, options: ThumbnailOptions()).inputs
        var picture: DecoderInput?
        var admitted: [(String, Int)] = []
        for input in inputs {
            let admission = try input.admit(ThumbnailOptions(), pictureInput: &picture)
            switch input {
            case .rows: admitted.append(("rows", try admission.approved().bytes.count))
            case .decoded: admitted.append(("decoded", try admission.approved().bytes.count))
            default: break
            }
        }
        #expect(admitted.map(\.0) == ["rows", "decoded"] && admitted.map(\.1) == [data.count, data.count - 2 * application.count],
                "\(admitted)")

        let thumbnail = try source.thumbnail(maxPixelSize: 64)
        #expect(thumbnail.decoder == .libjpeg)
        try Self.expectQuadrants(thumbnail, "APP11 after the scan, own path")
        var options = ThumbnailOptions()
        options.ownDecoders = false
        try Self.expectQuadrants(try source.thumbnail(maxPixelSize: 64, options: options), "APP11 after the scan, ImageMagick")
        let kept = #expect(throws: MagickIOError.self) { try source.image(at: 0) }
        #expect(kept?.kind == .limitExceeded && kept?.limit?.name == "maxMetadataBytes", "\(String(describing: kept))")
    }

    @Test("XMP extended APP1 chains and COM floods are counted by bytes and segments")
    func jpegVariations() throws {
        let xmp = MetadataBombs.segment(0xE1, Array("http://ns.adobe.com/xmp/extension/\0".utf8) + Array(repeating: 0x20, count: 65_000))
        let chain = try MetadataBombs.jpeg(after: Array(repeating: xmp, count: 300))
        let source = try ImageSource(data: chain)
        do {
            _ = try source.image(at: 0)
            Issue.record("decoded")
        } catch let error as MagickIOError {
            #expect(error.limit?.name == "maxMetadataBytes", "\(error)")
        }
        try Self.expectQuadrants(try source.thumbnail(maxPixelSize: 64), "XMP extended chain")
        let comments = try MetadataBombs.jpeg(after: Array(repeating: MetadataBombs.segment(0xFE, [0x41]), count: 5000))
        try Self.expectQuadrants(try ImageSource(data: comments).thumbnail(maxPixelSize: 64), "5000 COM")
    }

    @Test("an ordinary file keeps its metadata whole, and its colours in a thumbnail")
    func ordinaryFilesUntouched() throws {
        let gps = try Fixture.source("gps.jpg")
        #expect(try gps.decoderInput(keeping: .all).warnings.isEmpty)
        let exif = try ImageSource(data: gps.image(at: 0).encoded(as: .jpeg(quality: 90))).properties(at: 0).exif
        #expect(exif["Make"] == "MagickIO")
        let adobe = try Fixture.source("adobe-rgb.jpg")
        guard case .file = try adobe.decoderInput(keeping: .pixelsOnly(profile: false)).bytes else {
            Issue.record("an ordinary file was copied")
            return
        }
        let converted = try adobe.thumbnail(maxPixelSize: 32).pixels(.rgba8).rgba(x: 16, y: 16)
        #expect(converted.r < 8 && abs(Int(converted.g) - 181) < 4, "the profile still applies: \(converted)")
    }

    @Test("a GIF comment is counted a sub-block at a time, and left out of a thumbnail")
    func gifComments() throws {
        let small = try ImageSource(data: MetadataBombs.gif(commentBlocks: 3))
        #expect(MetadataCensus.take(small.bytes, format: .gif, cap: 16 << 20).segments == 3)
        #expect(try small.image(at: 0).width == 1)
        let long = try ImageSource(data: MetadataBombs.gif(commentBlocks: 2000))
        do {
            _ = try long.image(at: 0)
            Issue.record("decoded")
        } catch let error as MagickIOError {
            #expect(error.limit?.name == "maxFrameCount", "\(error)")
        }
        let thumbnail = try long.thumbnail(maxPixelSize: 8)
        #expect(thumbnail.width == 1)
        #expect(try thumbnail.pixels(.rgba8).rgba(x: 0, y: 0).r > 200)
    }

    @Test("the census of ordinary files finds their EXIF and ICC")
    func ordinaryCensus() throws {
        for name in ["adobe-rgb.jpg", "own-icc.png", "gps.jpg", "orient-6.webp", "phone-12mp.heic", "adobe-rgb-item.heic"] {
            let source = try Fixture.source(name)
            let census = MetadataCensus.take(source.bytes, format: source.format, cap: 16 << 20)
            #expect(census.segments >= 1 && census.bytes > 0 && census.isComplete, "\(name): \(census.segments), \(census.bytes)")
            #expect(census.excess(source.decodingOptions) == nil, "\(name)")
        }
    }
}
