/// The metadata of TIFF, WebP, GIF and HEIF files, counted for ``MetadataCensus``. None of it is
/// compressed, so the file's own bytes bound it; each size is also clamped to the file's.
enum ContainerMetadata {
    /// TIFF: each directory's profiles (``TIFFIndex/profileTags``), and each EXIF or GPS directory
    /// once, however many entries point at it.
    static func tiff(_ index: TIFFIndex?) -> MetadataCensus {
        var census = MetadataCensus()
        guard let index else { return census }
        for directory in index.directories {
            directory.profileSizes.forEach { census.add($0) }
            census.iccBytes = census.iccBytes.saturatingPlus(directory.iccBytes)
        }
        for directory in index.subDirectories.values {
            census.add(directory.storedBytes)
        }
        if index.isExhausted {
            census.uncounted = "the TIFF's directories hold more than \(TIFFDirectories.entryBudget) entries to count"
        }
        return census
    }

    static func webp(_ reader: inout ByteReader) -> MetadataCensus {
        var census = MetadataCensus()
        let fileSize = reader.count
        RIFFChunks.walk(&reader) { _, chunk in
            guard ["ICCP", "EXIF", "XMP "].contains(chunk.id) else { return true }
            let size = min(chunk.length, fileSize)
            census.add(size)
            if chunk.id == "ICCP" { census.iccBytes = census.iccBytes.saturatingPlus(size) }
            return true
        }
        return census
    }

    /// GIF: comment and application extensions. ImageMagick 6 appends each sub-block of a
    /// comment to the text before it (`ConcatenateString`, which measures that text every time:
    /// quadratic), so each of a comment's sub-blocks counts as a segment; an application
    /// extension counts as one. A stripping decode leaves comments and application extensions out,
    /// all but the loop count's (`NETSCAPE2.0`, `ANIMEXTS1.0`).
    static func gif(_ reader: inout ByteReader) -> MetadataCensus {
        var census = MetadataCensus()
        guard let flags = reader.u8(at: 10) else { return census }
        var offset = 13 + colourTableSize(flags)
        census.isComplete = false
        while let introducer = reader.u8(at: offset) {
            switch introducer {
            case 0x21:
                guard let label = reader.u8(at: offset + 1) else { return census }
                let start = offset
                let application = label == 0xFF ? reader.bytes(at: offset + 3, 11).map { String(decoding: $0, as: UTF8.self) } : nil
                guard let (end, blocks, size) = subBlocks(&reader, from: offset + 2) else { return census }
                offset = end
                if label == 0xFE {
                    census.bytes = census.bytes.saturatingPlus(size)
                    census.segments = census.segments.saturatingPlus(max(blocks, 1))
                    census.drop(start..<end)
                } else if label == 0xFF {
                    census.add(size)
                    if application != "NETSCAPE2.0", application != "ANIMEXTS1.0" { census.drop(start..<end) }
                }
            case 0x2C:
                guard let imageFlags = reader.u8(at: offset + 9) else { return census }
                guard let (end, _, _) = subBlocks(&reader, from: offset + 10 + colourTableSize(imageFlags) + 1) else { return census }
                offset = end
            case 0x3B:
                census.isComplete = true
                return census
            default:
                return census
            }
        }
        return census
    }

    /// The data sub-blocks from `offset`: where they end (past the terminator), how many, and
    /// their bytes; nil when the data ends first.
    private static func subBlocks(_ reader: inout ByteReader, from offset: Int) -> (Int, Int, Int)? {
        var offset = offset, blocks = 0, size = 0
        while true {
            guard let length = reader.u8(at: offset) else { return nil }
            offset += 1 + Int(length)
            if length == 0 { return (offset, blocks, size) }
            blocks += 1
            size += Int(length)
        }
    }

    private static func colourTableSize(_ flags: UInt8) -> Int {
        flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0
    }

    /// HEIF: `Exif` and `mime` (XMP) items and `colr` properties (an ICC profile, or nclx).
    static func heif(_ reader: inout ByteReader) -> MetadataCensus {
        var census = MetadataCensus()
        let items = HEIFItems.read(&reader)
        let fileSize = reader.count
        for item in items.items.values where item.type == "Exif" || item.type == "mime" {
            census.add(min(item.dataLength, fileSize))
        }
        for property in items.properties where property.type == "colr" {
            census.add(property.body.count)
            census.iccBytes = census.iccBytes.saturatingPlus(property.body.count)
        }
        return census
    }
}
