import Foundation
import Testing
@testable import MagickIO

/// The decode cost model is an upper bound, per format, calibrated by measurement: each allowed
/// format is decoded at three sizes in a child process (`DecodeProbe`), and the estimate must be at
/// least the peak growth of its resident set and at most three times it. Where the header cannot
/// be read, the guard assumes the costly case.
@Suite("Cost model", .serialized)
struct CostModelTests {
    static let sizes = [(816, 612), (1632, 1224), (2304, 1728)]

    struct Probe: Decodable {
        var estimate: Int
        var growth: Int
    }

    static func probe(_ file: URL, thumbnail: Int? = nil) throws -> Probe {
        let run = try runChild(try builtProduct("DecodeProbe"), [file.path] + (thumbnail.map { ["\($0)"] } ?? []),
                               timeout: .seconds(600))
        guard run.status == 0 else {
            throw LargeImages.GenerationError(description: "DecodeProbe \(file.lastPathComponent): \(String(decoding: run.stdout, as: UTF8.self))")
        }
        return try JSONDecoder().decode(Probe.self, from: run.stdout)
    }

    @Test("the estimate bounds the measured peak from above, within 3x, for every format at three sizes",
          .enabled(if: !runningUnderSanitizer, "resident sets are meaningless under a sanitizer's shadow memory"),
          .timeLimit(.minutes(10)), arguments: CalibrationImages.Kind.allCases)
    func calibration(kind: CalibrationImages.Kind) throws {
        for (width, height) in Self.sizes {
            let file = try CalibrationImages.file(kind, width: width, height: height)
            let probe = try Self.probe(file)
            let ratio = Double(probe.estimate) / Double(max(probe.growth, 1))
            print("calibration \(kind.rawValue) \(width)x\(height): estimate \(probe.estimate >> 10) KiB, measured \(probe.growth >> 10) KiB, ratio \(String(format: "%.2f", ratio))")
            #expect(probe.estimate >= probe.growth, "\(kind) \(width)x\(height): estimate \(probe.estimate) below the measured \(probe.growth)")
            #expect(ratio <= 3, "\(kind) \(width)x\(height): estimate \(probe.estimate) over 3x the measured \(probe.growth)")
        }
    }

    @Test("a thumbnail's estimate bounds its decode too (JPEG at its DCT scale; JPEG, PNG, HEIC and AVIF streamed)",
          .enabled(if: !runningUnderSanitizer, "resident sets are meaningless under a sanitizer's shadow memory"),
          .timeLimit(.minutes(10)), arguments: [CalibrationImages.Kind.jpegBaseline, .jpegProgressive, .png, .heic, .avif])
    func thumbnailCalibration(kind: CalibrationImages.Kind) throws {
        let (width, height) = Self.sizes[2]
        let probe = try Self.probe(try CalibrationImages.file(kind, width: width, height: height), thumbnail: 256)
        #expect(probe.estimate >= probe.growth, "\(kind): estimate \(probe.estimate) below the measured \(probe.growth)")
    }

    @Test("a phone grid's thumbnail estimate counts a row of tiles and bounds its decode",
          .enabled(if: !runningUnderSanitizer, "resident sets are meaningless under a sanitizer's shadow memory"),
          .timeLimit(.minutes(10)))
    func phoneGridCalibration() throws {
        let probe = try Self.probe(Fixture.url("phone-48mp-grid.heic"), thumbnail: 256)
        print("calibration phone-48mp-grid.heic thumbnail: estimate \(probe.estimate >> 10) KiB, measured \(probe.growth >> 10) KiB")
        #expect(probe.estimate >= probe.growth, "estimate \(probe.estimate) below the measured \(probe.growth)")
        #expect(probe.estimate <= 64 << 20, "estimate \(probe.estimate >> 20) MiB for a row of 16 tiles")
    }

    @Test("a header MagickIO cannot read makes the guard assume the costliest case for the format")
    func failClosed() {
        let unknown = DecodeEstimate(format: .jpeg, header: nil, width: 10_000, height: 10_000, jpegHint: nil)
        let baseline = DecodeEstimate(format: .jpeg, header: ImageHeader(width: 10_000, height: 10_000), width: 10_000,
                                      height: 10_000, jpegHint: nil)
        var progressive = ImageHeader(width: 10_000, height: 10_000, components: 4, isProgressive: true)
        progressive.samplesPerPixel = 4
        let costliest = DecodeEstimate(format: .jpeg, header: progressive, width: 10_000, height: 10_000, jpegHint: nil)
        #expect(unknown.bytes == costliest.bytes)
        #expect(unknown.bytes > baseline.bytes * 2)
        let png = DecodeEstimate(format: .png, header: nil, width: 10_000, height: 10_000, jpegHint: nil)
        var interlaced = ImageHeader(width: 10_000, height: 10_000, components: 4, hasAlpha: true, bitDepth: 16)
        interlaced.isInterlaced = true
        #expect(png.bytes == DecodeEstimate(format: .png, header: interlaced, width: 10_000, height: 10_000, jpegHint: nil).bytes)
    }

    @Test("a 100 MP progressive JPEG with padding before its frame header is refused by the default budget, in little memory",
          .timeLimit(.minutes(10)))
    func paddedProgressiveRefused() throws {
        let plain = try LargeImages.cached("100mp-progressive.jpg") {
            try LargeImages.writeJPEG(to: $0, width: 10_000, height: 10_000, quality: 90, progressive: true)
        }
        let padded = try LargeImages.cached("100mp-progressive-padded.jpg") { url in
            var bytes = try Data(contentsOf: plain)
            let sof = try #require(bytes.firstRange(of: Data([0xFF, 0xC2]))).lowerBound
            var padding = Data()
            for _ in 0..<2000 { padding += Data([0xFF, 0xFE, 0x00, 0x10]) + Data(repeating: 0x2E, count: 14) }
            padding += Data(repeating: 0xFF, count: 50_000)
            bytes.insert(contentsOf: padding, at: sof)
            try bytes.write(to: url)
        }
        let source = try ImageSource(url: padded)
        #expect(source.header?.isProgressive == true, "the walk reaches the frame header")
        do {
            _ = try source.thumbnail(maxPixelSize: 256)
            Issue.record("a 100 MP progressive JPEG went past the 256 MiB budget")
        } catch let error as MagickIOError {
            #expect(error.kind == .limitExceeded)
            #expect(error.limit?.name == "memoryBudget", "\(error)")
        }
        let run = try MemoryTests.thumbnail(padded)
        #expect(run.status == 1)
        #expect((run.json["error"] as? [String: Any])?["kind"] as? String == "limitExceeded", "\(run.json)")
        #expect(run.peakRSS <= 64 << 20 || runningUnderSanitizer, "peak RSS \(run.peakRSS >> 20) MiB")
    }
}
