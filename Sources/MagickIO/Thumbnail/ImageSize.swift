/// A size in pixels, for `ImageSource/thumbnail(size:mode:gravity:at:allowUpscale:options:)`.
///
/// ```swift
/// let avatar = try source.thumbnail(size: ImageSize(width: 200, height: 200), mode: .fill)
/// ```
public struct ImageSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels; 0 leaves the width free (see ``SizingMode``).
    public var width: Int
    /// Height in pixels; 0 leaves the height free.
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}

/// How a thumbnail is sized into an ``ImageSize`` box, as a viewer shows the image (after its
/// orientation). Each side of the result is rounded to nearest and at least 1 pixel.
///
/// Without `allowUpscale` nothing is ever enlarged: ``fit`` keeps an image smaller than the box
/// at its own size, ``fill`` crops the largest region of the box's shape from it instead, and
/// ``exact`` shrinks each side only as far as the box. A box side of 0 (or less) leaves that side
/// free: the image is fitted to the other side whatever the mode; both 0 means the image's own
/// size.
public enum SizingMode: Sendable, Hashable, CaseIterable {
    /// Scale to fit inside the box, keeping the aspect ratio (like ImageIO's thumbnails and
    /// `scaleForProportionalResize(…, maximize: false)`).
    case fit
    /// Scale to cover the box, keeping the aspect ratio, then crop the overflow at the
    /// ``Gravity`` (CSS `object-fit: cover`; sharp's `cover`).
    case fill
    /// Scale each side to the box exactly, not keeping the aspect ratio.
    case exact
}

/// Which part of the image ``SizingMode/fill`` keeps when it crops.
public enum Gravity: Sendable, Hashable, CaseIterable {
    case center, north, south, east, west, northEast, northWest, southEast, southWest

    /// Where in the overflow the crop starts, 0...1 on each axis (0 keeps the left/top edge).
    var anchor: (x: Double, y: Double) {
        switch self {
        case .center: (0.5, 0.5)
        case .north: (0.5, 0)
        case .south: (0.5, 1)
        case .east: (1, 0.5)
        case .west: (0, 0.5)
        case .northEast: (1, 0)
        case .northWest: (0, 0)
        case .southEast: (1, 1)
        case .southWest: (0, 1)
        }
    }
}
