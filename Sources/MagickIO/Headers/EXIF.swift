/// EXIF data: optionally `Exif\0\0` (as ImageMagick keeps it, and as some writers put it in PNG and
/// WebP chunks), then a TIFF structure, read through ``TIFFDirectories``. MagickIO reads the few
/// tags it needs itself.
enum EXIF {
    /// The Orientation tag of IFD0 (a JPEG's APP1 payload, a PNG `eXIf` chunk, a WebP
    /// `EXIF` chunk).
    static func orientation(_ exif: [UInt8]) -> Orientation? {
        guard var tiff = TIFFDirectories(exif: exif), let ifd0 = tiff.firstDirectory() else { return nil }
        for entry in tiff.entries(at: ifd0, limit: 256) where entry.tag == TIFFTag.orientation {
            return tiff.firstValue(of: entry).map(Orientation.init(exifValue:))
        }
        return nil
    }

    /// Where IFD1's thumbnail (`JPEGInterchangeFormat`, its length) lies in `exif`, or nil.
    static func thumbnailRange(_ exif: [UInt8]) -> Range<Int>? {
        guard var tiff = TIFFDirectories(exif: exif), let ifd0 = tiff.firstDirectory(),
              let ifd1 = tiff.nextDirectory(after: ifd0) else { return nil }
        var offset: Int?, length: Int?
        for entry in tiff.entries(at: ifd1, limit: 512) {
            switch entry.tag {
            case TIFFTag.jpegInterchangeFormat: offset = tiff.firstValue(of: entry)
            case TIFFTag.jpegInterchangeFormatLength: length = tiff.firstValue(of: entry)
            default: break
            }
        }
        let available = exif.count - tiff.base
        guard let offset, let length, length > 0, offset >= 8, offset <= available - length else { return nil }
        return (tiff.base + offset)..<(tiff.base + offset + length)
    }

    /// `exif` with its GPS directory emptied: every GPS entry and the bytes it points to are zeroed
    /// and the directory's entry count set to 0. Offsets elsewhere are untouched.
    static func removingGPS(_ exif: [UInt8]) -> [UInt8] {
        guard var tiff = TIFFDirectories(exif: exif), let ifd0 = tiff.firstDirectory() else { return exif }
        var gps: Int?
        for entry in tiff.entries(at: ifd0, limit: 512) where entry.tag == TIFFTag.gpsIFD {
            gps = tiff.firstValue(of: entry)
        }
        guard let gps, let entries = Optional(tiff.entries(at: gps, limit: 512, keepingDuplicates: true)),
              tiff.value(at: gps, size: 2) != nil else {
            return exif
        }
        var bytes = exif
        func zero(_ at: Int, _ count: Int) {
            let start = tiff.base + at
            guard at >= 0, count > 0, start < bytes.count else { return }
            for i in start..<min(start.saturatingPlus(count), bytes.count) { bytes[i] = 0 }
        }
        for entry in entries {
            if !entry.isInline, let offset = tiff.value(at: entry.valueField, size: tiff.offsetSize) {
                zero(offset, min(entry.valueSize, 1 << 16))
            }
            zero(entry.offset, entry.valueField + tiff.offsetSize - entry.offset)
        }
        zero(gps, 2)
        return bytes
    }
}
