/// A rectangle of pixels: where a ``SizingMode/fill`` thumbnail was cut from its picture
/// (``Image/cropRect``).
///
/// ```swift
/// let t = try source.thumbnail(size: ImageSize(width: 256, height: 256), mode: .fill,
///                              options: ThumbnailOptions(crop: .attention))
/// if let r = t.cropRect { print(r.x, r.y, r.width, r.height) }  // in the upright picture's pixels
/// ```
public struct ImageRect: Sendable, Hashable, CustomStringConvertible {
    /// The left edge, in pixels from the left.
    public var x: Int
    /// The top edge, in pixels from the top.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `WxH+X+Y`, ImageMagick's geometry.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
