/// What ``ImageMagick/availableFormats`` reports.
public struct FormatSupport: Sendable, Hashable {
    /// Every format this ImageMagick has a decoder for (its names, lowercased; aliases included).
    public var decodable: Set<ImageFormat>
    /// Every format this ImageMagick has an encoder for.
    public var encodable: Set<ImageFormat>
    /// The decoders MagickIO allows that this ImageMagick has.
    public var allowed: Set<ImageFormat>
}
