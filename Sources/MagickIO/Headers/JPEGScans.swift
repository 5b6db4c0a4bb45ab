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

    /// The scans of the JPEG in `source`, walked by ``walkAll(_:from:untilScan:visit:)`` as far as the
    /// data goes (a scan before `frame`, which libjpeg refuses, counts too). A scan naming a
    /// component the frame lacks (which libjpeg refuses) counts as the frame's largest.
    static func scanWork(in source: SourceBytes, after frame: Frame) -> ScanWork {
        let hmax = max(frame.sampling.map(\.horizontal).max() ?? 1, 1)
        let vmax = max(frame.sampling.map(\.vertical).max() ?? 1, 1)
        let mcus = ((frame.width + 8 * hmax - 1) / (8 * hmax)).saturatingTimes((frame.height + 8 * vmax - 1) / (8 * vmax))
        let blocks = frame.sampling.map { mcus.saturatingTimes($0.horizontal * $0.vertical) }
        let largest = blocks.max() ?? 0

        var work = ScanWork()
        var reader = ByteReader(source)
        _ = walkAll(&reader) { reader, segment in
            guard segment.code == 0xDA, let count = reader.u8(at: segment.payload.lowerBound) else { return }
            work.scans += 1
            for index in 0..<Int(count) {
                guard let id = reader.u8(at: segment.payload.lowerBound + 1 + 2 * index) else { break }
                let component = frame.componentIDs.firstIndex(of: id)
                work.blockScans = work.blockScans.saturatingPlus(component.map { blocks[$0] } ?? largest)
            }
        }
        return work
    }

    /// Whether libjpeg decodes the first scan of this JPEG and no other: a sequential frame whose
    /// first scan names every component leaves libjpeg's `has_multiple_scans` false, and a
    /// second scan header then ends the decode (`JERR_EOI_EXPECTED`). Such a file's work is one
    /// scan, far under ``maxBlockScans``, and needs no walk past its header.
    /// `index`: the walk of `source` its source took at open, which went on to the first scan.
    static func decodesOneScan(in source: SourceBytes, frame: Frame, index: JPEGIndex? = nil) -> Bool {
        guard !frame.isProgressive else { return false }
        var components: Int?
        let look = { (reader: inout ByteReader, segment: Segment) in
            if segment.code == 0xDA { components = reader.u8(at: segment.payload.lowerBound).map(Int.init) }
        }
        if index?.visitToScan(source, look) == nil {
            var reader = ByteReader(source)
            _ = walkAll(&reader, untilScan: true, visit: look)
        }
        return components == frame.sampling.count
    }
}
