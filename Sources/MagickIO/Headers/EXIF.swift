/// EXIF data: optionally `Exif\0\0` (as ImageMagick keeps it, and as some writers put it in PNG and
/// WebP chunks), then a TIFF structure. MagickIO reads the few tags it needs itself.
enum EXIF {
    /// The Orientation tag (0x0112) of IFD0 (a JPEG's APP1 payload, a PNG `eXIf` chunk, a WebP
    /// `EXIF` chunk).
    static func orientation(_ exif: [UInt8]) -> Orientation? {
        guard let tiff = TIFFStructure(exif), tiff.hasByteOrderMark, let ifd0 = tiff.firstDirectory else { return nil }
        for entry in tiff.entries(ofDirectoryAt: ifd0, limit: 256) where tiff.u16(entry) == 0x0112 {
            return tiff.u16(entry + 8).map(Orientation.init(exifValue:))
        }
        return nil
    }

    /// Where IFD1's thumbnail (`JPEGInterchangeFormat`, its length) lies in `exif`, or nil.
    static func thumbnailRange(_ exif: [UInt8]) -> Range<Int>? {
        guard let tiff = TIFFStructure(exif), tiff.hasByteOrderMark, let ifd0 = tiff.firstDirectory,
              let ifd1 = tiff.nextDirectory(after: ifd0), ifd1 > 0 else { return nil }
        var offset: Int?, length: Int?
        for entry in tiff.entries(ofDirectoryAt: ifd1, limit: 512) {
            switch tiff.u16(entry) {
            case 0x0201: offset = tiff.u32(entry + 8)
            case 0x0202: length = tiff.u32(entry + 8)
            default: break
            }
        }
        guard let offset, let length, length > 0, offset >= 8, offset <= tiff.count - length else { return nil }
        return (tiff.base + offset)..<(tiff.base + offset + length)
    }

    /// `exif` with its GPS directory emptied: every GPS entry and the bytes it points to are zeroed
    /// and the directory's entry count set to 0. Offsets elsewhere are untouched.
    static func removingGPS(_ exif: [UInt8]) -> [UInt8] {
        guard let tiff = TIFFStructure(exif), let ifd0 = tiff.firstDirectory else { return exif }
        var gps: Int?
        for entry in tiff.entries(ofDirectoryAt: ifd0, limit: 512) where tiff.u16(entry) == 0x8825 {
            gps = tiff.u32(entry + 8)
        }
        guard let gps, tiff.u16(gps) != nil else { return exif }
        var bytes = exif
        func zero(_ at: Int, _ count: Int) {
            let start = tiff.base + at
            guard at >= 0, count > 0, start < bytes.count else { return }
            for i in start..<min(start + count, bytes.count) { bytes[i] = 0 }
        }
        let sizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8]
        for entry in tiff.entries(ofDirectoryAt: gps, limit: 512) {
            guard let type = tiff.u16(entry + 2), let values = tiff.u32(entry + 4) else { break }
            let length = (sizes[type] ?? 1).saturatingTimes(values)
            if length > 4, let offset = tiff.u32(entry + 8) { zero(offset, min(length, 1 << 16)) }
            zero(entry, 12)
        }
        zero(gps, 2)
        return bytes
    }
}

/// Bounds-checked reads of a TIFF structure; offsets are from the TIFF header, as TIFF's own are.
struct TIFFStructure {
    private let bytes: [UInt8]
    /// Where the TIFF header starts in `bytes` (6 after an `Exif\0\0` prefix).
    let base: Int
    private let little: Bool

    init?(_ bytes: [UInt8]) {
        base = bytes.starts(with: Array("Exif\0\0".utf8)) ? 6 : 0
        guard bytes.count >= base + 8 else { return nil }
        self.bytes = bytes
        little = bytes[base] == 0x49
    }

    /// Whether the header starts with a valid byte-order mark (`II` or `MM`).
    var hasByteOrderMark: Bool {
        bytes[base] == bytes[base + 1] && (bytes[base] == 0x49 || bytes[base] == 0x4D)
    }

    /// Bytes from the TIFF header to the end.
    var count: Int { bytes.count - base }

    func u16(_ at: Int) -> Int? {
        let i = base + at
        guard at >= 0, i + 2 <= bytes.count else { return nil }
        return little ? Int(bytes[i]) | Int(bytes[i + 1]) << 8 : Int(bytes[i]) << 8 | Int(bytes[i + 1])
    }

    func u32(_ at: Int) -> Int? {
        guard let first = u16(at), let second = u16(at + 2) else { return nil }
        return little ? second << 16 | first : first << 16 | second
    }

    /// IFD0's offset.
    var firstDirectory: Int? { u32(4) }

    /// The offset of each 12-byte entry of the directory at `offset` (at most `limit`).
    func entries(ofDirectoryAt offset: Int, limit: Int) -> [Int] {
        guard let count = u16(offset) else { return [] }
        return (0..<min(count, limit)).map { offset + 2 + $0 * 12 }
    }

    /// The offset of the directory that follows the one at `offset`.
    func nextDirectory(after offset: Int) -> Int? {
        u16(offset).flatMap { u32(offset + 2 + $0 * 12) }
    }
}
