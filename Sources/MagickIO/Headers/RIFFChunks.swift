/// A RIFF file's chunks (WebP), walked from the first after the `RIFF` header: a four-letter id,
/// a little-endian length, the data padded to an even length. Bounded by the data like PNG's.
enum RIFFChunks {
    struct Chunk: Sendable {
        var id: String
        var offset: Int
        var length: Int

        var data: Range<Int> { (offset + 8)..<(offset + 8).saturatingPlus(length) }
        var end: Int { offset.saturatingPlus(8).saturatingPlus(length).saturatingPlus(length & 1) }
    }

    /// Hands each chunk to `visit` until it returns false or the data ends.
    static func walk(_ reader: inout ByteReader, visit: (inout ByteReader, Chunk) -> Bool) {
        var offset = 12
        while let id = reader.bytes(at: offset, 4), let length = reader.u32le(at: offset + 4) {
            let chunk = Chunk(id: String(decoding: id, as: UTF8.self), offset: offset, length: length)
            guard visit(&reader, chunk) else { return }
            offset = chunk.end
        }
    }

    /// The length the RIFF header declares for the whole file, less its first 8 bytes.
    static func declaredLength(_ reader: inout ByteReader) -> Int? {
        reader.u32le(at: 4)
    }
}
