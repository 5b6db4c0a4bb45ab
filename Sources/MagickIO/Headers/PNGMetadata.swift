/// A PNG's metadata chunks, counted for ``MetadataCensus``: `tEXt` and `eXIf` by their length,
/// `zTXt`, compressed `iTXt` and `iCCP` by what they inflate to (``BoundedInflate``, counting
/// only). ImageMagick's PNG coder raises libpng's limit on a chunk's decompressed size to its own
/// memory limit, so libpng's default caps never apply there: this count is the one that holds.
enum PNGMetadata {
    /// `index`: the walk of `bytes` their source took.
    static func census(_ bytes: SourceBytes, index: PNGIndex, cap: Int) -> MetadataCensus {
        var census = MetadataCensus()
        let end = index.visit(bytes) { reader, chunk in
            let whole = chunk.offset..<chunk.end
            switch chunk.type {
            case "tEXt", "eXIf":
                census.add(chunk.length)
                census.drop(whole)
            case "zTXt":
                // keyword, NUL, compression method, then the zlib stream.
                let start = textStart(&reader, chunk).map { $0 + 1 } ?? chunk.data.upperBound
                census.add((start - chunk.data.lowerBound).saturatingPlus(
                    inflated(&reader, start..<chunk.data.upperBound, cap: remaining(census, cap))))
                census.drop(whole)
            case "iTXt":
                census.add(internationalText(&reader, chunk, cap: remaining(census, cap)))
                census.drop(whole)
            case "iCCP":
                let start = textStart(&reader, chunk).map { $0 + 1 } ?? chunk.data.upperBound
                // Counted against the cap on its own: whether the profile alone is over it
                // decides whether a thumbnail may keep its colours. libpng reads the first only:
                // another has no cap of its own.
                let profile = inflated(&reader, start..<chunk.data.upperBound, cap: census.icc.isEmpty ? cap : remaining(census, cap))
                census.add(profile)
                census.iccBytes = census.iccBytes.saturatingPlus(profile)
                census.icc.append(whole)
            default:
                break
            }
            return true
        }
        census.isComplete = end == .imageEnd
        return census
    }

    /// What is left of the cap for the next compressed chunk; 0 once the running total is past it.
    private static func remaining(_ census: MetadataCensus, _ cap: Int) -> Int {
        max(cap - census.bytes, 0)
    }

    /// The bytes the zlib stream in `range` inflates to, counted up to `cap`. With no cap left
    /// the file is over already: the stream counts as its compressed size, and nothing is
    /// inflated (100,000 small zTXt chunks past the cap cost no zlib work).
    private static func inflated(_ reader: inout ByteReader, _ range: Range<Int>, cap: Int) -> Int {
        guard !range.isEmpty else { return 0 }
        guard cap > 0 else { return range.count }
        return BoundedInflate.count(&reader, range, cap: cap).bytes
    }

    /// Where the text after the keyword's NUL starts (the NUL's offset + 1), or nil without a NUL
    /// in the keyword's 80 bytes.
    private static func textStart(_ reader: inout ByteReader, _ chunk: PNGChunks.Chunk) -> Int? {
        nul(&reader, from: chunk.data.lowerBound, in: chunk.data, within: 80).map { $0 + 1 }
    }

    private static func nul(_ reader: inout ByteReader, from start: Int, in data: Range<Int>, within limit: Int) -> Int? {
        var offset = start
        while offset < min(data.upperBound, start.saturatingPlus(limit)) {
            guard let byte = reader.u8(at: offset) else { return nil }
            if byte == 0 { return offset }
            offset += 1
        }
        return nil
    }

    /// An `iTXt` chunk's size once decompressed: keyword, NUL, compression flag and method,
    /// language tag, NUL, translated keyword, NUL, then the text (a zlib stream when the flag
    /// says so).
    private static func internationalText(_ reader: inout ByteReader, _ chunk: PNGChunks.Chunk, cap: Int) -> Int {
        let data = chunk.data
        guard let keywordEnd = nul(&reader, from: data.lowerBound, in: data, within: 80),
              let flag = reader.u8(at: keywordEnd + 1),
              let languageEnd = nul(&reader, from: keywordEnd + 3, in: data, within: data.count),
              let translatedEnd = nul(&reader, from: languageEnd + 1, in: data, within: data.count)
        else { return chunk.length }
        let text = (translatedEnd + 1)..<max(translatedEnd + 1, data.upperBound)
        guard flag == 1 else { return chunk.length }
        return (text.lowerBound - data.lowerBound).saturatingPlus(inflated(&reader, text, cap: cap))
    }
}
