import CMagickWand

/// Which metadata an image keeps when it is encoded or thumbnailed.
///
/// ```swift
/// let shareable = try image.encoded(as: .jpeg(quality: 90), metadata: .keepAllButGPS)
/// ```
public enum MetadataPolicy: Sendable, Hashable, CaseIterable {
    /// Keep EXIF, XMP, IPTC, ICC profiles and comments.
    case keepAll
    /// Keep everything but location: the EXIF GPS directory is emptied (every GPS value's bytes are
    /// zeroed) and an XMP packet that mentions GPS is dropped.
    case keepAllButGPS
    /// Keep nothing (`MagickStripImage`): the default for thumbnails.
    case stripAll
}

extension Wand {
    /// Applies `policy` to the current image's metadata.
    func apply(_ policy: MetadataPolicy) throws(MagickIOError) {
        switch policy {
        case .keepAll:
            return
        case .stripAll:
            try check(MagickStripImage(pointer), fallback: .encodingFailed)
        case .keepAllButGPS:
            if let exif = profile("exif") {
                let cleaned = EXIF.removingGPS(exif)
                if cleaned != exif {
                    _ = cleaned.withUnsafeBytes { MagickSetImageProfile(pointer, "exif", $0.baseAddress, $0.count) }
                }
            }
            if let xmp = profile("xmp"), String(decoding: xmp, as: UTF8.self).contains("GPS") {
                if let removed = MagickRemoveImageProfile(pointer, "xmp", nil) { MagickRelinquishMemory(removed) }
            }
        }
    }

    /// The bytes of the current image's profile `name` (`exif`, `xmp`, `icc`, ...), or nil.
    func profile(_ name: String) -> [UInt8]? {
        var length = 0
        guard let bytes = MagickGetImageProfile(pointer, name, &length), length > 0 else { return nil }
        defer { MagickRelinquishMemory(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }
}

/// EXIF data as ImageMagick keeps it: optionally `Exif\0\0`, then a TIFF structure.
enum EXIF {
    /// `exif` with its GPS directory emptied: every GPS entry and the bytes it points to are zeroed
    /// and the directory's entry count set to 0. Offsets elsewhere are untouched.
    static func removingGPS(_ exif: [UInt8]) -> [UInt8] {
        var bytes = exif
        let base = exif.starts(with: Array("Exif\0\0".utf8)) ? 6 : 0
        guard bytes.count >= base + 8 else { return exif }
        let little = bytes[base] == 0x49
        func u16(_ at: Int) -> Int? {
            let i = base + at
            guard at >= 0, i + 2 <= bytes.count else { return nil }
            return little ? Int(bytes[i]) | Int(bytes[i + 1]) << 8 : Int(bytes[i]) << 8 | Int(bytes[i + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? b << 16 | a : a << 16 | b
        }
        func zero(_ at: Int, _ count: Int) {
            let start = base + at
            guard at >= 0, count > 0, start < bytes.count else { return }
            for i in start..<min(start + count, bytes.count) { bytes[i] = 0 }
        }
        guard let ifd0 = u32(4), let entries = u16(ifd0) else { return exif }
        var gps: Int?
        for entry in 0..<min(entries, 512) where u16(ifd0 + 2 + entry * 12) == 0x8825 {
            gps = u32(ifd0 + 2 + entry * 12 + 8)
        }
        guard let gps, let count = u16(gps) else { return exif }
        let sizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8]
        for entry in 0..<min(count, 512) {
            let at = gps + 2 + entry * 12
            guard let type = u16(at + 2), let values = u32(at + 4) else { break }
            let length = (sizes[type] ?? 1).saturatingTimes(values)
            if length > 4, let offset = u32(at + 8) { zero(offset, min(length, 1 << 16)) }
            zero(at, 12)
        }
        zero(gps, 2)
        return bytes
    }
}
