import Foundation

/// The image file directories (IFDs) of a TIFF structure, classic or BigTIFF: a TIFF file, or the
/// EXIF block of a JPEG, PNG or WebP (after its `Exif\0\0` prefix). Offsets are from the TIFF
/// header, as TIFF's own are. Every read is bounds-checked; a directory chain that loops ends.
struct TIFFDirectories {
    /// One 12-byte (20 in BigTIFF) directory entry.
    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        /// Where the entry starts.
        var offset: Int
        /// Where its value, or the offset of its value, lies.
        var valueField: Int
        /// The bytes its values take (count × the type's size).
        var valueSize: Int
        /// Whether the values are in the entry itself.
        var isInline: Bool
    }

    /// Bytes per value of each TIFF field type (BYTE, ASCII, SHORT, LONG, RATIONAL, SBYTE,
    /// UNDEFINED, SSHORT, SLONG, SRATIONAL, FLOAT, DOUBLE, IFD; BigTIFF's LONG8, SLONG8, IFD8).
    static let typeSizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4,
                            16: 8, 17: 8, 18: 8]

    private var reader: ByteReader
    /// Where the TIFF header starts in the data.
    let base: Int
    let isLittleEndian: Bool
    let isBigTIFF: Bool

    /// The structure at `base` in `source` (6 past an `Exif\0\0` prefix when `skipsEXIFPrefix`), or
    /// nil without a valid byte-order mark and version. `wholeWindow`: read it all at once, up to
    /// 1 MiB (a block in memory whose directories and values lie anywhere in it, such as an EXIF
    /// profile: a 64 KiB window would be read again at each jump across a larger profile).
    init?(_ source: SourceBytes, skipsEXIFPrefix: Bool = false, wholeWindow: Bool = false) {
        var reader = wholeWindow ? ByteReader(source, window: min(source.count, 1 << 20)) : ByteReader(source)
        var base = 0
        if skipsEXIFPrefix, reader.bytes(at: 0, 6) == Array("Exif\0\0".utf8) { base = 6 }
        guard let head = reader.bytes(at: base, 4), head[0] == head[1], head[0] == 0x49 || head[0] == 0x4D else { return nil }
        let little = head[0] == 0x49
        let version = head.u16(at: 2, littleEndian: little)
        guard version == 42 || version == 43 else { return nil }
        self.reader = reader
        self.base = base
        isLittleEndian = little
        isBigTIFF = version == 43
    }

    /// An EXIF block's structure.
    init?(exif bytes: [UInt8]) {
        self.init(.memory(Data(bytes)), skipsEXIFPrefix: true, wholeWindow: true)
    }

    var offsetSize: Int { isBigTIFF ? 8 : 4 }
    private var countSize: Int { isBigTIFF ? 8 : 2 }
    private var entrySize: Int { isBigTIFF ? 20 : 12 }

    /// An unsigned value of `size` bytes at `offset`, in the structure's byte order.
    mutating func value(at offset: Int, size: Int) -> Int? {
        guard offset >= 0, let bytes = reader.bytes(at: base.saturatingPlus(offset), size) else { return nil }
        let value = (isLittleEndian ? bytes.reversed() : bytes).reduce(0) { $0 << 8 | Int($1) }
        // A BigTIFF 64-bit field past Int.max wraps negative: no offset or count is that large.
        return value >= 0 ? value : nil
    }

    /// A signed 32-bit value at `offset` (how ImageMagick's EXIF reader takes counts and offsets).
    mutating func signed32(at offset: Int) -> Int? {
        value(at: offset, size: 4).map { Int(Int32(truncatingIfNeeded: $0)) }
    }

    /// The `count` bytes at `offset`, as stored.
    mutating func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0 else { return nil }
        return reader.bytes(at: base.saturatingPlus(offset), count)
    }

    /// The first directory's offset (IFD0).
    mutating func firstDirectory() -> Int? {
        value(at: isBigTIFF ? 8 : 4, size: offsetSize)
    }

    /// The most directory entries one walk reads, over all its directories (65,536): a legitimate
    /// file of a thousand pages (``DecodingOptions/maxFrameCount``'s default) reads about 20,000;
    /// directories that overlap (each entry's last bytes the next one's count) could otherwise make
    /// 10,000 directories of 4,096 entries out of 169 KB. A walk stopped here offers the pages it
    /// read whole, and its metadata count stands for more than the limits allow.
    static let entryBudget = 1 << 16
    /// Entries read so far; once at ``entryBudget`` every further directory reads as empty.
    private(set) var entriesRead = 0
    /// Whether the walk stopped reading entries at ``entryBudget``: what it found is not all.
    var isExhausted: Bool { entriesRead >= Self.entryBudget }

    /// The entries of the directory at `offset` (at most `limit`), the first of each tag only:
    /// libtiff ignores a tag's later duplicates, so every reader of a directory must too
    /// (`keepingDuplicates` for an editor that must reach every entry).
    mutating func entries(at offset: Int, limit: Int = 4096, keepingDuplicates: Bool = false) -> [Entry] {
        // Offsets past the data cannot be read (and would overflow the arithmetic below).
        guard offset >= 0, offset <= reader.count, let count = value(at: offset, size: countSize) else { return [] }
        var entries: [Entry] = []
        var tags = Set<Int>()
        for index in 0..<min(count, limit, max(Self.entryBudget - entriesRead, 0)) {
            entriesRead += 1
            let at = offset.saturatingPlus(countSize + index * entrySize)
            guard let tag = value(at: at, size: 2), let type = value(at: at + 2, size: 2),
                  let values = value(at: at + 4, size: offsetSize) else { break }
            guard tags.insert(tag).inserted || keepingDuplicates else { continue }
            let size = (Self.typeSizes[type] ?? 1).saturatingTimes(values)
            entries.append(Entry(tag: tag, type: type, count: values, offset: at, valueField: at + 4 + offsetSize,
                                 valueSize: size, isInline: size <= offsetSize))
        }
        return entries
    }

    /// Where the link to the next directory lies, after the entries of the one at `offset`.
    mutating func linkField(ofDirectoryAt offset: Int) -> Int? {
        guard offset >= 0, offset <= reader.count else { return nil }
        return value(at: offset, size: countSize).map { offset.saturatingPlus(countSize).saturatingPlus($0.saturatingTimes(entrySize)) }
    }

    /// The next directory after the one at `offset`, or nil at the end of the chain.
    mutating func nextDirectory(after offset: Int) -> Int? {
        guard let link = linkField(ofDirectoryAt: offset), let next = value(at: link, size: offsetSize), next > 0 else { return nil }
        return next
    }

    /// The offsets of every directory in the chain from IFD0, stopping at a loop or after `limit`.
    mutating func chain(limit: Int = TIFFIndex.maxDirectories) -> [Int] {
        var directories: [Int] = [], seen: Set<Int> = []
        var next = firstDirectory()
        while let directory = next, directory > 0, directories.count < limit, seen.insert(directory).inserted {
            directories.append(directory)
            next = nextDirectory(after: directory)
        }
        return directories
    }

    /// The first value of `entry` (SHORT, LONG or LONG8; from its data when out of line).
    mutating func firstValue(of entry: Entry) -> Int? {
        let size = Self.typeSizes[entry.type] ?? 0
        guard [1, 2, 4, 8].contains(size), entry.count > 0 else { return nil }
        if entry.isInline { return value(at: entry.valueField, size: size) }
        return value(at: entry.valueField, size: offsetSize).flatMap { value(at: $0, size: size) }
    }
}
