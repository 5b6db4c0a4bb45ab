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
