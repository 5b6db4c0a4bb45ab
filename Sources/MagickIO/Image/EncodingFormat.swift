/// The format `Image/encoded(as:metadata:)` and `Image/write(to:as:metadata:)` produce.
///
/// ```swift
/// let jpeg = try thumb.encoded(as: .jpeg(quality: 85))
/// if EncodingFormat.avif(quality: 60).isAvailable { ... }
/// ```
///
/// JPEG, PNG and WebP are always there with Debian's ImageMagick; HEIC and AVIF need its HEIC
/// coder built with libheif encoders (check ``isAvailable``).
public enum EncodingFormat: Sendable, Hashable {
    /// Baseline JPEG at `quality` 1...100; alpha is flattened onto white.
    case jpeg(quality: Int)
    /// Lossless PNG, 8 bits per channel, alpha kept.
    case png
    /// Lossy WebP at `quality` 1...100, alpha kept.
    case webp(quality: Int)
    /// HEIC (HEVC) at `quality` 1...100, where ImageMagick's HEIC coder can encode.
    case heic(quality: Int)
    /// AVIF (AV1) at `quality` 1...100, where ImageMagick's AVIF coder can encode.
    case avif(quality: Int)

    /// The ImageMagick coder name.
    var magickName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WEBP"
        case .heic: "HEIC"
        case .avif: "AVIF"
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
        }
    }

    var quality: Int? {
        switch self {
        case .jpeg(let quality), .webp(let quality), .heic(let quality), .avif(let quality): quality
        case .png: nil
        }
    }

    /// Whether the format keeps an alpha channel.
    var keepsAlpha: Bool {
        if case .jpeg = self { return false }
        return true
    }

    /// Whether the linked ImageMagick has an encoder for this format.
    ///
    /// Stands on `GetMagickInfo`.
    public var isAvailable: Bool {
        MagickFormats.hasEncoder(magickName)
    }
}
