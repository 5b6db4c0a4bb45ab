/// An opaque sRGB colour, 8 bits per channel: a picture's ``Image/dominantColor()``.
///
/// ```swift
/// let colour = try ImageSource(url: photo).dominantColor()
/// colour.hex   // "#3b6ea5": a placeholder's background
/// ```
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0...255 (sRGB-encoded).
    public var r: UInt8
    /// Green, 0...255.
    public var g: UInt8
    /// Blue, 0...255.
    public var b: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// `#rrggbb`, lowercase, as CSS takes it.
    public var hex: String {
        "#" + [r, g, b].map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    public var description: String { hex }
}
