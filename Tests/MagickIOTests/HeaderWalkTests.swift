import Foundation
import Testing
@testable import MagickIO

/// The container walkers, on hand-made bytes: bounded by bytes, never trapping, and accepting what
/// the real decoders accept.
@Suite("Header walkers")
struct HeaderWalkTests {
    /// SOI, then `before`, then a baseline SOF of 640x480 with three 4:2:0 components, then SOS.
    static func jpeg(_ before: [UInt8], code: UInt8 = 0xC0) -> [UInt8] {
        [0xFF, 0xD8] + before + [0xFF, code, 0x00, 0x11, 8, 0x01, 0xE0, 0x02, 0x80, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
            + [0xFF, 0xDA, 0x00, 0x0C, 3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0]
    }

    static func walk(_ bytes: [UInt8]) -> Result<JPEGSegments.Frame, JPEGSegments.Failure> {
        var reader = ByteReader(.memory(Data(bytes)))
        return JPEGSegments.frame(in: &reader)
    }

    @Test("a JPEG frame header is found with its size, progression and sampling")
    func jpegFrame() throws {
        let frame = try Self.walk(Self.jpeg([])).get()
        #expect(frame.width == 640 && frame.height == 480 && frame.precision == 8)
        #expect(!frame.isProgressive)
        #expect(frame.sampling.map(\.horizontal) == [2, 1, 1] && frame.sampling.map(\.vertical) == [2, 1, 1])
        #expect(frame.componentIDs == [1, 2, 3])
        #expect(try Self.walk(Self.jpeg([], code: 0xC2)).get().isProgressive)
    }

    @Test("any number of segments, fill bytes and extraneous bytes may come before the frame header, as libjpeg reads them")
    func jpegPadding() throws {
        var before: [UInt8] = []
        for _ in 0..<20_000 { before += [0xFF, 0xFE, 0x00, 0x04, 0x41, 0x42] }  // comments
        before += [UInt8](repeating: 0xFF, count: 100_000) + [0xE1, 0x00, 0x02]  // fill bytes, then an empty APP1
        before += [0x00, 0x13, 0x37]  // extraneous bytes (libjpeg warns and skips them)
        before += [0xFF, 0x00]  // a stuffed zero outside a scan: skipped too
        #expect(try Self.walk(Self.jpeg(before)).get().width == 640)
    }

    @Test("each segment before the frame header is handed over, with its payload")
    func jpegVisit() throws {
        var reader = ByteReader(.memory(Data(Self.jpeg([0xFF, 0xE1, 0x00, 0x08] + Array("Exif\0\0".utf8)))))
        var seen: [(UInt8, Range<Int>)] = []
        _ = JPEGSegments.frame(in: &reader) { _, segment in seen.append((segment.code, segment.payload)) }
        #expect(seen.count == 1 && seen[0].0 == 0xE1 && seen[0].1 == 6..<12)
    }

    @Test("a JPEG walk fails, never traps, on what libjpeg refuses too")
    func jpegFailures() {
        #expect(Self.walk([0x89, 0x50]).failure == .notJPEG)
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02]).failure == .noFrameHeader)
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xD9]).failure == .noFrameHeader)
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]).failure == .malformed)
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]).failure == .truncated)
        #expect(Self.walk(Array(Self.jpeg([]).prefix(12))).failure == .truncated)
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x08, 8, 0, 1, 0, 1, 0]).failure == .malformed, "no components")
    }

    /// A little-endian TIFF of `pages` one-entry-short directories (width, height, samples, extra).
    static func tiff(big: Bool = false, pages: [(samples: Int, extra: Int)], loop: Bool = false) -> [UInt8] {
        func le(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(value >> (8 * $0) & 0xFF) } }
        let offsetSize = big ? 8 : 4, countSize = big ? 8 : 2, entrySize = big ? 20 : 12
        var bytes: [UInt8] = Array("II".utf8) + (big ? le(43, 2) + le(8, 2) + le(0, 2) + le(16, 8) : le(42, 2) + le(8, 4))
        var directories: [Int] = []
        for page in pages {
            directories.append(bytes.count)
            let entries = [(256, 3, 1, 300), (257, 3, 1, 200), (277, 3, 1, page.samples), (338, 3, page.extra, 2)]
                .filter { $0.0 != 338 || page.extra > 0 }
            bytes += le(entries.count, countSize)
            for (tag, type, count, value) in entries {
                bytes += le(tag, 2) + le(type, 2) + le(count, offsetSize) + le(value, offsetSize)
            }
            bytes += le(0, offsetSize)  // next, patched below
        }
        for (index, directory) in directories.enumerated() {
            let entries = Int(bytes[directory])
            let at = directory + countSize + entries * entrySize
            let next = index + 1 < directories.count ? directories[index + 1] : loop ? directories[0] : 0
            bytes.replaceSubrange(at..<at + offsetSize, with: le(next, offsetSize))
        }
        return bytes
    }

    @Test("TIFF and BigTIFF directories give the size and each page's alpha; a looping chain ends the walk")
    func tiffPages() throws {
        for big in [false, true] {
            var reader = ByteReader(.memory(Data(Self.tiff(big: big, pages: [(4, 1), (3, 0), (2, 1)]))))
            let header = try #require(TIFFHeader.parse(&reader), "big: \(big)")
            #expect(header.width == 300 && header.height == 200)
            #expect(header.pageAlpha == [true, false, true])
        }
        var looping = ByteReader(.memory(Data(Self.tiff(pages: [(3, 0), (4, 1)], loop: true))))
        #expect(TIFFHeader.parse(&looping)?.pageAlpha == [false, true])
        var garbage = ByteReader(.memory(Data([0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F])))
        #expect(TIFFHeader.parse(&garbage) == nil)
    }

    @Test("the byte reader answers nil past the end, through its window and around it")
    func byteReader() {
        let data = Data((0..<200_000).map { UInt8($0 % 251) })
        var reader = ByteReader(.memory(data))
        #expect(reader.u8(at: 199_999) == UInt8(199_999 % 251))
        #expect(reader.u8(at: 200_000) == nil && reader.u8(at: -1) == nil)
        #expect(reader.bytes(at: 65_530, 10) == Array(data[65_530..<65_540]))
        #expect(reader.bytes(at: 100, 100_000)?.count == 100_000)
        #expect(reader.bytes(at: 199_995, 10) == nil)
        #expect(reader.bytes(at: Int.max - 2, 4) == nil)
        #expect(reader.u32be(at: 0) == 0x0001_0203)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
