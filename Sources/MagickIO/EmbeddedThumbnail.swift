import Foundation

extension ImageSource {
    /// The thumbnail a camera stored in a JPEG's EXIF data (IFD1's `JPEGInterchangeFormat`), opened
    /// as a source of its own that carries the main image's orientation, or nil.
    func embeddedThumbnail() -> ImageSource? {
        guard format == .jpeg, let range = header?.exifRange, !range.isEmpty,
              let thumbnail = EXIF.thumbnailRange(bytes.read(at: range.lowerBound, length: range.count)) else { return nil }
        let data = bytes.read(at: range.lowerBound + thumbnail.lowerBound, length: thumbnail.count)
        guard data.count == thumbnail.count,
              var source = try? ImageSource(bytes: .memory(Data(data)), options: options),
              source.format == .jpeg else { return nil }
        // The stored thumbnail has no orientation of its own: it is stored as the image is.
        let orientation = frames.first?.orientation ?? .up
        for index in source.frames.indices { source.frames[index].orientation = orientation }
        return source
    }
}

extension EXIF {
    /// Where IFD1's thumbnail lies in `tiff` (a TIFF structure), or nil.
    static func thumbnailRange(_ tiff: [UInt8]) -> Range<Int>? {
        guard tiff.count >= 8, tiff[0] == tiff[1], tiff[0] == 0x49 || tiff[0] == 0x4D else { return nil }
        let little = tiff[0] == 0x49
        func u16(_ i: Int) -> Int? {
            guard i >= 0, i + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[i]) | Int(tiff[i + 1]) << 8 : Int(tiff[i]) << 8 | Int(tiff[i + 1])
        }
        func u32(_ i: Int) -> Int? {
            guard let a = u16(i), let b = u16(i + 2) else { return nil }
            return little ? b << 16 | a : a << 16 | b
        }
        guard let ifd0 = u32(4), let count0 = u16(ifd0), let ifd1 = u32(ifd0 + 2 + count0 * 12), ifd1 > 0,
              let count1 = u16(ifd1) else { return nil }
        var offset: Int?, length: Int?
        for entry in 0..<min(count1, 512) {
            let at = ifd1 + 2 + entry * 12
            switch u16(at) {
            case 0x0201: offset = u32(at + 8)
            case 0x0202: length = u32(at + 8)
            default: break
            }
        }
        guard let offset, let length, length > 0, offset >= 8, offset <= tiff.count - length else { return nil }
        return offset..<(offset + length)
    }
}
