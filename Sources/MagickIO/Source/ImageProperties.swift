/// What a frame's header says, read without decoding its pixels.
///
/// ```swift
/// let p = try ImageSource(url: url).properties(at: 0)
/// print(p.pixelWidth, p.pixelHeight, p.orientation)   // 4032 3024 right
/// print(p.orientedWidth, p.orientedHeight)            // 3024 4032
/// ```
///
/// Read by MagickIO's own header walkers, no ImageMagick coder involved, with the values ImageMagick
/// 6.9.11's ping gives (its colour space names, its depth, its EXIF property names and formatting)
/// for JPEG, PNG, GIF, WebP, TIFF, BMP, HEIC and AVIF. A format outside these that the user
/// allowed is read by `MagickPingImageBlob` and the `MagickGetImage…` getters instead, and is
/// outside the promise that opening costs only the headers.
public struct ImageProperties: Sendable, Hashable {
    /// The format of the content.
    public var format: ImageFormat
    /// Width of the stored pixels.
    public var pixelWidth: Int
    /// Height of the stored pixels.
    public var pixelHeight: Int
    /// How the stored pixels must be turned to appear upright.
    public var orientation: Orientation
    /// Whether the frame has an alpha channel.
    public var hasAlpha: Bool
    /// ImageMagick's colour space name, lowercased (`srgb`, `cmyk`, `gray`, ...).
    public var colorSpace: String
    /// Bits per channel as stored.
    public var bitDepth: Int
    /// Resolution in pixels per inch, when the file gives one.
    public var resolution: Resolution?
    /// The EXIF tags ImageMagick exposes, keyed by tag name without the `exif:` prefix
    /// (`"Make"`, `"DateTimeOriginal"`, ...).
    public var exif: [String: String]

    /// GIF/WebP: the frame covers only part of its canvas (its offset or size differs), so
    /// decoding it means compositing it onto the canvas.
    var isOffsetOnCanvas = false

    /// A resolution in pixels per inch.
    public struct Resolution: Sendable, Hashable {
        public var x: Double
        public var y: Double
    }

    /// Width as a viewer shows it, after ``orientation``.
    public var orientedWidth: Int {
        orientation.swapsWidthAndHeight ? pixelHeight : pixelWidth
    }

    /// Height as a viewer shows it, after ``orientation``.
    public var orientedHeight: Int {
        orientation.swapsWidthAndHeight ? pixelWidth : pixelHeight
    }
}
