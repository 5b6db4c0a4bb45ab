import Foundation
@testable import MagickIO

/// Colours at known places of the animation fixtures (scripts/animation-fixtures.py): what a
/// viewer shows of each frame of `anim-dispose.gif` (40x40; frame 1 is disposed to the
/// background, frame 2 to the previous canvas; frame 3's right half is transparent).
enum AnimationProbes {
    typealias RGBA = (r: Int, g: Int, b: Int, a: Int)
    static let red: RGBA = (255, 0, 0, 255), green: RGBA = (0, 255, 0, 255), blue: RGBA = (0, 0, 255, 255)
    static let white: RGBA = (255, 255, 255, 255), clear: RGBA = (0, 0, 0, 0)

    /// (frame, x, y, colour).
    static let dispose: [(Int, Int, Int, RGBA)] = [
        (0, 5, 5, red), (0, 30, 30, red),
        (1, 5, 5, green), (1, 30, 5, red), (1, 30, 30, red),
        (2, 5, 5, clear), (2, 30, 30, blue), (2, 30, 5, red), (2, 5, 30, red),
        (3, 5, 5, clear), (3, 30, 30, red), (3, 22, 5, white), (3, 27, 5, red), (3, 35, 5, red),
    ]

    /// Frame `index`'s pixel at (x, y) of an animated thumbnail.
    static func pixel(_ image: Image, frame index: Int, x: Int, y: Int) -> RGBA {
        guard let animation = image.animation else { return (-1, -1, -1, -1) }
        return animation.withFrame(index) { frame in
            let p = frame + (y * animation.width + x) * 4
            return (Int(p[0]), Int(p[1]), Int(p[2]), Int(p[3]))
        }
    }

    /// The pixel at (x, y) of a still image (RGBA).
    static func pixel(_ image: Image, x: Int, y: Int) throws -> RGBA {
        let buffer = try image.pixels(.rgba8)
        let i = y * buffer.bytesPerRow + x * 4
        return (Int(buffer.bytes[i]), Int(buffer.bytes[i + 1]), Int(buffer.bytes[i + 2]), Int(buffer.bytes[i + 3]))
    }

    /// Whether `a` is `b` within `tolerance` on each channel (colour ignored where both are transparent).
    static func near(_ a: RGBA, _ b: RGBA, tolerance: Int = 0) -> Bool {
        if a.a == 0 && b.a == 0 { return true }
        return abs(a.r - b.r) <= tolerance && abs(a.g - b.g) <= tolerance && abs(a.b - b.b) <= tolerance && abs(a.a - b.a) <= tolerance
    }
}
