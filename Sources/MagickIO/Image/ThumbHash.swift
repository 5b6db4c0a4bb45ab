import Foundation

/// A picture's placeholder in about 25 bytes: Evan Wallace's ThumbHash, a few DCT terms of a
/// version at most 100 pixels a side, in a luminance and two colour channels (and alpha when the
/// picture has any), from `ImageSource/thumbHash(at:)` or ``Image/thumbHash()``.
///
/// ```swift
/// let hash = try ImageSource(url: photo).thumbHash()
/// hash.base64                      // "1QcSHQRnh493V4dIh4eXh1h4kJUI", say: goes in the page
/// hash.averageColor                // what to fill the box with before anything arrives
/// let preview = hash.rendered()    // the placeholder itself, at most 32 pixels a side
/// ```
///
/// The bytes follow the published format bit for bit (any ThumbHash decoder reads them): a
/// 24-bit and a 16-bit header (the DC terms, the scales, the luminance grid, alpha, the
/// orientation of the box), one byte for alpha's DC and scale when there is alpha, then the AC
/// terms of L, P, Q (and A) at 4 bits each, in the reference's order.
public struct ThumbHash: Sendable, Hashable, CustomStringConvertible {
    /// The hash as the format lays it out.
    public let bytes: [UInt8]

    /// A colour with straight alpha, each component in 0...1.
    public struct Color: Sendable, Hashable {
        /// Red, 0...1 (sRGB-encoded, as the pixels were).
        public var red: Double
        /// Green, 0...1.
        public var green: Double
        /// Blue, 0...1.
        public var blue: Double
        /// Opacity, 0 (transparent) ... 1 (opaque).
        public var alpha: Double
    }

    /// Reads a hash made by any ThumbHash encoder; nil when `bytes` are too short for what their
    /// header announces.
    public init?(bytes: [UInt8]) {
        guard let layout = Layout(bytes), bytes.count >= layout.byteCount else { return nil }
        self.bytes = bytes
    }

    /// Reads ``base64`` back; nil when it is not Base64 or not a hash.
    public init?(base64: String) {
        guard let data = Data(base64Encoded: base64) else { return nil }
        self.init(bytes: [UInt8](data))
    }

    /// The bytes in standard Base64, as pages and JSON carry them.
    public var base64: String {
        Data(bytes).base64EncodedString()
    }

    /// The ``base64`` form.
    public var description: String { base64 }

    /// Whether the picture has transparent parts.
    public var hasAlpha: Bool {
        bytes[2] & 0x80 != 0
    }

    /// The picture's width over its height, as far as the hash keeps it (the luminance grid's
    /// shape: 7 columns over 2 rows for a 3.5:1 panorama).
    public var approximateAspectRatio: Double {
        let layout = Layout(bytes)!
        return Double(layout.shapeX) / Double(layout.shapeY)
    }

    /// The picture's average colour (alpha-weighted; `alpha` is the average opacity).
    public var averageColor: Color {
        let header = bytes.u24le(at: 0)
        let l = Double(header & 63) / 63
        let p = Double((header >> 6) & 63) / 31.5 - 1
        let q = Double((header >> 12) & 63) / 31.5 - 1
        let a = hasAlpha ? Double(bytes[5] & 15) / 15 : 1
        let (r, g, b) = Self.rgb(l: l, p: p, q: q)
        return Color(red: min(max(r, 0), 1), green: min(max(g, 0), 1), blue: min(max(b, 0), 1), alpha: a)
    }
}

// MARK: - Layout

extension ThumbHash {
    /// What the two headers say about the rest.
    struct Layout {
        var hasAlpha: Bool
        var isLandscape: Bool
        /// The luminance grid as stored (its short side) and as implied (its long side): the
        /// aspect ratio.
        var shapeX: Int
        var shapeY: Int

        init?(_ bytes: [UInt8]) {
            guard bytes.count >= 5 else { return nil }
            hasAlpha = bytes[2] & 0x80 != 0
            isLandscape = bytes[4] & 0x80 != 0
            let stored = Int(bytes[3] & 7), long = hasAlpha ? 5 : 7
            shapeX = isLandscape ? long : stored
            shapeY = isLandscape ? stored : long
            guard shapeX > 0, shapeY > 0, bytes.count >= (hasAlpha ? 6 : 5) else { return nil }
        }

        /// The luminance channel's DCT grid (at least 3 x 3).
        var luminance: (nx: Int, ny: Int) { (max(3, shapeX), max(3, shapeY)) }

        /// The header bytes, then one nibble per AC term.
        var byteCount: Int {
            let terms = ThumbHash.acCount(luminance.nx, luminance.ny) + 2 * ThumbHash.acCount(3, 3)
                + (hasAlpha ? ThumbHash.acCount(5, 5) : 0)
            return (hasAlpha ? 6 : 5) + (terms + 1) / 2
        }
    }

    /// The AC terms of an `nx` x `ny` grid: the triangle `cx * ny < nx * (ny - cy)`, less DC.
    static func acCount(_ nx: Int, _ ny: Int) -> Int {
        var count = 0
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) { count += 1; cx += 1 }
        }
        return count - 1
    }

    /// LPQ back to RGB (the inverse of the encoder's `l = (r+g+b)/3, p = (r+g)/2 - b, q = r - g`).
    static func rgb(l: Double, p: Double, q: Double) -> (Double, Double, Double) {
        let b = l - 2 / 3 * p
        let r = (3 * l - b + q) / 2
        return (r, r - q, b)
    }

    /// JavaScript's `Math.round` (halves up), which the reference encoder uses: the bytes must
    /// come out the same on a tie.
    static func round(_ value: Double) -> Int {
        Int((value + 0.5).rounded(.down))
    }
}
