import Foundation

// The metadata limits (``DecodingOptions/maxMetadataBytes``, and ``DecodingOptions/maxFrameCount``
// for its chunks and segments), held before any decoder runs: a decode that keeps metadata is
// refused past them, one that drops it reads a copy of the file without what it does not need.

/// What a decoder reads: the source's bytes, or the copy the metadata limits left it, with what
/// leaving things out means for the picture.
struct DecoderInput: Sendable {
    var bytes: SourceBytes
    var warnings: [DecoderWarning] = []
    /// `bytes` is a copy with metadata left out, not the source's own bytes (which its
    /// ``ContainerIndex`` describes).
    var isStrippedCopy = false
}

/// Which of a file's metadata a decode keeps.
enum MetadataUse: Sendable, Hashable {
    /// All of it (`image(at:)`, a thumbnail that keeps metadata).
    case all
    /// Only what the pixels need; `profile` when the ICC profile must stay (a thumbnail that keeps
    /// its colour profile).
    case pixelsOnly(profile: Bool)

    init(_ options: ThumbnailOptions) {
        self = options.metadata == .stripAll ? .pixelsOnly(profile: options.colorProfile == .keep) : .all
    }
}

extension ImageSource {
    /// The bytes a decode that keeps `use` reads, after MagickIO's census of the file's metadata
    /// (``MetadataCensus``): the source's own when it is within ``decodingOptions``' limits (no
    /// copy); otherwise, when the decode keeps metadata, a ``MagickIOError/Kind/limitExceeded``
    /// naming `maxMetadataBytes` or `maxFrameCount`, and when it does not, a copy in memory
    /// without the chunks and segments the pixels do not need (and without an ICC profile over
    /// the cap: the colours then stay as stored, which a warning says).
    ///
    /// TIFF, WebP and HEIF files go through as they are when only pixels are kept: their metadata
    /// is not compressed, so what a decoder spends on it is bounded by the file's size.
    ///
    /// `forLibjpeg`: the bytes go to MagickIO's own JPEG rows (``JPEGRows``), and the census
    /// stops at the first scan header. Past it, libjpeg steps over every APPn and COM segment by
    /// its length, keeping none (``JPEGRows`` stops saving ICC segments once the header is read),
    /// and ImageMagick sees nothing of the file (the own path's header warnings check only the
    /// XMP packet, read from the segments before the frame header: ``Wand/profileCheck(_:_:filename:)``).
    /// Walking a 24 MP file's entropy-coded data for markers took 2 ms of a 90 ms thumbnail. ImageMagick's decode, the own path's fallback, takes its own whole
    /// census (``ThumbnailFill/admit(_:pictureInput:)``).
    func decoderInput(keeping use: MetadataUse, forLibjpeg: Bool = false) throws(MagickIOError) -> DecoderInput {
        let census = MetadataCensus.take(bytes, format: format, cap: decodingOptions.maxMetadataBytes,
                                         jpegUntilScan: forLibjpeg && format == .jpeg, index: index)
        guard let excess = census.excess(decodingOptions) else { return DecoderInput(bytes: bytes) }
        let withoutICC = census.dropsICC(decodingOptions)
        switch use {
        case .all:
            throw excess
        case .pixelsOnly(profile: true) where withoutICC:
            throw MagickIOError.limit("maxMetadataBytes", requested: census.iccBytes, limit: decodingOptions.maxMetadataBytes,
                                      "the colour profile to keep is \(census.iccBytes) bytes in \(census.icc.count) segments")
        case .pixelsOnly:
            return Self.stripped(bytes, format: format, census, withoutICC: withoutICC)
        }
    }

    private static func stripped(_ bytes: SourceBytes, format: ImageFormat, _ census: MetadataCensus,
                                 withoutICC: Bool) -> DecoderInput {
        guard let copy = census.strippedCopy(bytes, withoutICC: withoutICC) else { return DecoderInput(bytes: bytes) }
        var input = DecoderInput(bytes: .memory(copy), isStrippedCopy: true)
        if withoutICC {
            input.warnings.append(DecoderWarning(
                "the ICC profile (\(census.iccBytes) bytes in \(census.icc.count) segments) is over the maxMetadataBytes limit: left out, the colours are as stored",
                format: format))
        }
        return input
    }
}
