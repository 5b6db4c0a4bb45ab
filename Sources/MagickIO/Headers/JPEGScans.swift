#if canImport(Glibc)
import Glibc
#endif

/// The scans of a JPEG after its frame header, walked as libjpeg reads them: a scan header (SOS),
/// then entropy-coded data in which FF 00 is a stuffed byte and RSTn a restart marker, to the next
/// marker; tables and comments between scans; the end at EOI or at the end of the data.
///
/// The CPU a decode costs grows with the blocks each scan covers: libjpeg decodes every block of
/// every component a scan names, however few bytes the scan takes. An arithmetic-coded DC scan of
/// a flat picture codes 1.2 million blocks in a handful of bytes, so a 24 KB file of 1,500 such
/// scans costs libjpeg-turbo a minute. ``ScanWork/blockScans`` is that work, held against
/// ``maxBlockScans`` before either decoder starts.
extension JPEGSegments {
    /// What the scans ask of the decoder.
    struct ScanWork: Sendable, Hashable {
        /// Scan headers (SOS) found.
        var scans = 0
        /// The sum over the scans of the 8x8 blocks of the components in each (blocks counted on
        /// the MCU grid, which covers a non-interleaved scan's blocks too).
        var blockScans = 0
    }

    /// The most block-scans a decode may take: 150 million. libjpeg-turbo 2.1 decodes a block of
    /// a scan in 13 ns (grey) to 24 ns (three components interleaved, arithmetic-coded), measured
    /// on `scripts/jpeg-scans.c`'s repeated DC scans: djpeg over 4000x4000 at 10 and 210 scans
    /// (13 ns grey arithmetic, 16 ns grey Huffman, 19 ns 4:2:0 and 4:4:4 arithmetic), and the
    /// release `thumbnail` tool over 5600x5600 4:4:4 at 135 scans (198 million block-scans in
    /// 4.9 s of CPU, 24 ns each, on a loaded machine). 150 million is at most about 3.6 s, the
    /// rest of 5 s left for the output pass. The largest legitimate progressive JPEG, 268 MP in
    /// 4:4:4 with libjpeg's standard script (`jpeg_simple_progression`: 14 component-scans per
    /// block position), is 59 million; in 4:2:0 34 million.
    static let maxBlockScans = 150_000_000

    /// The scans of the JPEG in `source` after `frame`, as far as the data goes. A scan naming a
    /// component the frame lacks (which libjpeg refuses) counts as the frame's largest.
    static func scanWork(in source: SourceBytes, after frame: Frame) -> ScanWork {
        let hmax = max(frame.sampling.map(\.horizontal).max() ?? 1, 1)
        let vmax = max(frame.sampling.map(\.vertical).max() ?? 1, 1)
        let mcus = ((frame.width + 8 * hmax - 1) / (8 * hmax)).saturatingTimes((frame.height + 8 * vmax - 1) / (8 * vmax))
        let blocks = frame.sampling.map { mcus.saturatingTimes($0.horizontal * $0.vertical) }
        let largest = blocks.max() ?? 0

        var work = ScanWork()
        var cursor = Cursor(source: source, offset: frame.segmentEnd)
        while let code = cursor.nextMarker() {
            switch code {
            case 0xD9:
                return work
            case 0xD0...0xD7, 0xD8, 0x01:
                continue  // no length
            default:
                break
            }
            guard let length = cursor.u16(), length >= 2 else { return work }
            let payload = cursor.offset + 2
            if code == 0xDA, let count = cursor.byte(at: payload) {
                work.scans += 1
                for index in 0..<Int(count) {
                    guard let id = cursor.byte(at: payload + 1 + 2 * index) else { break }
                    let component = frame.componentIDs.firstIndex(of: id)
                    work.blockScans = work.blockScans.saturatingPlus(component.map { blocks[$0] } ?? largest)
                }
            }
            cursor.offset = cursor.offset.saturatingPlus(length)
        }
        return work
    }

    /// A forward reader over the source in 64 KiB chunks, finding 0xFF bytes with `memchr`: the
    /// entropy-coded data is most of a JPEG, and is skipped at memory speed.
    private struct Cursor {
        let source: SourceBytes
        var offset: Int
        private var chunk: [UInt8] = []
        private var chunkStart = 0

        init(source: SourceBytes, offset: Int) {
            self.source = source
            self.offset = offset
        }

        mutating func byte(at position: Int) -> UInt8? {
            guard position >= 0, position < source.count else { return nil }
            if position < chunkStart || position >= chunkStart + chunk.count {
                chunkStart = position
                chunk = source.read(at: position, length: 1 << 16)
                guard !chunk.isEmpty else { return nil }
            }
            return chunk[position - chunkStart]
        }

        /// The big-endian length at the current offset (the offset stays).
        mutating func u16() -> Int? {
            guard let high = byte(at: offset), let low = byte(at: offset + 1) else { return nil }
            return Int(high) << 8 | Int(low)
        }

        /// libjpeg's `next_marker`: past any bytes to a 0xFF, past fill bytes, to a code other
        /// than 00 (a stuffed data byte). The offset ends after the code.
        mutating func nextMarker() -> UInt8? {
            while skipToFF() {
                var code: UInt8 = 0xFF
                while code == 0xFF {
                    guard let next = byte(at: offset) else { return nil }
                    offset += 1
                    code = next
                }
                if code != 0x00 { return code }
            }
            return nil
        }

        /// Moves past the next 0xFF; false when the data ends first.
        private mutating func skipToFF() -> Bool {
            while offset < source.count {
                guard byte(at: offset) != nil else { return false }
                let start = offset - chunkStart
                let found: Int? = chunk.withUnsafeBufferPointer { buffer in
                    guard let base = buffer.baseAddress,
                          let hit = memchr(base + start, 0xFF, buffer.count - start) else { return nil }
                    return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
                }
                if let found {
                    offset = chunkStart + found + 1
                    return true
                }
                offset = chunkStart + chunk.count
            }
            return false
        }
    }
}
