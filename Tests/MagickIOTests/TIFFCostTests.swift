import Foundation
import Testing
@testable import MagickIO

/// A TIFF's decode costs what its storage makes ImageMagick's coder and libtiff allocate (strips,
/// tiles or the whole image; samples, depth, predictor: ``TIFFLayout``), not a fixed figure a
/// pixel: each layout decoded in a child is bounded by its estimate, and the layouts that cost a
/// gigabyte from a 500 KB file are refused before anything is decoded.
@Suite("TIFF decode cost", .serialized)
struct TIFFCostTests {
    @Test("the estimate bounds the measured peak of each storage layout (decoded whole in a child), within 3x",
          .enabled(if: !runningUnderSanitizer, "resident sets are meaningless under a sanitizer's shadow memory"),
          .timeLimit(.minutes(10)),
          arguments: [("float64-extra", 800, 600), ("rgba16-strip", 1600, 1200), ("rgb8-strip", 1600, 1200),
                      ("rgb8-generic", 1600, 1200), ("rgb8-tiled", 1600, 1200), ("rgba16-planar", 1600, 1200),
                      ("gray32f-pred3", 1600, 1200)])
    func layoutCalibration(layout: String, width: Int, height: Int) throws {
        let file = try CostFixtures.tiff(layout, width: width, height: height)
        let probe = try CostModelTests.probe(file)
        // ImageMagick 7's pixel cache holds 2 bytes for each sample the image has (6 a pixel for
        // RGB, 2 for grey), 6.9.11's 8 whatever it has; the estimate counts 8 on both lines. So
        // the tightness is judged on the growth with 6.9.11's cache (the bound itself on the
        // growth measured).
        let samples = try #require(try ImageSource(url: file).header?.tiffPages.first).samplesPerPixel
        let cacheShortfall = runningImageMagick7 ? width * height * max(0, 8 - 2 * samples) : 0
        let ratio = Double(probe.estimate) / Double(max(probe.growth + cacheShortfall, 1))
        print("tiff \(layout) \(width)x\(height): estimate \(probe.estimate >> 10) KiB, measured \(probe.growth >> 10) KiB, ratio \(String(format: "%.2f", ratio))")
        #expect(probe.estimate >= probe.growth, "\(layout): estimate \(probe.estimate) below the measured \(probe.growth)")
        #expect(ratio <= 3, "\(layout): estimate \(probe.estimate) over 3x the measured \(probe.growth)")
    }

    @Test("the walker reads each layout's samples, depth, format, planes, strips, tiles and predictor")
    func layoutsRead() throws {
        func page(_ layout: String) throws -> TIFFLayout {
            let header = try #require(try ImageSource(url: CostFixtures.tiff(layout, width: 300, height: 200)).header)
            return try #require(header.tiffPages.first)
        }
        let float = try page("float64-extra")
        #expect(float.samplesPerPixel == 16 && float.bitsPerSample == 64 && float.sampleFormat == 3)
        #expect(float.rowsPerStrip == 200 && float.method == .strip && float.compression == 8)
        let planar = try page("rgba16-planar")
        #expect(planar.isPlanar && planar.rowsPerStrip == 16 && planar.bitsPerSample == 16)
        #expect(try page("rgb8-generic").method == .generic)
        let tiled = try page("rgb8-tiled")
        #expect(tiled.method == .tile && tiled.tile == TIFFLayout.Tile(width: 256, height: 256))
        #expect(try page("gray32f-pred3").predictor == 3)
        // Sixteen float64 samples in one strip: twice the strip (the coder's buffer) and more.
        #expect(float.coderBytes >= 2 * 300 * 200 * 16 * 8)
    }

    @Test("a page whose layout cannot be read is costed as the costliest layout")
    func unreadableLayoutIsCostliest() throws {
        var bytes = [UInt8](try Data(contentsOf: CostFixtures.tiff("rgba16-planar", width: 64, height: 48)))
        // BitsPerSample's four values lie out of line: point them past the end of the file.
        let ifd = bytes.u32le(at: 4), count = bytes.u16le(at: ifd)
        let entry = try #require((0..<count).map { ifd + 2 + 12 * $0 }.first { bytes[$0] == 0x02 && bytes[$0 + 1] == 0x01 })
        bytes.replaceSubrange((entry + 8)..<(entry + 12), with: [0xF0, 0xFF, 0xFF, 0x0F])
        let pages = TIFFLayout.pages(in: try #require(TIFFIndex(.memory(Data(bytes)))))
        #expect(pages == [TIFFLayout.costliest(width: 64, height: 48)])
        // Without a header at all, the estimate is the costliest layout's too: far above a plain one's.
        var plain = ImageHeader(width: 4000, height: 3000)
        plain.tiffPages = [TIFFLayout(width: 4000, height: 3000, bitsPerSample: 8, samplesPerPixel: 3, rowsPerStrip: 16)]
        let unknown = DecodeEstimate(format: .tiff, header: nil, width: 4000, height: 3000, jpegHint: nil)
        let known = DecodeEstimate(format: .tiff, header: plain, width: 4000, height: 3000, jpegHint: nil)
        #expect(unknown.bytes > known.bytes * 10)
        #expect(unknown.bytes > TIFFLayout.costliest(width: 4000, height: 3000).coderBytes)
    }

    /// (A 16-bit RGBA page in one strip, which ImageMagick's path refuses as well, streams through
    /// libtiff instead: OwnTIFFDecoderTests.)
    @Test("a 500 KB TIFF of 16 float64 samples in one strip is refused by the default budget before decoding, in little memory",
          .timeLimit(.minutes(10)), arguments: [("float64-extra", 2000, 2000)])
    func hostileLayoutsRefused(layout: String, width: Int, height: Int) throws {
        let file = try CostFixtures.tiff(layout, width: width, height: height)
        let source = try ImageSource(url: file)
        let thrown = #expect(throws: MagickIOError.self) { _ = try source.thumbnail(maxPixelSize: 256) }
        #expect(thrown?.kind == .limitExceeded, "\(String(describing: thrown))")
        let run = try MemoryTests.thumbnail(file)
        #expect(run.status == 1, "\(run.json)")
        let error = run.json["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "limitExceeded", "\(run.json)")
        #expect((error?["message"] as? String)?.contains("memoryBudget") == true, "\(run.json)")
        #expect(run.peakRSS <= 64 << 20 || runningUnderSanitizer, "peak RSS \(run.peakRSS >> 20) MiB")
    }

    @Test("the TIFF fixtures still decode at the default settings, every page of pages.tif included")
    func fixturesUnchanged() throws {
        let names = (1...8).map { "orient-\($0).tif" } + ["tiff-alpha-assoc-8-contig.tif", "tiff-alpha-unassoc-16-planar.tif", "bigtiff.tif"]
        for name in names {
            let thumbnail = try Fixture.source(name).thumbnail(maxPixelSize: 32)
            #expect(max(thumbnail.width, thumbnail.height) == 32, "\(name)")
        }
        let pages = try Fixture.source("pages.tif")
        #expect(pages.header?.tiffPages.count == pages.count)
        for index in 0..<pages.count {
            _ = try pages.image(at: index)
        }
    }
}
