/// A JPEG's walk from SOI to its frame header (``JPEGSegments/frame(in:visit:)``) and on to its
/// first scan header, taken once when its ``ImageSource`` opens and kept in its
/// ``ContainerIndex``: the frame header, or why there is none, and the segments around it. The header (``ImageHeader``), the frame's
/// properties (``FrameProperties``), the profiles an embedded thumbnail carries and the own path
/// checks (``JPEGProfiles``) and the scan count's frame (``ImageSource/checkScanWork()``) read it
/// rather than walking again. The walk goes on from the frame header to the first scan header
/// (what `jpeg_read_header` reads), so that the census of what libjpeg sees and the check for a
/// single scan read it too (``visitToScan(_:_:)``). (ImageMagick's census walks on across the
/// scans with ``JPEGSegments/walkAll(_:from:untilScan:visit:)``; the scan count of a progressive
/// file over the entropy-coded data.)
struct JPEGIndex: Sendable {
    /// The frame header, or why the walk found none.
    let frame: Result<JPEGSegments.Frame, JPEGSegments.Failure>
    /// Every segment before the frame header, in order; nil when there were more than
    /// ``ContainerIndex/maxEntries(fileBytes:)`` (a file of nothing but tiny segments):
    /// ``visit(_:_:)`` then walks again rather than hold an entry for each.
    private let segments: [JPEGSegments.Segment]?
    /// The segments after the frame header up to the first scan header (included), and whether
    /// the walk reached it (or EOI); nil without a frame header, or past the same cap.
    private let toScan: (segments: [JPEGSegments.Segment], complete: Bool)?

    init(_ bytes: SourceBytes) {
        var reader = ByteReader(bytes)
        let most = ContainerIndex.maxEntries(fileBytes: bytes.count)
        var kept = ContainerIndex.Capped<JPEGSegments.Segment>(most: most)
        frame = JPEGSegments.frame(in: &reader) { _, segment in kept.append(segment) }
        segments = kept.entries
        guard case .success(let header) = frame, let before = kept.entries else {
            toScan = nil
            return
        }
        // Before the frame header the two walks step alike (libjpeg's `next_marker`); from it
        // on, as walkAll, which the census and the scan check used to take from SOI. Both under
        // the one cap.
        var after = ContainerIndex.Capped<JPEGSegments.Segment>(most: most - before.count)
        let complete = JPEGSegments.walkAll(&reader, from: header.segmentEnd, untilScan: true) { _, segment in
            after.append(segment)
        }
        toScan = after.entries.map { ($0, complete) }
    }

    /// What ``JPEGSegments/walkAll(_:from:untilScan:visit:)`` with `untilScan` hands over for
    /// `bytes` (the bytes this index was made from), from the segments held: those before the frame
    /// header, the frame header, those after it to the first scan header. Returns what the walk
    /// would (it reached the scan or EOI), or nil, without visiting, when the index cannot say
    /// (no frame header, or more segments than it holds): the caller walks.
    func visitToScan(_ bytes: SourceBytes, _ body: (inout ByteReader, JPEGSegments.Segment) -> Void) -> Bool? {
        guard case .success(let header) = frame, let segments, let toScan else { return nil }
        var reader = ByteReader(bytes)
        for segment in segments { body(&reader, segment) }
        body(&reader, JPEGSegments.Segment(code: header.code, payload: (header.segmentStart + 4)..<header.segmentEnd))
        for segment in toScan.segments { body(&reader, segment) }
        return toScan.complete
    }

    /// Hands each segment before the frame header of `bytes` (the bytes this index was made from)
    /// to `body`, in order, with a reader of them.
    func visit(_ bytes: SourceBytes, _ body: (inout ByteReader, JPEGSegments.Segment) -> Void) {
        var reader = ByteReader(bytes)
        guard let segments else {
            _ = JPEGSegments.frame(in: &reader, visit: body)
            return
        }
        for segment in segments { body(&reader, segment) }
    }
}
