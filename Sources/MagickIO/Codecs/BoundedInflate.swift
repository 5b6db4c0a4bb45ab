internal import CCodecs

/// zlib's inflate with a ceiling on what comes out (`mio_inflate_bounded`): a PNG text chunk's
/// text, read without letting a megabyte of deflate claim a gigabyte of memory.
enum BoundedInflate {
    /// The first `limit` bytes `stream` inflates to (fewer when it ends first), or nil when it is
    /// not zlib.
    static func inflate(_ stream: ArraySlice<UInt8>, limit: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: max(limit, 0))
        let written = stream.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                mio_inflate_bounded(input.baseAddress, input.count, output.baseAddress, output.count)
            }
        }
        guard written >= 0 else { return nil }
        return Array(out.prefix(written))
    }
}
