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

    static func webp(_ reader: inout ByteReader, index: RIFFIndex) -> MetadataCensus {
        var census = MetadataCensus()
        let fileSize = reader.count
        index.visit(&reader) { _, chunk in
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
        var blocks = GIFBlocks()
        blocks.advance(&reader, maxFrames: .max) { block in
            // The census has stopped at a byte that starts no block (ImageMagick's coder skips
            // it and reads on): kept so.
            guard !block.followsStrayByte else { return }
            if block.label == 0xFE {
                census.bytes = census.bytes.saturatingPlus(block.size)
                census.segments = census.segments.saturatingPlus(max(block.blocks, 1))
                census.drop(block.range)
            } else if block.label == 0xFF {
                census.add(block.size)
                if block.application != "NETSCAPE2.0", block.application != "ANIMEXTS1.0" { census.drop(block.range) }
            }
        }
        census.isComplete = blocks.ended && !blocks.strayed
        return census
    }

    /// HEIF: `Exif` and `mime` (XMP) items and `colr` properties (an ICC profile, or nclx).
    static func heif(_ items: HEIFItems, fileSize: Int) -> MetadataCensus {
        var census = MetadataCensus()
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
