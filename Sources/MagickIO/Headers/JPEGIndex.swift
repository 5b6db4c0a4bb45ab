/// A JPEG's walk from SOI to its frame header (``JPEGSegments/frame(in:visit:)``), taken once
/// when its ``ImageSource`` opens and kept in its ``ContainerIndex``: the frame header, or why
/// there is none, and the segments before it. The header (``ImageHeader``), the frame's
/// properties (``FrameProperties``), the profiles an embedded thumbnail carries and the own path
/// checks (``JPEGProfiles``) and the scan count's frame (``ImageSource/checkScanWork()``) read it
/// rather than walking again. (The metadata census walks on, across the scans, with
/// ``JPEGSegments/walkAll(_:untilScan:visit:)``; the scan count over the entropy-coded data.)
struct JPEGIndex: Sendable {
    /// The frame header, or why the walk found none.
    let frame: Result<JPEGSegments.Frame, JPEGSegments.Failure>
    /// Every segment before the frame header, in order; nil when there were more than
    /// ``ContainerIndex/maxEntries(fileBytes:)`` (a file of nothing but tiny segments):
    /// ``visit(_:_:)`` then walks again rather than hold an entry for each.
    private let segments: [JPEGSegments.Segment]?

    init(_ bytes: SourceBytes) {
        var reader = ByteReader(bytes)
        var kept: [JPEGSegments.Segment]? = []
        let most = ContainerIndex.maxEntries(fileBytes: bytes.count)
        frame = JPEGSegments.frame(in: &reader) { _, segment in
            if kept?.count == most { kept = nil } else { kept?.append(segment) }
        }
        segments = kept
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
