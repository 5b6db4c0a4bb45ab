import Foundation

/// EXIF in a PNG text chunk, as ImageMagick writes it (`Raw profile type exif`: hex digits, in a
/// compressed `zTXt` chunk as often as not). ImageMagick's reader turns it back into an `exif`
/// profile when it decodes, but not when it pings, and never into an orientation.
///
/// MagickIO hands just that chunk to ImageMagick inside a 1x1 PNG of its own, decodes that (no
/// pixel of the real image is touched) and reads the orientation from the profile it yields: the
/// chunk is decompressed by the library that reads the image, with no inflater of MagickIO's own.
enum PNGRawProfile {
    /// The text keywords that carry EXIF.
    static let keywords = ["Raw profile type exif", "Raw profile type APP1"]
    /// The largest such chunk read; EXIF is at most 64 KiB, twice that in hex, less compressed.
    static let maximumChunk = 1 << 20

    /// The orientation in the chunk at `chunk` (its length, type, data and CRC), or nil.
    static func orientation(_ bytes: SourceBytes, chunk: Range<Int>) -> Orientation? {
        let text = bytes.read(at: chunk.lowerBound, length: chunk.count)
        guard text.count == chunk.count else { return nil }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // IHDR: 1x1, 8-bit greyscale; IDAT: one filter byte and one sample, stored (no compression).
        png += chunkBytes("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
        png += text
        png += chunkBytes("IDAT", [0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01])
        png += chunkBytes("IEND", [])
        return try? Wand.withThreadWand { wand throws(MagickIOError) -> Orientation? in
            try wand.read(.memory(Data(png)), format: .png, ping: false, strictness: .acceptPartial)
            return wand.profile("exif").flatMap(EXIF.orientation)
        }
    }

    private static func chunkBytes(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let length = UInt32(data.count)
        let crc = crc32(body)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// PNG's CRC-32 (ISO 3309), bit by bit: it runs over a few bytes once per such file.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }
}
