/// How a thumbnail is made beyond its size: whether an embedded thumbnail may serve, what happens
/// to an embedded colour profile, and which metadata the thumbnail keeps.
///
/// ```swift
/// let fast = try source.thumbnail(maxPixelSize: 160, options: ThumbnailOptions(embedded: .ifAbsent))
/// ```
public struct ThumbnailOptions: Sendable, Hashable {
    /// When the thumbnail a camera stored in the file is used instead of decoding the image: a
    /// JPEG's EXIF thumbnail, or a HEIC/AVIF thumbnail item (read through libheif, which
    /// ImageMagick's coder never does). The embedded thumbnail ends upright too (the EXIF one is
    /// turned with the picture's orientation; an item's own `irot`/`imir` are applied), and keeps
    /// the picture's metadata when ``metadata`` says so. The words are ImageIO's, the meanings are
    /// not: ImageIO's keys name when the image itself is decoded, these when the embedded thumbnail
    /// is used. `kCGImageSourceCreateThumbnailFromImageAlways` is ``never`` (always decode the
    /// image); `kCGImageSourceCreateThumbnailFromImageIfAbsent` uses any embedded thumbnail, which
    /// is ``always``; ``ifAbsent`` also checks the size, which ImageIO leaves to the caller.
    public enum EmbeddedThumbnail: Sendable, Hashable, CaseIterable {
        /// Always decode the image itself (the default).
        case never
        /// Use the embedded thumbnail when it is at least as large as the thumbnail asked for on
        /// both sides (upright), so that it is never upscaled; decode the picture otherwise.
        case ifAbsent
        /// Use the embedded thumbnail whenever there is one, however small (never upscaled).
        case always
    }

    /// What happens to an embedded ICC profile.
    public enum ColorProfile: Sendable, Hashable, CaseIterable {
        /// Convert the pixels from the embedded profile to sRGB through Little CMS (the default);
        /// images without one are converted by colour space (CMYK to sRGB).
        case convertToSRGB
        /// Leave the pixels in the embedded profile's colour space and keep the profile.
        case keep
    }

    /// Whether an embedded thumbnail may serve. Default ``EmbeddedThumbnail/never``.
    public var embedded: EmbeddedThumbnail
    /// What happens to an embedded ICC profile. Default ``ColorProfile/convertToSRGB``.
    public var colorProfile: ColorProfile
    /// Which metadata the thumbnail keeps. Default ``MetadataPolicy/stripAll``.
    public var metadata: MetadataPolicy
    /// Where ``SizingMode/fill`` crops. Default ``Crop/center`` (the gravity asked for).
    public var crop: Crop

    /// Whether a JPEG, PNG, WebP, TIFF or HEIF thumbnail may stream through MagickIO's own decoders
    /// (libjpeg-turbo, libpng, libwebp, libtiff, libheif) rather than ImageMagick's: on by default; off makes every thumbnail take
    /// ImageMagick's path, which the tests and the benchmark compare it with.
    @_spi(Benchmarks) public var ownDecoders = true
    /// Whether a plain own-path thumbnail is made without an ImageMagick image
    /// (``WandlessThumbnail``): nil, in a decode worker only; tests set it.
    var buildsWithoutWand: Bool?

    /// Whether an animated GIF or WebP keeps all its frames (at most
    /// ``DecodingOptions/maxFrameCount``): each composited, resampled to the thumbnail size, with
    /// its delay and the loop count, for ``Image/encoded(as:metadata:)-8qo3b`` to write as an animated
    /// WebP or GIF (see <doc:AnimatedThumbnails>). Default false: the thumbnail is the frame asked for.
    public var animated: Bool

    public init(embedded: EmbeddedThumbnail = .never, colorProfile: ColorProfile = .convertToSRGB,
                metadata: MetadataPolicy = .stripAll, crop: Crop = .center, animated: Bool = false) {
        self.embedded = embedded
        self.colorProfile = colorProfile
        self.metadata = metadata
        self.crop = crop
        self.animated = animated
    }
}
