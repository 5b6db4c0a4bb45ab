/// Decoded pixels in a layout a renderer or a model consumes, from ``Image/pixels(_:)``.
///
/// ```swift
/// let buffer = try image.pixels(.rgba8)
/// let red = buffer.bytes[y * buffer.bytesPerRow + x * 4]
/// ```
public struct PixelBuffer: Sendable, Hashable {
    /// A pixel layout, 8 bits per channel.
    public enum Layout: Sendable, Hashable {
        /// Red, green, blue, straight (not premultiplied) alpha.
        case rgba8
        /// Blue, green, red, straight alpha.
        case bgra8
        /// One grey channel.
        case gray8

        var map: String {
            switch self {
            case .rgba8: "RGBA"
            case .bgra8: "BGRA"
            case .gray8: "I"
            }
        }

        /// Bytes per pixel.
        public var bytesPerPixel: Int {
            self == .gray8 ? 1 : 4
        }
    }

    /// The layout of ``bytes``.
    public var layout: Layout
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Bytes from one row to the next (rows are packed: `width * layout.bytesPerPixel`).
    public var bytesPerRow: Int
    /// The pixels, row by row, top row first.
    public var bytes: [UInt8]
}
