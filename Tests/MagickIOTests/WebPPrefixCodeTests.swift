import Foundation
import Testing
@_spi(Calibration) @testable import MagickIO

/// Issue 28, item 4: libwebp allocates the tables of every prefix code group a VP8L stream's
/// entropy image names before it decodes a pixel. MagickIO reads the stream to its entropy image
/// (``VP8LPrefixCodes``), counts the groups in the estimate, and assumes the worst case for the
/// size when it cannot read the stream; every stream libwebp's encoder writes is read.
@Suite("WebP prefix code groups")
struct WebPPrefixCodeTests {
    /// The prefix codes of each VP8L stream of a WebP (a `VP8L` chunk, a VP8L-compressed `ALPH`
    /// chunk) as the reader gives them, nil where it could not read one.
    static func streams(_ data: Data) -> [VP8LPrefixCodes?] {
        let bytes = SourceBytes.memory(data)
        var reader = ByteReader(bytes)
        let canvas = ImageHeader.parse(bytes, format: .webp, index: nil)
        var found: [VP8LPrefixCodes?] = []
        RIFFChunks.walk(&reader) { reader, chunk in
            if chunk.id == "VP8L", let head = reader.bytes(at: chunk.data.lowerBound, 5) {
                let bits = head.u32le(at: 1)
                found.append(VP8LPrefixCodes.read(reader, from: chunk.data.lowerBound + 5, to: chunk.data.upperBound,
                                                  width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1))
            }
            if chunk.id == "ALPH", reader.u8(at: chunk.data.lowerBound).map({ $0 & 3 }) == 1, let canvas {
                found.append(VP8LPrefixCodes.read(reader, from: chunk.data.lowerBound + 1, to: chunk.data.upperBound,
                                                  width: canvas.width, height: canvas.height))
            }
            return true
        }
        return found
    }

    static func codes(_ url: URL) throws -> VP8LPrefixCodes? {
        ImageHeader.parse(.memory(try Data(contentsOf: url)), format: .webp, index: nil)?.vp8lCodes
    }

    @Test("the group count is read from the entropy image: 300, and 65,536 in a lossless image and in an alpha plane")
    func groupCounts() throws {
        let small = try #require(try Self.codes(HostileFixtures.url("webp-lossless-groups-300.webp")))
        #expect(small == VP8LPrefixCodes(groups: 300, colorCacheBits: 0, entropyPixels: 25 * 25))
        for name in ["webp-lossless-groups-65536.webp", "webp-lossy-alpha-groups-65536.webp"] {
            let flood = try #require(try Self.codes(HostileFixtures.url(name)))
            #expect(flood == VP8LPrefixCodes(groups: 65_536, colorCacheBits: 0, entropyPixels: 256 * 256), "\(name)")
            // libwebp 1.2.4 and 1.5: 2,954 entries of 4 bytes and a 568-byte group a group.
            let perGroup: Int = 2_954 * 4 + 568
            #expect(flood.bytes == 65_536 * perGroup + 65_536 * 4)
        }
    }

    /// Group counts and cache bits of the committed fixtures (cwebp's and ImageMagick's), as
    /// libwebp 1.2.4's table allocation under dwebp shows them (`groups x kTableSize[cache bits]
    /// x 4` bytes, seen through a malloc logger).
    @Test("the committed lossless fixtures' group counts are libwebp's", arguments: [
        ("webp-lossless-groups.webp", 2, 10), ("webp-lossless.webp", 1, 0), ("webp-lossless-alpha.webp", 1, 0),
        ("webp-lossy-alpha.webp", 1, 0), ("orient-1.webp", 1, 0),
    ])
    func fixtureGroups(name: String, groups: Int, cacheBits: Int) throws {
        let codes = try #require(try Self.codes(Fixture.url(name)))
        #expect(codes.groups == groups && codes.colorCacheBits == cacheBits, "\(name): \(codes)")
        #expect(Self.streams(try Data(contentsOf: Fixture.url(name))).allSatisfy { $0 != nil }, "\(name) read to its end")
    }

    @Test("every lossless stream libwebp's encoder writes is read: methods 0-6, presets 0-9, near-lossless, exact, palettes, alpha",
          .timeLimit(.minutes(5)))
    func encoderOutputReads() {
        let samples = LosslessWebPs.all()
        #expect(samples.count >= 7 * 21)
        for sample in samples {
            let streams = Self.streams(sample.bytes)
            #expect(!streams.isEmpty && streams.allSatisfy { $0 != nil }, "\(sample.name): \(streams)")
        }
    }

    @Test("a photo's lossless estimate moves by under 2% with its groups counted, at every method")
    func ordinaryEstimates() throws {
        let rgba = LosslessWebPs.picture("photo", width: 1024, height: 768)
        for method in [0, 3, 6] {
            let sample = try #require(LosslessWebPs.encode(rgba, 1024, 768, "photo-m\(method)") {
                $0.lossless = 1; $0.method = Int32(method)
            }.first)
            let header = try #require(ImageHeader.parse(.memory(sample.bytes), format: .webp, index: nil))
            let codes = try #require(header.vp8lCodes)
            let estimate = DecodeEstimate(format: .webp, header: header, width: 1024, height: 768, jpegHint: nil)
            print("lossless photo 1024x768 -m \(method): \(codes.groups) groups, \(codes.colorCacheBits) cache bits, "
                  + "\(codes.bytes >> 10) KiB of \(estimate.bytes >> 10) KiB")
            #expect(codes.bytes * 50 < estimate.bytes, "\(sample.name): \(codes)")
        }
    }

    @Test("a stream cut inside its entropy image is costed as its size's worst case")
    func cutStream() throws {
        var data = try Data(contentsOf: HostileFixtures.url("webp-lossless-groups-300.webp"))
        data = data.prefix(900)
        data.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(data.count - 8).littleEndian) { Data($0) })
        data.replaceSubrange(16..<20, with: withUnsafeBytes(of: UInt32(data.count - 20).littleEndian) { Data($0) })
        #expect(Self.streams(data) == [nil])
        let header = try #require(ImageHeader.parse(.memory(data), format: .webp, index: nil))
        #expect(header.vp8lCodes == .worstCase(width: 100, height: 100))
        #expect(VP8LPrefixCodes.worstCase(width: 1024, height: 1024).groups == 65_536)
        #expect(VP8LPrefixCodes.worstCase(width: 16, height: 16).groups == 256, "up to 1,000 groups a small image may name")
        let unknown = DecodeEstimate(format: .webp, header: nil, width: 1024, height: 1024, jpegHint: nil)
        #expect(unknown.bytes > 1 << 30, "an unread 1024x1024 WebP is costed as 65,536 groups of 11 cache bits")
    }

    @Test("the 65,536-group flood is refused by the default budget, as a lossless image and as an alpha plane")
    func floodRefused() throws {
        for name in ["webp-lossless-groups-65536.webp", "webp-lossy-alpha-groups-65536.webp"] {
            var options = DecodingOptions()
            options.isolation = .inProcess
            let source = try ImageSource(url: try HostileFixtures.url(name), options: options)
            #expect(source.estimatedDecodeBytes(at: 0) > 800 << 20)
            do {
                _ = try source.thumbnail(maxPixelSize: 256)
                Issue.record("\(name) was thumbnailed")
            } catch let error as MagickIOError {
                #expect(error.kind == .limitExceeded, "\(name): \(error)")
                #expect(error.limit?.name == "memoryBudget", "\(name): \(error)")
            }
        }
    }
}
