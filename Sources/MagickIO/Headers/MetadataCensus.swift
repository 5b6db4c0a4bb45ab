import Foundation

/// The metadata a file carries, counted by MagickIO's walkers before any decoder runs: its bytes
/// once decompressed and its chunks or segments (``DecodingOptions/maxMetadataBytes`` and
/// ``DecodingOptions/maxFrameCount`` hold them). A decoder that keeps metadata is refused past
/// either; one that drops it reads the file without the chunks it does not need
/// (``strippedCopy(_:withoutICC:)``), which is how a 1 MB PNG whose comment inflates to a gigabyte, or a
/// JPEG of 600,000 tiny APP15 segments that ImageMagick appends to one profile each in turn,
/// still gets a thumbnail.
///
/// Counted:
/// - PNG: `tEXt`, `zTXt`, `iTXt` (ImageMagick's "Raw profile type" hex included), `iCCP`,
///   `eXIf`; compressed ones through zlib, counting only, and never past the cap.
/// - JPEG: APP0-APP15 and COM segments anywhere in the file, between scans too, up to EOI (COM
///   by its bytes only: ImageMagick keeps the last comment, so many cost it no more than that).
/// - TIFF: the ICC (34675), XMP (700), IPTC (33723), Photoshop (34377) and EXIF directory tags
///   of every directory; WebP: `ICCP`, `EXIF`, `XMP ` chunks; GIF: comment and application
///   extensions; HEIF: `Exif` and `mime` (XMP) items and `colr` profiles. None of these is
///   compressed: the file's own bytes bound them.
struct MetadataCensus: Sendable, Equatable {
    /// Metadata bytes, decompressed (a compressed chunk counted up to the cap, then stopped).
    var bytes = 0
    /// Metadata chunks or segments.
    var segments = 0
    /// The embedded ICC profile's bytes, decompressed (counted up to the cap).
    var iccBytes = 0
    /// The chunks or segments a decode that drops metadata leaves out (PNG, JPEG, GIF), merged
    /// where they touch, in file order.
    var droppable: [Range<Int>] = []
    /// The ICC profile's chunk or segments, left out too when the profile alone is over the cap.
    var icc: [Range<Int>] = []
    /// The walk went over the whole file (PNG to IEND, JPEG to EOI); a truncated or damaged file
    /// is counted as far as it goes.
    var isComplete = true
    /// Why the walker could not count every structure it counts (a TIFF whose directories run
    /// past the walk's entry budget): the census then stands for more than the limits allow.
    var uncounted: String?

    /// The census of `bytes` as `format`, compressed chunks counted up to `cap` bytes each; a
    /// JPEG's only up to its first scan header when `jpegUntilScan`; from `index`, what its source
    /// walked at open, where it holds what the census reads (walked here when it does not).
    static func take(_ bytes: SourceBytes, format: ImageFormat, cap: Int, jpegUntilScan: Bool = false,
                     index: ContainerIndex? = nil) -> MetadataCensus {
        var reader = ByteReader(bytes)
        switch format {
        case .png: return PNGMetadata.census(bytes, index: index?.png ?? PNGIndex(bytes), cap: cap)
        case .jpeg: return JPEGMetadata.census(bytes, untilScan: jpegUntilScan, index: index?.jpeg)
        case .tiff: return ContainerMetadata.tiff(index?.tiff ?? TIFFIndex(bytes))
        case .webp: return ContainerMetadata.webp(&reader, index: index?.webp ?? RIFFIndex(bytes))
        case .gif: return ContainerMetadata.gif(&reader)
        case .heic, .avif: return ContainerMetadata.heif(index?.heif ?? HEIFItems.read(&reader), fileSize: bytes.count)
        default: return MetadataCensus()
        }
    }

    /// Counts one chunk or segment of `size` decompressed bytes (its bytes only unless
    /// `isSegment`).
    mutating func add(_ size: Int, isSegment: Bool = true) {
        bytes = bytes.saturatingPlus(size)
        if isSegment { segments += 1 }
    }

    /// Marks `range` as one a stripping decode leaves out.
    mutating func drop(_ range: Range<Int>) {
        if let last = droppable.last, last.upperBound == range.lowerBound {
            droppable[droppable.count - 1] = last.lowerBound..<range.upperBound
        } else {
            droppable.append(range)
        }
    }

    /// The limit this census is over, as the error a decode that keeps metadata throws, or nil.
    func excess(_ options: DecodingOptions) -> MagickIOError? {
        if let uncounted {
            return MagickIOError.limit("maxFrameCount", requested: options.maxFrameCount.saturatingPlus(1),
                                       limit: options.maxFrameCount, uncounted)
        }
        if bytes > options.maxMetadataBytes {
            return MagickIOError.limit("maxMetadataBytes", requested: bytes, limit: options.maxMetadataBytes,
                                       "the file carries at least \(bytes) bytes of metadata once decompressed")
        }
        if segments > options.maxFrameCount {
            return MagickIOError.limit("maxFrameCount", requested: segments, limit: options.maxFrameCount,
                                       "the file carries \(segments) metadata chunks or segments")
        }
        return nil
    }

    /// Whether the ICC profile alone is over the cap, or a JPEG's chain has more segments than a
    /// profile can (ImageMagick appends each to the one before): a stripping decode then leaves it
    /// out too, and the colours stay as stored.
    func dropsICC(_ options: DecodingOptions) -> Bool {
        iccBytes > options.maxMetadataBytes || icc.count > JPEGMetadata.maxICCSegments
    }

    /// The file without ``droppable`` (and without ``icc`` when `withoutICC`), in memory; nil
    /// when the format's chunks cannot be left out (TIFF, WebP, HEIF: their metadata is not
    /// compressed, so the file's size bounds what it costs) or nothing is to be dropped.
    func strippedCopy(_ source: SourceBytes, withoutICC: Bool) -> Data? {
        var ranges = droppable
        if withoutICC { ranges += icc }
        guard !ranges.isEmpty else { return nil }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var copy = Data()
        copy.reserveCapacity(max(0, source.count - ranges.reduce(0) { $0.saturatingPlus($1.count) }))
        var offset = 0
        func keep(upTo end: Int) {
            while offset < min(end, source.count) {
                let piece = source.read(at: offset, length: min(end - offset, 1 << 20))
                guard !piece.isEmpty else { return }
                copy.append(contentsOf: piece)
                offset += piece.count
            }
        }
        for range in ranges where range.lowerBound >= offset {
            keep(upTo: range.lowerBound)
            offset = range.upperBound
        }
        keep(upTo: source.count)
        return copy
    }
}
