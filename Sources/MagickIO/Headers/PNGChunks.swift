/// A PNG's chunks, walked from the first after the signature: length, type, data, CRC. Each step
/// moves at least 12 bytes, so a walk is bounded by the data it reads; a length past the end of
/// the data ends it as truncated (a partial file: the decoder decides).
enum PNGChunks {
    struct Chunk: Sendable {
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

    enum End: Equatable, Sendable {
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
            guard let header = reader.peek(at: offset, 8) else { return .truncated }
            let chunk = Chunk(type: String(decoding: header[4..<8], as: UTF8.self), offset: offset, length: header.u32be(at: 0))
            guard visit(&reader, chunk) else { return .stopped }
            if chunk.type == "IEND" { return .imageEnd }
            offset = chunk.end
        }
    }

    /// Whether a text chunk (`tEXt`, `zTXt`, `iTXt`) comes before the image data: where
    /// ImageMagick's PNG coder finds the XMP packets and raw profiles it checks.
    /// `index`: the walk of `bytes` their source took (walked here when there is none).
    static func hasTextBeforeImageData(_ bytes: SourceBytes, index: PNGIndex? = nil) -> Bool {
        var found = false
        let look = { (_: inout ByteReader, chunk: Chunk) -> Bool in
            found = found || ["tEXt", "zTXt", "iTXt"].contains(chunk.type)
            return !found && chunk.type != "IDAT"
        }
        if let index {
            index.visit(bytes, look)
        } else {
            var reader = ByteReader(bytes)
            walk(&reader, visit: look)  // to the first IDAT only
        }
        return found
    }
}
