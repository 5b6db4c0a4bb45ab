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
