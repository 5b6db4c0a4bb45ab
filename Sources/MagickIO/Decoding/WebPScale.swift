/// The size MagickIO's own WebP path has libwebp decode to (``WebPRows``): the stored size shrunk
/// by the largest whole factor that keeps ``JPEGScale/ownPathRoom`` on both axes, the room the
/// JPEG path keeps for the Lanczos resize that follows; the stored size when no factor of 2 or
/// more does.
///
/// libwebp's rescaler could hit the room exactly, but it averages areas: at a whole factor that
/// is a box of whole pixels, at 1.5 it beats with fine detail. Measured on a 4-pixel checkerboard
/// (own-rgba16.png as lossy WebP), 160x120 -> 53x40 through 107x80 is 2.6% RMSE from a Lanczos
/// resize of the full decode; whole factors stay under 1%, as libvips' shrink-on-load does.
enum WebPScale {
    /// The decoded size for a `width` x `height` WebP whose thumbnail is `target` (stored axes):
    /// each side divided by the factor, rounded up.
    static func scaledSize(width: Int, height: Int, target: (width: Int, height: Int)) -> (width: Int, height: Int) {
        let room = JPEGScale.ownPathRoom
        let needed = (width: max(1, Int((Double(target.width) * room).rounded(.up))),
                      height: max(1, Int((Double(target.height) * room).rounded(.up))))
        let factor = min(width / needed.width, height / needed.height)
        guard factor >= 2 else { return (width, height) }
        return ((width + factor - 1) / factor, (height + factor - 1) / factor)
    }
}
