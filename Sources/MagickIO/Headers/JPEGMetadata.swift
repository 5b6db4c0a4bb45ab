/// A JPEG's metadata segments, counted for ``MetadataCensus``: every APP0-APP15 and COM segment
/// from SOI to EOI, those between scans too (COM by its bytes only under ImageMagick 6).
/// ImageMagick 6's JPEG coder saves every APPn but APP0 and APP14 (`ReadProfile`,
/// `ReadICCProfile`, `ReadIPTCProfile` in coders/jpeg.c) and appends each to the profile of its
/// name already read (`ConcatenateStringInfo`): a copy of all before it, so a file of many small
/// segments costs it quadratic time.
///
/// A decode that drops metadata keeps only what the pixels need: APP0 `JFIF`, APP14 `Adobe`
/// (the colour transform of a 3- or 4-component file) and the APP2 `ICC_PROFILE` chain.
enum JPEGMetadata {
    /// A real ICC profile chain has at most 255 segments (its sequence numbers are bytes).
    static let maxICCSegments = 255

    /// The census from SOI to EOI, or (`untilScan`) to the first scan header: the segments
    /// `jpeg_read_header` reads, and so all that ImageMagick's ping and libjpeg's own header read
    /// see (``ImageSource/decoderInput(keeping:forLibjpeg:)``), from `index` when it holds them
    /// (the walk at open went on to the first scan header: ``JPEGIndex/visitToScan(_:_:)``).
    static func census(_ bytes: SourceBytes, untilScan: Bool = false, index: JPEGIndex? = nil) -> MetadataCensus {
        var census = MetadataCensus()
        var comments = 0
        let count = { (reader: inout ByteReader, segment: JPEGSegments.Segment) in
            guard (0xE0...0xEF).contains(segment.code) || segment.code == 0xFE else { return }
            // ImageMagick 6 keeps the last comment (`SetImageProperty`), so COM segments cost it
            // their bytes, never a copy of the ones before: only APPn count as segments. 7 appends
            // each comment to the ones before and sets the whole text again
            // (``ImageMagick/appendsJPEGComments``): a COM costs it all the comments so far.
            var bytes = segment.payload.count
            if segment.code == 0xFE {
                comments = comments.saturatingPlus(bytes)
                if ImageMagick.appendsJPEGComments { bytes = comments }
            }
            census.add(bytes, isSegment: segment.code != 0xFE)
            // The segment from its marker: 0xFF, the code, the length.
            let whole = (segment.payload.lowerBound - 4)..<segment.payload.upperBound
            let head = reader.bytes(at: segment.payload.lowerBound, min(12, segment.payload.count)) ?? []
            switch segment.code {
            case 0xE0 where head.starts(with: Array("JFIF\0".utf8)),
                 0xEE where head.starts(with: Array("Adobe".utf8)):
                break
            case 0xE2 where head == Array("ICC_PROFILE\0".utf8):
                census.iccBytes = census.iccBytes.saturatingPlus(max(segment.payload.count - 14, 0))
                census.icc.append(whole)
            default:
                census.drop(whole)
            }
        }
        if untilScan, let complete = index?.visitToScan(bytes, count) {
            census.isComplete = complete
        } else {
            var reader = ByteReader(bytes)
            census.isComplete = JPEGSegments.walkAll(&reader, untilScan: untilScan, visit: count)
        }
        return census
    }
}
