import Foundation

/// Bounds-checked reads of a source's bytes through a small window, so that a walk over many
/// small structures (JPEG fill bytes, GIF sub-blocks) costs one `pread` per 64 KiB, not one per
/// structure. Every read past the end answers nil: a header walk never traps on hostile lengths.
/// A walk that jumps over what lies between its headers (PNG chunks) reads them with
/// ``peek(at:_:)``; one that jumps back and forth over a small block (an EXIF profile's
/// directories) takes a window that holds it all.
struct ByteReader {
    let source: SourceBytes
    private var window: [UInt8] = []
    private var windowStart = 0
    /// The bytes a window holds (64 KiB unless the reader was made with more).
    private let windowSize: Int
    /// The small window of ``peek(at:_:)``.
    private var glimpse: [UInt8] = []
    private var glimpseStart = 0
    private static let glimpseSize = 512

    /// `window`: the bytes read at once (64 KiB; no less).
    init(_ source: SourceBytes, window: Int = 1 << 16) {
        self.source = source
        windowSize = max(window, 1 << 16)
    }

    /// The number of bytes.
    var count: Int { source.count }

    /// The byte at `offset`, or nil past the end.
    mutating func u8(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        if offset < windowStart || offset >= windowStart + window.count {
            windowStart = offset
            window = source.read(at: offset, length: windowSize)
            guard !window.isEmpty else { return nil }
        }
        return window[offset - windowStart]
    }

    /// `length` bytes from `offset`, or nil when the source ends first.
    mutating func bytes(at offset: Int, _ length: Int) -> [UInt8]? {
        guard offset >= 0, length >= 0, length <= count, offset <= count - length else { return nil }
        if let held = fromWindow(offset, length) { return held }
        if length > windowSize / 2 {
            let got = source.read(at: offset, length: length)
            return got.count == length ? got : nil
        }
        windowStart = offset
        window = source.read(at: offset, length: windowSize)
        guard window.count >= length else { return nil }
        return Array(window[0..<length])
    }

    /// The `length` bytes at `offset` when the window holds them all, else nil.
    private func fromWindow(_ offset: Int, _ length: Int) -> [UInt8]? {
        guard offset >= windowStart, offset + length <= windowStart + window.count else { return nil }
        return Array(window[(offset - windowStart)..<(offset - windowStart + length)])
    }

    /// `length` bytes from `offset` for a walk that jumps over the data between its headers (a
    /// PNG's chunks): from the window when it holds them, else through a small window of its own,
    /// so that the big one is not read again at each header. At a 64 KiB window a header, a PNG
    /// whose image data comes in 8 KiB chunks (libvips', libpng's default) was read whole, 65 MB
    /// copied for the index of a 25 MP picture; 512 bytes a read keep a file of nothing but empty
    /// chunks at one read per 42 of them.
    mutating func peek(at offset: Int, _ length: Int) -> [UInt8]? {
        guard length <= Self.glimpseSize else { return bytes(at: offset, length) }
        guard offset >= 0, length >= 0, length <= count, offset <= count - length else { return nil }
        if let held = fromWindow(offset, length) { return held }
        if offset < glimpseStart || offset + length > glimpseStart + glimpse.count {
            glimpseStart = offset
            glimpse = source.read(at: offset, length: Self.glimpseSize)
            guard glimpse.count >= length else { return nil }
        }
        return Array(glimpse[(offset - glimpseStart)..<(offset - glimpseStart + length)])
    }

    /// A big-endian 16-bit value at `offset`.
    mutating func u16be(at offset: Int) -> Int? {
        guard let high = u8(at: offset), let low = u8(at: offset + 1) else { return nil }
        return Int(high) << 8 | Int(low)
    }

    /// A big-endian 32-bit value at `offset`.
    mutating func u32be(at offset: Int) -> Int? {
        guard let high = u16be(at: offset), let low = u16be(at: offset + 2) else { return nil }
        return high << 16 | low
    }

    /// A little-endian 16-bit value at `offset`.
    mutating func u16le(at offset: Int) -> Int? {
        bytes(at: offset, 2)?.u16le(at: 0)
    }

    /// A little-endian 32-bit value at `offset`.
    mutating func u32le(at offset: Int) -> Int? {
        bytes(at: offset, 4)?.u32le(at: 0)
    }

    /// The offset of the first `byte` at or after `offset`, or nil when the source ends first: a
    /// scan over entropy-coded data at `memchr`'s speed, one window at a time.
    mutating func firstIndex(of byte: UInt8, from offset: Int) -> Int? {
        var offset = offset
        while offset >= 0, offset < count {
            if offset < windowStart || offset >= windowStart + window.count {
                windowStart = offset
                window = source.read(at: offset, length: windowSize)
                guard !window.isEmpty else { return nil }
            }
            let start = offset - windowStart
            let found = window.withUnsafeBufferPointer { buffer -> Int? in
                guard let base = buffer.baseAddress,
                      let hit = memchr(base + start, Int32(byte), buffer.count - start) else { return nil }
                return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            }
            if let found { return windowStart + found }
            offset = windowStart + window.count
        }
        return nil
    }
}

// MARK: - Bytes already read

extension RandomAccessCollection where Element == UInt8, Index == Int {
    /// The 16-bit value `offset` bytes from the start (a slice's too), in the byte order given;
    /// the caller has checked the bounds.
    func u16(at offset: Int, littleEndian: Bool) -> Int {
        let first = Int(self[startIndex + offset]), second = Int(self[startIndex + offset + 1])
        return littleEndian ? first | second << 8 : first << 8 | second
    }

    /// The 32-bit value `offset` bytes from the start, in the byte order given.
    func u32(at offset: Int, littleEndian: Bool) -> Int {
        let first = u16(at: offset, littleEndian: littleEndian), second = u16(at: offset + 2, littleEndian: littleEndian)
        return littleEndian ? first | second << 16 : first << 16 | second
    }

    func u16be(at offset: Int) -> Int { u16(at: offset, littleEndian: false) }
    func u32be(at offset: Int) -> Int { u32(at: offset, littleEndian: false) }
    func u16le(at offset: Int) -> Int { u16(at: offset, littleEndian: true) }
    func u32le(at offset: Int) -> Int { u32(at: offset, littleEndian: true) }

    /// A little-endian 24-bit value (WebP's canvas and frame sizes, a ThumbHash's header).
    func u24le(at offset: Int) -> Int { u16le(at: offset) | Int(self[startIndex + offset + 2]) << 16 }
}
