/// A PNG's chunks as ``PNGChunks/walk(_:visit:)`` finds them, walked once when its
/// ``ImageSource`` opens and kept in its ``ContainerIndex``: the header (``ImageHeader``), the
/// properties (``PNGProperties``), the metadata census (``PNGMetadata``) and the own path's text
/// check read it rather than walking the file again.
struct PNGIndex: Sendable {
    /// Every chunk to `IEND` or the end of the data, in order; nil when there were more than
    /// ``ContainerIndex/maxEntries(fileBytes:)`` (a file of nothing but empty chunks):
    /// ``visit(_:_:)`` then walks again rather than hold an entry for each.
    private let chunks: [PNGChunks.Chunk]?
    /// How the walk ended (`IEND`, or the data cut short).
    private let end: PNGChunks.End

    init(_ bytes: SourceBytes) {
        var reader = ByteReader(bytes)
        var kept = ContainerIndex.Capped<PNGChunks.Chunk>(most: ContainerIndex.maxEntries(fileBytes: bytes.count))
        end = PNGChunks.walk(&reader) { _, chunk in
            kept.append(chunk)
            return true
        }
        chunks = kept.entries
    }

    /// A run of chunks of one type and one length, each right after the one before.
    struct Run: Equatable, Sendable {
        var type: String
        var length: Int
        var count: Int
    }

    /// The chunks held as runs, from the first at offset 8 (as the walk goes: each chunk starts
    /// where the one before ends), and how the walk ended; nil when there are more than `most`
    /// runs, or no list was held. For a decode worker (``WorkerRequest``), which then need not
    /// walk the file again: a PNG's image data, most often in IDATs of one length, is a run or two,
    /// where the walk read a header for each (8,000 reads for a 25 MP picture in 8 KiB IDATs).
    func runs(most: Int) -> (runs: [Run], end: PNGChunks.End)? {
        guard let chunks else { return nil }
        var runs: [Run] = []
        for chunk in chunks {
            if let last = runs.last, last.type == chunk.type, last.length == chunk.length {
                runs[runs.count - 1].count += 1
                continue
            }
            guard runs.count < most else { return nil }
            runs.append(Run(type: chunk.type, length: chunk.length, count: 1))
        }
        return (runs, end)
    }

    /// The index `runs(most:)` gave; nil when it holds more than `most` chunks.
    init?(runs: [Run], end: PNGChunks.End, most: Int) {
        var chunks: [PNGChunks.Chunk] = []
        var offset = 8
        for run in runs {
            guard run.count > 0, run.count <= most - chunks.count else { return nil }
            for _ in 0..<run.count {
                let chunk = PNGChunks.Chunk(type: run.type, offset: offset, length: run.length)
                chunks.append(chunk)
                offset = chunk.end
            }
        }
        self.chunks = chunks
        self.end = end
    }

    /// ``PNGChunks/walk(_:visit:)`` over `bytes` (the bytes this index was made from), from the
    /// chunks held.
    @discardableResult
    func visit(_ bytes: SourceBytes, _ body: (inout ByteReader, PNGChunks.Chunk) -> Bool) -> PNGChunks.End {
        var reader = ByteReader(bytes)
        guard let chunks else { return PNGChunks.walk(&reader, visit: body) }
        for chunk in chunks {
            guard body(&reader, chunk) else { return .stopped }
            if chunk.type == "IEND" { return .imageEnd }
        }
        return end
    }
}
