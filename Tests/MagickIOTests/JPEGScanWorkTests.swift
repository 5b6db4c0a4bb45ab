import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// A JPEG's CPU cost is its scans' blocks: the walker counts every scan to EOI (over stuffed
/// bytes and restart markers) and the blocks of the components in each, and a file asking more
/// than ``JPEGSegments/maxBlockScans`` of libjpeg is refused before either decoder starts.
@Suite("JPEG scan work")
struct JPEGScanWorkTests {
    static func work(_ url: URL) throws -> JPEGSegments.ScanWork {
        let bytes = SourceBytes.memory(try Data(contentsOf: url))
        var reader = ByteReader(bytes)
        guard case .success(let frame) = JPEGSegments.frame(in: &reader) else {
            throw LargeImages.GenerationError(description: "no frame header in \(url.lastPathComponent)")
        }
        return JPEGSegments.scanWork(in: bytes, after: frame)
    }

    @Test("a sequential JPEG whose first scan names every component decodes that scan alone and is not walked further")
    func oneScanFiles() throws {
        func decodesOneScan(_ bytes: [UInt8]) throws -> Bool {
            let source = SourceBytes.memory(Data(bytes))
            var reader = ByteReader(source)
            let frame = try JPEGSegments.frame(in: &reader).get()
            return JPEGSegments.decodesOneScan(in: source, frame: frame)
        }
        // HeaderWalkTests.jpeg: three components, then a scan of all three.
        #expect(try decodesOneScan(HeaderWalkTests.jpeg([])))
        #expect(try !decodesOneScan(HeaderWalkTests.jpeg([], code: 0xC2)), "progressive: every scan counts")
        // The same frame whose first scan names one component: libjpeg buffers for more scans.
        var single = HeaderWalkTests.jpeg([])
        let sos = try #require(single.indices.first { single[$0] == 0xFF && single[$0 + 1] == 0xDA })
        single.replaceSubrange(sos..<single.count, with: [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 0x3F, 0])
        #expect(try !decodesOneScan(single))
        #expect(try decodesOneScan(Data(contentsOf: Fixture.url("photo.jpg")).map { $0 }))
        #expect(try !decodesOneScan(Data(contentsOf: Fixture.url("progressive.jpg")).map { $0 }))
    }

    @Test("every scan is counted with the blocks of its components, past stuffed bytes and restart markers")
    func walkerCounts() throws {
        // 64x64 4:2:0: 4x4 MCUs of four luma and two chroma blocks.
        let repeated = try Self.work(CostFixtures.jpegScans(["-a", "-c", "3", "64", "64", "37"], name: "scans-a-420-64-37.jpg"))
        #expect(repeated == JPEGSegments.ScanWork(scans: 37, blockScans: 37 * 96))
        // libjpeg's standard script over noise (Huffman, FF 00 everywhere, a restart marker every
        // MCU row): 10 scans; in 4:4:4, 14 component-scans of 64 blocks.
        let standard = try Self.work(CostFixtures.jpegScans(["-p", "-c", "3", "-s", "-r", "1", "64", "64"], name: "scans-p-444-64.jpg"))
        #expect(standard == JPEGSegments.ScanWork(scans: 10, blockScans: 14 * 64))
        let subsampled = try Self.work(CostFixtures.jpegScans(["-p", "-c", "3", "-r", "1", "64", "64"], name: "scans-p-420-64.jpg"))
        #expect(subsampled == JPEGSegments.ScanWork(scans: 10, blockScans: 2 * 96 + 4 * 64 + 4 * 16))
        let fixture = try Self.work(Fixture.url("progressive.jpg"))
        #expect(fixture.scans >= 2 && fixture.blockScans > 0)
        // Cut short, the walk counts what is there and never traps.
        let whole = try Data(contentsOf: CostFixtures.jpegScans(["-p", "-c", "3", "-s", "-r", "1", "64", "64"], name: "scans-p-444-64.jpg"))
        var reader = ByteReader(.memory(whole))
        guard case .success(let frame) = JPEGSegments.frame(in: &reader) else { Issue.record("no frame"); return }
        for end in stride(from: frame.segmentEnd, to: whole.count, by: 97) {
            #expect(JPEGSegments.scanWork(in: .memory(whole.prefix(end)), after: frame).scans <= 10)
        }
    }

    @Test("the largest legitimate progressive JPEGs (268 MP, libjpeg's standard script) pass with room")
    func legitimateWorkPasses() throws {
        // Per block position the standard script is 14 component-scans in 4:4:4 (checked above on
        // a real file); 16383x16383 has 2048x2048 blocks a component: twice that still passes.
        #expect(2 * 14 * 2048 * 2048 <= JPEGSegments.maxBlockScans)
        let file = try CostFixtures.jpegScans(["-p", "-c", "3", "-s", "3000", "2000"], name: "scans-p-444-3000x2000.jpg")
        let thumbnail = try ImageSource(url: file).thumbnail(maxPixelSize: 64)
        #expect(thumbnail.width == 64 && thumbnail.height == 43)
        #expect(try Fixture.source("progressive.jpg").thumbnail(maxPixelSize: 64).width == 64)
    }

    @Test("1,500 arithmetic-coded DC scans over 8800x8800 (a 20 KB file) are refused on both paths before decoding, in little memory",
          .timeLimit(.minutes(10)))
    func manyScansRefused() throws {
        let file = try CostFixtures.jpegScans(["-a", "8800", "8800", "1500"], name: "scans-a-gray-8800-1500.jpg")
        let source = try ImageSource(url: file)
        var imageMagick = ThumbnailOptions()
        imageMagick.ownDecoders = false
        for options in [ThumbnailOptions(), imageMagick] {
            do {
                _ = try source.thumbnail(maxPixelSize: 256, options: options)
                Issue.record("thumbnailed (own decoders: \(options.ownDecoders))")
            } catch let error as MagickIOError {
                #expect(error.kind == .limitExceeded && error.limit?.name == "jpegScanWork", "\(error)")
                #expect(error.limit?.requested == 1500 * 1100 * 1100)
            }
        }
        let thrown = #expect(throws: MagickIOError.self) { _ = try source.image(at: 0) }
        #expect(thrown?.kind == .limitExceeded && thrown?.limit?.name == "jpegScanWork", "\(String(describing: thrown))")
        let run = try MemoryTests.thumbnail(file)
        #expect(run.status == 1)
        let error = run.json["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "limitExceeded", "\(run.json)")
        #expect((error?["message"] as? String)?.contains("jpegScanWork") == true, "\(run.json)")
        #expect(run.peakRSS <= 64 << 20 || runningUnderSanitizer, "peak RSS \(run.peakRSS >> 20) MiB")
    }

    @Test("repeated scans under the limit are decoded")
    func someScansDecoded() throws {
        let file = try CostFixtures.jpegScans(["-a", "-c", "3", "256", "256", "40"], name: "scans-a-420-256-40.jpg")
        let thumbnail = try ImageSource(url: file).thumbnail(maxPixelSize: 64)
        #expect(thumbnail.width == 64 && thumbnail.height == 64)
    }
}
