/// A TIFF file's image directories (classic TIFF and BigTIFF), read for what the cost model and
/// the properties need: the first page's size, samples and bit depth, and which pages carry alpha.
///
/// ImageMagick 6's ping of a TIFF leaves alpha unset (its coder decides it while reading pixels),
/// so MagickIO reads the ExtraSamples tag itself, as the coder does: a page has alpha when it has
/// any extra sample (associated, unassociated or unspecified), or four samples in RGB.
enum TIFFHeader {
    /// The most pages walked; the IFD chain stops at the first loop (a later page cannot be
    /// reached by the decoder either).
    private static let pageLimit = 10_000

    static func parse(_ reader: inout ByteReader) -> ImageHeader? {
        guard let order = reader.bytes(at: 0, 4) else { return nil }
        let little: Bool
        switch (order[0], order[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func value(_ at: Int, _ size: Int) -> Int? {
            guard let bytes = reader.bytes(at: at, size) else { return nil }
            return (little ? bytes.reversed() : bytes).reduce(0) { $0 << 8 | Int($1) }
        }
        guard let version = value(2, 2) else { return nil }
        let big = version == 43
        guard version == 42 || big else { return nil }
        let offsetSize = big ? 8 : 4, countSize = big ? 8 : 2, entrySize = big ? 20 : 12
        guard var directory = value(big ? 8 : 4, offsetSize) else { return nil }

        var first: ImageHeader?
        var pageAlpha: [Bool] = []
        var visited: Set<Int> = []
        while directory > 0, pageAlpha.count < pageLimit, visited.insert(directory).inserted {
            guard let entries = value(directory, countSize), entries < 1 << 16 else { break }
            var tags: [Int: Int] = [:]
            var extraSamples = 0
            for index in 0..<entries {
                let entry = directory + countSize + index * entrySize
                guard let tag = value(entry, 2), let type = value(entry + 2, 2), let count = value(entry + 4, offsetSize) else { break }
                // The first value, when it is stored in the entry (SHORT or LONG).
                let inline = type == 3 ? value(entry + 4 + offsetSize, 2) : type == 4 ? value(entry + 4 + offsetSize, 4) : nil
                if tag == 338 { extraSamples = count }
                if tag == 258, type == 3, count > 2 {
                    // BitsPerSample with three or more values lies out of line: the first is enough.
                    if let at = value(entry + 4 + offsetSize, offsetSize) { tags[258] = value(at, 2) }
                    continue
                }
                if let inline { tags[tag] = inline }
            }
            let samples = tags[277] ?? 1
            let photometric = tags[262] ?? 1
            let alpha = extraSamples > 0 || (samples == 4 && photometric == 2)
            pageAlpha.append(alpha)
            if first == nil {
                guard let width = tags[256], let height = tags[257] else { return nil }
                first = ImageHeader(width: width, height: height, components: samples, hasAlpha: alpha,
                                    bitDepth: tags[258] ?? 1)
            }
            let next = directory + countSize + entries * entrySize
            guard let following = value(next, offsetSize) else { break }
            directory = following
        }
        first?.pageAlpha = pageAlpha
        return first
    }
}
