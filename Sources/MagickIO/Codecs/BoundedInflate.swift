internal import CCodecs

/// The size a zlib stream inflates to, counted through zlib without keeping the output (32 KiB of
/// scratch, overwritten): how MagickIO's metadata census measures a PNG's compressed text and ICC
/// chunks before any decoder inflates them for real; and the first bytes of such a stream, up to a
/// ceiling, for the properties (a raw EXIF profile's text).
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

    /// What the count found.
    struct Count {
        /// The bytes inflated, at most a little over the cap.
        var bytes: Int
        /// The count stopped because it passed the cap: the stream inflates to more than that.
        var passedCap: Bool
    }

    /// The bytes the zlib stream in `range` of `reader` inflates to, read 64 KiB at a time and
    /// counted up to `cap`: the work stops as soon as the count passes `cap` (so its CPU is bounded
    /// by the cap, whatever the stream claims), and a damaged stream counts what it gave.
    static func count(_ reader: inout ByteReader, _ range: Range<Int>, cap: Int) -> Count {
        guard let inflater = mio_inflate_create() else { return Count(bytes: cap.saturatingPlus(1), passedCap: true) }
        defer { mio_inflate_destroy(inflater) }
        var offset = range.lowerBound
        var total: UInt64 = 0
        let limit = UInt64(max(cap, 0))
        while offset < range.upperBound {
            let length = min(1 << 16, range.upperBound - offset)
            guard let piece = reader.bytes(at: offset, length) else { break }
            let status = piece.withUnsafeBufferPointer { mio_inflate_count(inflater, $0.baseAddress, $0.count, limit, &total) }
            if status == 2 { return Count(bytes: Int(clamping: total), passedCap: true) }
            if status != 0 { break }
            offset += length
        }
        return Count(bytes: Int(clamping: total), passedCap: total > limit)
    }
}
