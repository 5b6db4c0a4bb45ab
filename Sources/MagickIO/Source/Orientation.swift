/// How the stored pixels must be turned to appear upright, with EXIF's values and ImageIO's names.
///
/// A missing tag, 0, or any value outside 1...8 is ``up``. MagickIO honours the tag for JPEG and
/// TIFF, and reads it itself from PNG's `eXIf` and WebP's `EXIF` chunks, which ImageMagick 6
/// ignores. HEIC and AVIF keep theirs in `irot`/`imir` boxes that libheif applies as it decodes:
/// such an image is reported, and decoded, upright (``up``).
///
/// ```swift
/// let p = try source.properties(at: 0)
/// if p.orientation.swapsWidthAndHeight { ... }
/// ```
public enum Orientation: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Stored upright (EXIF 1).
    case up = 1
    /// Mirrored left to right (EXIF 2).
    case upMirrored = 2
    /// Turned 180° (EXIF 3).
    case down = 3
    /// Mirrored top to bottom (EXIF 4).
    case downMirrored = 4
    /// Mirrored along the main diagonal, a transpose (EXIF 5).
    case leftMirrored = 5
    /// Must be turned 90° clockwise to be upright (EXIF 6).
    case right = 6
    /// Mirrored along the anti-diagonal, a transverse (EXIF 7).
    case rightMirrored = 7
    /// Must be turned 90° anticlockwise to be upright (EXIF 8).
    case left = 8

    /// The orientation for an EXIF value; anything outside 1...8 is ``up``.
    public init(exifValue: Int) {
        self = Orientation(rawValue: exifValue) ?? .up
    }

    /// Whether showing the image upright swaps its width and height (EXIF 5 to 8).
    public var swapsWidthAndHeight: Bool {
        rawValue >= 5
    }
}

