import Dispatch
import Foundation
import Synchronization
import Testing
@testable import MagickIO
import Glibc

// MARK: - The corpus

/// One input of the corpus.
struct CorpusItem: Sendable {
    /// `<fixture>/<mutation>`, e.g. `photo.jpg/flip#17`.
    var name: String
    /// The fixture it was made from (for the per-source summary).
    var origin: String
    var data: Data
    /// Also opened from a file of this name (written in the run's directory), not only from memory.
    var fileName: String?
}

enum Corpus {
    static let fixtures = ["photo.jpg", "progressive.jpg", "orient-6.jpg", "photo.png", "alpha.png", "animated.gif", "quadrants.webp", "orient-6.tif",
                           "embedded-thumbnail.jpg", "embedded-thumbnail.heic", "embedded-thumbnail.avif"]
    /// Truncation offsets spread evenly over each file (plus every offset in the first 64 bytes).
    static let spreadTruncations = 100
    /// Bit-flip variants per fixture, each with 1...8 flipped bits.
    /// (With these counts the corpus runs in 8-15 s on 2 cores in a debug build.)
    static let bitFlipVariants = 1000
    /// The camera-like fixtures with embedded thumbnails (960x640 JPEG and HEVC, 480x320 AV1)
    /// cost up to ten times the others to decode: they get a tenth of the variants.
    static func share(of count: Int, for fixture: String) -> Int {
        fixture.hasPrefix("embedded-thumbnail") ? count / 10 : count
    }
    /// Every how many inputs one is also opened from a file.
    static let fileEvery = 4

    static func make() throws -> [CorpusItem] {
        var items: [CorpusItem] = []
        for fixture in fixtures {
            let data = try Fixture.data(fixture)
            var random = SplitMix64(seed: fnv1a(fixture))
            items.append(CorpusItem(name: "\(fixture)/intact", origin: fixture, data: data))

            // Truncations: every length in the first 64 bytes, then 40 spread over the rest.
            var lengths = Set(0..<min(64, data.count))
            let truncations = share(of: spreadTruncations, for: fixture)
            for step in 1...truncations {
                lengths.insert(data.count * step / (truncations + 1))
            }
            lengths.insert(data.count - 1)
            for length in lengths.sorted() {
                items.append(CorpusItem(name: "\(fixture)/cut@\(length)", origin: fixture, data: data.prefix(length)))
            }

            // Bit flips: half anywhere, half in the first 512 bytes (the headers).
            for variant in 0..<share(of: bitFlipVariants, for: fixture) {
                var bytes = [UInt8](data)
                let span = variant.isMultiple(of: 2) ? bytes.count : min(bytes.count, 512)
                let flips = Int(random.next() % 8) + 1
                for _ in 0..<flips {
                    let offset = Int(random.next() % UInt64(span))
                    bytes[offset] ^= 1 << UInt8(random.next() % 8)
                }
                items.append(CorpusItem(name: "\(fixture)/flip#\(variant)", origin: fixture, data: Data(bytes)))
            }

            // Runs of bytes overwritten: 0x00, 0xFF, or copied from elsewhere in the file.
            for variant in 0..<share(of: 50, for: fixture) {
                var bytes = [UInt8](data)
                let length = Int(random.next() % 64) + 1
                let offset = Int(random.next() % UInt64(max(1, bytes.count - length)))
                for index in offset..<min(bytes.count, offset + length) {
                    bytes[index] = variant % 3 == 0 ? 0 : variant % 3 == 1 ? 0xFF : bytes[Int(random.next() % UInt64(bytes.count))]
                }
                items.append(CorpusItem(name: "\(fixture)/smear#\(variant)", origin: fixture, data: Data(bytes)))
            }
        }
        items += try lyingHeaders().map { CorpusItem(name: $0.name, origin: $0.origin, data: $0.data) }
        items += crafted()
        // Every fileEvery-th input is also opened from a file, its extension taken in turn from a
        // list that is mostly wrong for the content (the content decides, never the name).
        let extensions = ["jpg", "png", "gif", "webp", "tif", "bin"]
        for index in items.indices where index % fileEvery == 0 {
            items[index].fileName = "\(index).\(extensions[index / fileEvery % extensions.count])"
        }
        return items
    }

    /// A header patched to claim another size, the rest intact.
    struct LyingHeader: Sendable {
        var name: String
        var origin: String
        var data: Data
        /// Claims a size no decode may allocate.
        var huge: Bool
    }

    static func lyingHeaders() throws -> [LyingHeader] {
        var items: [LyingHeader] = []
        func add(_ origin: String, _ label: String, huge: Bool, _ patch: (inout [UInt8]) throws -> Void) throws {
            var bytes = [UInt8](try Fixture.data(origin))
            try patch(&bytes)
            items.append(LyingHeader(name: "\(origin)/lie:\(label)", origin: origin, data: Data(bytes), huge: huge))
        }
        // JPEG: the SOF segment's height and width.
        for fixture in ["photo.jpg", "progressive.jpg", "orient-6.jpg"] {
            for (width, height, huge) in [(65535, 65535, true), (0, 0, false), (65535, 16, false), (16, 65535, false), (0, 240, false)] {
                try add(fixture, "\(width)x\(height)", huge: huge) { bytes in
                    let sof = try #require(jpegSOF(bytes), "no SOF in \(fixture)")
                    put16be(&bytes, sof + 5, height)
                    put16be(&bytes, sof + 7, width)
                }
            }
        }
        // PNG: IHDR's width and height, with the CRC made right again so that libpng believes it.
        for fixture in ["photo.png", "alpha.png"] {
            for (width, height, huge) in [(65535, 65535, true), (0, 0, false), (0x7FFF_FFFF, 0x7FFF_FFFF, true), (65535, 1, false), (1, 0x7FFF_FFFF, true)] {
                try add(fixture, "\(width)x\(height)", huge: huge) { bytes in
                    put32be(&bytes, 16, width)
                    put32be(&bytes, 20, height)
                    put32be(&bytes, 29, Int(crc32(bytes[12..<29])))
                }
                try add(fixture, "\(width)x\(height)-badcrc", huge: huge) { bytes in
                    put32be(&bytes, 16, width)
                    put32be(&bytes, 20, height)
                }
            }
        }
        // GIF: the logical screen, then the first image descriptor.
        for (width, height, huge) in [(65535, 65535, true), (0, 0, false)] {
            try add("animated.gif", "screen-\(width)x\(height)", huge: huge) { bytes in
                put16le(&bytes, 6, width)
                put16le(&bytes, 8, height)
            }
            try add("animated.gif", "frame-\(width)x\(height)", huge: huge) { bytes in
                let descriptor = try #require(gifFirstImageDescriptor(bytes), "no image descriptor in animated.gif")
                put16le(&bytes, descriptor + 5, width)
                put16le(&bytes, descriptor + 7, height)
            }
            try add("animated.gif", "both-\(width)x\(height)", huge: huge) { bytes in
                let descriptor = try #require(gifFirstImageDescriptor(bytes), "no image descriptor in animated.gif")
                put16le(&bytes, 6, width)
                put16le(&bytes, 8, height)
                put16le(&bytes, descriptor + 5, width)
                put16le(&bytes, descriptor + 7, height)
            }
        }
        // WebP (a simple lossy file, no VP8X): a VP8X chunk claiming a canvas inserted before the
        // VP8 chunk, and the VP8 frame header's own 14-bit size.
        for (width, height, huge) in [(65535, 65535, true), (1 << 24, 1 << 24, true), (65535, 1, false)] {
            try add("quadrants.webp", "vp8x-\(width)x\(height)", huge: huge) { bytes in
                var chunk = Array("VP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0]
                for value in [width - 1, height - 1] {
                    chunk += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
                }
                bytes.insert(contentsOf: chunk, at: 12)
                put32le(&bytes, 4, bytes.count - 8)
            }
        }
        for (width, height, huge) in [(16383, 16383, false), (0, 0, false)] {
            try add("quadrants.webp", "vp8-\(width)x\(height)", huge: huge) { bytes in
                // "VP8 " chunk at 12, its data at 20: 3-byte frame tag, 9d 01 2a, then the sizes.
                try #require(bytes[23] == 0x9D && bytes[24] == 0x01 && bytes[25] == 0x2A, "not a VP8 key frame")
                put16le(&bytes, 26, width)
                put16le(&bytes, 28, height)
            }
        }
        // TIFF: ImageWidth and ImageLength in IFD0.
        for (width, height, huge) in [(65535, 65535, true), (0, 0, false), (0xFFFF_FFFF, 0xFFFF_FFFF, true)] {
            try add("orient-6.tif", "\(width)x\(height)", huge: huge) { bytes in
                try patchTIFFSize(&bytes, width: width, height: height)
            }
        }
        return items
    }

    /// Hand-made inputs: bare signatures, headers without data, empty and tiny files.
    static func crafted() -> [CorpusItem] {
        func item(_ name: String, _ bytes: [UInt8]) -> CorpusItem {
            CorpusItem(name: "crafted/\(name)", origin: "crafted", data: Data(bytes))
        }
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdrOnly = pngSignature + [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 8, 0, 0, 0, 8, 8, 2, 0, 0, 0]
        ihdrOnly += be32(Int(crc32(ihdrOnly[12...])))
        return [
            item("empty", []),
            item("one-byte", [0xFF]),
            item("jpeg-soi", [0xFF, 0xD8, 0xFF]),
            item("jpeg-soi-eoi", [0xFF, 0xD8, 0xFF, 0xD9]),
            item("png-signature", pngSignature),
            item("png-ihdr-only", ihdrOnly),
            item("gif87a", Array("GIF87a".utf8)),
            item("gif89a-screen", Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B]),
            item("riff-webp", Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WEBP".utf8)),
            item("riff-webp-vp8x", Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0xFF, 0xFF, 0]),
            item("tiff-ii", [0x49, 0x49, 0x2A, 0x00]),
            item("tiff-mm-bad-ifd", [0x4D, 0x4D, 0x00, 0x2A, 0xFF, 0xFF, 0xFF, 0xF0]),
            item("tiff-ii-loop-ifd", [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 0, 0, 8, 0, 0, 0]),
            item("bmp-header", Array("BM".utf8) + [UInt8](repeating: 0, count: 16)),
            item("bmp-huge", Array("BM".utf8) + [0x36, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF, 0, 0, 1, 0, 24, 0] + [UInt8](repeating: 0, count: 24)),
            item("ftyp-heic", [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)),
            item("ftyp-avif", [0, 0, 0, 20] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avif".utf8)),
            item("ftyp-unknown", [0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 0, 0]),
            item("text", Array("hello, world\n".utf8)),
            item("zeros", [UInt8](repeating: 0, count: 4096)),
            item("xml", Array("<?xml version=\"1.0\"?><x/>".utf8)),
        ]
    }

    // MARK: Byte helpers

    /// The offset of the first SOFn marker (FF Cn) of a JPEG, found by MagickIO's own walker.
    static func jpegSOF(_ bytes: [UInt8]) -> Int? {
        var reader = ByteReader(.memory(Data(bytes)))
        return try? JPEGSegments.frame(in: &reader).get().segmentStart
    }

    /// The offset of the first image descriptor (0x2C) of a GIF, by the library's GIF walker.
    static func gifFirstImageDescriptor(_ bytes: [UInt8]) -> Int? {
        var reader = ByteReader(.memory(Data(bytes)))
        var blocks = GIFBlocks()
        blocks.advance(&reader, maxFrames: 1)
        return blocks.frames.first?.descriptor
    }

    static func patchTIFFSize(_ bytes: inout [UInt8], width: Int, height: Int) throws {
        let little = bytes[0] == 0x49
        func put(_ at: Int, _ value: Int, bytes count: Int) {
            for index in 0..<count {
                let shift = little ? index * 8 : (count - 1 - index) * 8
                bytes[at + index] = UInt8(truncatingIfNeeded: value >> shift)
            }
        }
        let ifd = bytes.u32(at: 4, littleEndian: little)
        var patched = 0
        for entry in 0..<bytes.u16(at: ifd, littleEndian: little) {
            let at = ifd + 2 + entry * 12
            let tag = bytes.u16(at: at, littleEndian: little), type = bytes.u16(at: at + 2, littleEndian: little)
            guard tag == 256 || tag == 257 else { continue }
            let value = tag == 256 ? width : height
            if type == 3 {
                put(at + 8, min(value, 0xFFFF), bytes: 2)
            } else {
                put(at + 8, value, bytes: 4)
            }
            patched += 1
        }
        try #require(patched == 2, "ImageWidth/ImageLength not found")
    }
}

/// Inputs that MagickIO's own arithmetic on header values cannot take (Swift traps on overflow or
/// on an inverted range):
/// run one by one in a child process so that a crash fails its test instead of the whole run.
enum CrashCandidate: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case pngMaxDimensions = "png-ihdr-4294967295x4294967295"
    case pngHugeDimensions = "png-ihdr-3500000000x3500000000"
    case heifHugeExtent = "heif-ispe-4294967295x4294967295"
    case heifTwoHugeExtents = "heif-two-ispe-4294967295x4294967295-no-ipma"
    case heifLargeBoxSize = "heif-box-largesize-7fffffffffffffff"
    case jpegShortExifSegment = "jpeg-app1-length-2-then-exif"

    var testDescription: String { rawValue }

    var explanation: String {
        switch self {
        case .pngMaxDimensions, .pngHugeDimensions:
            "a PNG whose IHDR claims width x height beyond Int.max (the CRC is right)"
        case .heifHugeExtent:
            "a HEIC whose primary item's ispe claims 4294967295x4294967295"
        case .heifTwoHugeExtents:
            "a HEIC with two ispe properties of 4294967295x4294967295 and no item associations"
        case .heifLargeBoxSize:
            "a HEIC whose second top-level box has a 64-bit size of Int.max"
        case .jpegShortExifSegment:
            "a JPEG whose APP1 segment says length 2 and is followed by \"Exif\\0\\0\" (found by the fuzzer)"
        }
    }

    var data: Data {
        switch self {
        case .pngMaxDimensions: Data(Self.png(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF))
        case .pngHugeDimensions: Data(Self.png(width: 3_500_000_000, height: 3_500_000_000))
        case .heifHugeExtent: Data(Self.heif(extents: 1, associated: true))
        case .heifTwoHugeExtents: Data(Self.heif(extents: 2, associated: false))
        case .heifLargeBoxSize:
            Data(Self.ftyp + be32(1) + Array("free".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 64))
        case .jpegShortExifSegment:
            Data([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x02] + Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08] + [UInt8](repeating: 0, count: 32) + [0xFF, 0xD9])
        }
    }

    /// A PNG of `width` x `height` (IHDR with its CRC right) whose data is one empty row.
    static func png(width: Int, height: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8)
        bytes += be32(width) + be32(height) + [8, 2, 0, 0, 0]
        bytes += be32(Int(crc32(bytes[12...])))
        let idat: [UInt8] = Array("IDAT".utf8) + [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]
        bytes += be32(idat.count - 4) + idat + be32(Int(crc32(idat[...])))
        bytes += be32(0) + Array("IEND".utf8) + be32(Int(crc32(Array("IEND".utf8)[...])))
        return bytes
    }

    static let ftyp: [UInt8] = be32(24) + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)

    /// A HEIC header: ftyp, then meta with iprp/ipco holding `extents` ispe properties of
    /// 4294967295x4294967295 and, when `associated`, a pitm (item 1) and an ipma associating item 1
    /// with the first; no media.
    static func heif(extents: Int, associated: Bool) -> [UInt8] {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(body.count + 8) + Array(type.utf8) + body }
        let ispe = box("ispe", [0, 0, 0, 0] + be32(0xFFFF_FFFF) + be32(0xFFFF_FFFF))
        let ipco = box("ipco", Array([[UInt8]](repeating: ispe, count: extents).joined()))
        let ipma = box("ipma", [0, 0, 0, 0] + be32(1) + [0, 1, 1, 0x81])
        let iprp = box("iprp", ipco + (associated ? ipma : []))
        let pitm = associated ? box("pitm", [0, 0, 0, 0, 0, 1]) : []
        let hdlr = box("hdlr", [0, 0, 0, 0, 0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let meta = box("meta", [0, 0, 0, 0] + hdlr + pitm + iprp)
        return ftyp + meta + box("mdat", [UInt8](repeating: 0, count: 16))
    }
}

/// The inputs in `Fuzz/regressions` (found by `Fuzz/run.sh`), read from the source tree.
enum FuzzRegressions {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/regressions")

    static let names: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { !$0.hasPrefix(".") }.sorted()
}
