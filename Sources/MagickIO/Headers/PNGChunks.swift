/// A PNG's chunks, walked from the first after the signature: length, type, data, CRC. Each step
/// moves at least 12 bytes, so a walk is bounded by the data it reads; a length past the end of
/// the data ends it as truncated (a partial file: the decoder decides).
enum PNGChunks {
    struct Chunk {
        /// The chunk type, such as `IHDR` (non-letters kept as they are).
        var type: String
        /// Where the chunk starts (its length field).
        var offset: Int
        /// The declared length of its data.
        var length: Int

        /// Where its data lies.
        var data: Range<Int> { (offset + 8)..<(offset + 8).saturatingPlus(length) }
        /// Where the next chunk starts.
        var end: Int { offset.saturatingPlus(12).saturatingPlus(length) }
    }

    enum End: Equatable {
        /// `IEND` was reached.
        case imageEnd
        /// `visit` asked to stop.
        case stopped
        /// The data ends before the next chunk header.
        case truncated
    }

    /// Hands each chunk to `visit` until it returns false, `IEND`, or the end of the data.
    @discardableResult
    static func walk(_ reader: inout ByteReader, visit: (inout ByteReader, Chunk) -> Bool) -> End {
        var offset = 8
        while true {
            guard let length = reader.u32be(at: offset), let type = reader.bytes(at: offset + 4, 4) else { return .truncated }
            let chunk = Chunk(type: String(decoding: type, as: UTF8.self), offset: offset, length: length)
            guard visit(&reader, chunk) else { return .stopped }
            if chunk.type == "IEND" { return .imageEnd }
            offset = chunk.end
        }
    }
}

/// A RIFF file's chunks (WebP), walked from the first after the `RIFF` header: a four-letter id,
/// a little-endian length, the data padded to an even length. Bounded by the data like PNG's.
enum RIFFChunks {
    struct Chunk {
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

/// ISO base media file format boxes (HEIC, AVIF): size, type, and a 64-bit size when the size is
/// 1, or the rest of the enclosing range when it is 0. Each box must fit in its parent.
enum ISOBMFFBoxes {
    struct Box {
        var type: String
        var offset: Int
        /// Size and type, and the 64-bit size when there is one.
        var headerSize: Int
        var size: Int

        /// Where the box's body lies.
        var body: Range<Int> { (offset + headerSize)..<(offset + size) }
    }

    /// Hands each box in `range` to `visit`; stops at a box that does not fit.
    static func walk(_ reader: inout ByteReader, in range: Range<Int>, visit: (inout ByteReader, Box) -> Void) {
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, let size32 = reader.u32be(at: offset), let type = reader.bytes(at: offset + 4, 4) {
            var size = size32, headerSize = 8
            if size == 1 {
                guard let high = reader.u32be(at: offset + 8), let low = reader.u32be(at: offset + 12) else { return }
                size = high << 32 | low
                headerSize = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= headerSize, size <= range.upperBound - offset else { return }
            visit(&reader, Box(type: String(decoding: type, as: UTF8.self), offset: offset, headerSize: headerSize, size: size))
            offset += size
        }
    }
}
