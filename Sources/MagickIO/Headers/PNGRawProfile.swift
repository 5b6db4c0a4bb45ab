/// EXIF in a PNG text chunk, as ImageMagick writes it (`Raw profile type exif`: a newline, the
/// profile's name, its length, then hex digits, in a compressed `zTXt` chunk as often as not).
/// ImageMagick's reader turns it back into an `exif` profile when it decodes, but not when it
/// pings, and never into an orientation.
///
/// MagickIO reads it as ImageMagick's `Magick_png_read_raw_profile` does, with an inflater bounded
/// at ``maximumText`` bytes, so a small chunk cannot claim gigabytes.
enum PNGRawProfile {
    /// The text keywords that carry EXIF.
    static let keywords = ["Raw profile type exif", "Raw profile type APP1"]
    /// The largest such chunk read; EXIF is at most 64 KiB, twice that in hex, less compressed.
    static let maximumChunk = 1 << 20
    /// The most text inflated from a chunk: a 1 MiB profile in hex with its line breaks.
    static let maximumText = 2 << 20 + 1 << 16

    /// The orientation in the chunk at `chunk` (its length, type, data and CRC), or nil.
    static func orientation(_ bytes: SourceBytes, chunk: Range<Int>) -> Orientation? {
        profile(bytes, chunk: chunk).flatMap(EXIF.orientation)
    }

    /// The profile's bytes in the chunk at `chunk`, or nil.
    static func profile(_ bytes: SourceBytes, chunk: Range<Int>) -> [UInt8]? {
        let whole = bytes.read(at: chunk.lowerBound, length: chunk.count)
        guard whole.count == chunk.count, whole.count >= 12 else { return nil }
        let type = String(decoding: whole[4..<8], as: UTF8.self)
        let data = whole[8..<(whole.count - 4)]
        guard let keywordEnd = data.firstIndex(of: 0) else { return nil }
        var text: [UInt8]
        switch type {
        case "tEXt":
            text = Array(data[(keywordEnd + 1)...].prefix(maximumText))
        case "zTXt":
            guard keywordEnd + 2 <= data.endIndex,
                  let inflated = BoundedInflate.inflate(data[(keywordEnd + 2)...], limit: maximumText) else { return nil }
            text = inflated
        case "iTXt":
            // Compression flag and method, then a language tag and a translated keyword.
            guard keywordEnd + 3 <= data.endIndex else { return nil }
            let compressed = data[keywordEnd + 1] == 1
            var at = keywordEnd + 3
            for _ in 0..<2 {
                guard let end = data[at...].firstIndex(of: 0) else { return nil }
                at = end + 1
            }
            if compressed {
                guard let inflated = BoundedInflate.inflate(data[at...], limit: maximumText) else { return nil }
                text = inflated
            } else {
                text = Array(data[at...].prefix(maximumText))
            }
        default:
            return nil
        }
        return decodeHex(text)
    }

    /// ImageMagick's reading: skip the first character and the name line, read the length, then
    /// that many bytes as pairs of lowercase hex digits, skipping anything else between them.
    static func decodeHex(_ text: [UInt8]) -> [UInt8]? {
        var at = 1
        while at < text.count, text[at] != 0x0A { at += 1 }
        while at < text.count, text[at] == 0 || text[at] == 0x20 || text[at] == 0x0A { at += 1 }
        var length = 0
        while at < text.count, (0x30...0x39).contains(text[at]) {
            length = length * 10 + Int(text[at] - 0x30)
            guard length <= maximumText / 2 else { return nil }
            at += 1
        }
        guard length > 0 else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        var profile: [UInt8] = []
        profile.reserveCapacity(length)
        var high: UInt8?
        while profile.count < length, at < text.count {
            defer { at += 1 }
            guard let value = nibble(text[at]) else { continue }
            if let first = high {
                profile.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return profile.count == length ? profile : nil
    }
}
