/// The format `Image/encoded(as:metadata:)` and `Image/write(to:as:metadata:)` produce.
///
/// ```swift
/// let jpeg = try thumb.encoded(as: .jpeg(quality: 85))
/// if EncodingFormat.avif(quality: 60).isAvailable { ... }
/// ```
///
/// JPEG, PNG and WebP are written by ImageMagick and always there with Debian's ImageMagick. HEIC
/// and AVIF are written by libheif (x265 and aom in Debian 12's libheif 1.15), with alpha; where
/// libheif or its encoder is missing, ``isAvailable`` is false and encoding throws
/// ``MagickIOError/Kind/encodingFailed``.
public enum EncodingFormat: Sendable, Hashable {
    /// Baseline JPEG at `quality` 1...100; alpha is flattened onto white.
    case jpeg(quality: Int)
    /// Lossless PNG, 8 bits per channel, alpha kept.
    case png
    /// Lossy WebP at `quality` 1...100, alpha kept.
    case webp(quality: Int)
    /// HEIC (HEVC, through libheif's x265 encoder) at `quality` 1...100, alpha kept; 8-bit,
    /// chroma 4:4:4 from quality 90 up and 4:2:0 below.
    case heic(quality: Int)
    /// AVIF (AV1, through libheif's aom encoder) at `quality` 1...100, alpha kept; 8-bit, chroma
    /// 4:4:4 from quality 90 up and 4:2:0 below.
    case avif(quality: Int)
    /// GIF through giflib: at most 255 colours a frame (giflib's median cut beyond), alpha on or
    /// off; an animated thumbnail as an animated GIF. Pixels are written upright, without metadata.
    case gif

    /// The ImageMagick coder name.
    var magickName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WEBP"
        case .heic: "HEIC"
        case .avif: "AVIF"
        case .gif: "GIF"
        }
    }

    /// The usual file name extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .heic: "heic"
        case .avif: "avif"
        case .gif: "gif"
        }
    }

    var quality: Int? {
        switch self {
        case .jpeg(let quality), .webp(let quality), .heic(let quality), .avif(let quality): quality
        case .png, .gif: nil
        }
    }

    /// Whether a file written in this format really keeps an image's alpha channel: true for PNG,
    /// WebP, HEIC and AVIF (the last two write it as an auxiliary alpha image) and GIF (one
    /// transparent colour: alpha below half is transparent); false for JPEG, whose output is
    /// flattened onto white.
    public var keepsAlpha: Bool {
        if case .jpeg = self { return false }
        return true
    }

    /// The libheif encoder that writes this format, or nil for ImageMagick's formats.
    var heifCodec: HEIFEncoder.Codec? {
        switch self {
        case .heic: .hevc
        case .avif: .av1
        case .jpeg, .png, .webp, .gif: nil
        }
    }

    /// Whether this format can be written here.
    ///
    /// Stands on `GetMagickInfo` for JPEG, PNG and WebP and on libheif's
    /// `heif_have_encoder_for_format` for HEIC and AVIF.
    public var isAvailable: Bool {
        if let heifCodec { return HEIFEncoder.isAvailable(heifCodec) }
        if self == .gif { return true }  // giflib, linked
        return MagickFormats.hasEncoder(magickName)
    }
}
