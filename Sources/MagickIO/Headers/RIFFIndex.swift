/// A WebP's top-level RIFF chunks as ``RIFFChunks/walk(_:visit:)`` finds them, walked once when
/// its ``ImageSource`` opens and kept in its ``ContainerIndex``: the header (``ImageHeader``), the
/// frames' properties (``WebPProperties``) and the metadata census (``ContainerMetadata``) read it
/// rather than walking the file again.
struct RIFFIndex: Sendable {
    /// Every chunk to the end of the data, in order; nil when there were more than
    /// ``ContainerIndex/maxEntries(fileBytes:)`` (a file of nothing but empty chunks):
    /// ``visit(_:_:)`` then walks again rather than hold an entry for each.
    private let chunks: [RIFFChunks.Chunk]?

    init(_ bytes: SourceBytes) {
        var reader = ByteReader(bytes)
        var kept = ContainerIndex.Capped<RIFFChunks.Chunk>(most: ContainerIndex.maxEntries(fileBytes: bytes.count))
        RIFFChunks.walk(&reader) { _, chunk in
            kept.append(chunk)
            return true
        }
        chunks = kept.entries
    }

    /// ``RIFFChunks/walk(_:visit:)`` over `reader` (of the bytes this index was made from), from
    /// the chunks held.
    func visit(_ reader: inout ByteReader, _ body: (inout ByteReader, RIFFChunks.Chunk) -> Bool) {
        guard let chunks else { return RIFFChunks.walk(&reader, visit: body) }
        for chunk in chunks {
            guard body(&reader, chunk) else { return }
        }
    }
}
