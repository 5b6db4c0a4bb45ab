import Foundation
@testable import MagickIO

/// Pictures with known areas of colour for the crop and dominant-colour tests, as RGBA PNGs made
/// at test time: `paint` gives the colour of each pixel of the picture as a viewer sees it, and
/// the pixels are stored turned for `orientation` (an `eXIf` chunk says how to turn them back).
enum SceneImages {
    typealias RGBA = (r: UInt8, g: UInt8, b: UInt8, a: UInt8)

    static func png(width: Int, height: Int, orientation: Orientation = .up,
                    _ paint: (_ x: Int, _ y: Int) -> RGBA) -> Data {
        // Stored as the inverse of the orientation: 6 (turn 90° clockwise to view) stores the
        // picture turned 90° anticlockwise, 8 the other way, 3 upside down.
        let swaps = orientation.swapsWidthAndHeight
        let (storedWidth, storedHeight) = swaps ? (height, width) : (width, height)
        var raw: [UInt8] = []
        raw.reserveCapacity(storedHeight * (storedWidth * 4 + 1))
        for sy in 0..<storedHeight {
            raw.append(0)
            for sx in 0..<storedWidth {
                let (x, y): (Int, Int) = switch orientation {
                case .right: (storedHeight - 1 - sy, sx)
                case .left: (sy, storedWidth - 1 - sx)
                case .down: (storedWidth - 1 - sx, storedHeight - 1 - sy)
                default: (sx, sy)
                }
                let c = paint(x, y)
                raw += [c.r, c.g, c.b, c.a]
            }
        }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += PropertyImages.chunk("IHDR", be32(storedWidth) + be32(storedHeight) + [8, 6, 0, 0, 0])
        if orientation != .up {
            // A big-endian TIFF header and one IFD entry: Orientation (0x0112), SHORT, 1.
            let exif: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1,
                                 0, UInt8(orientation.rawValue), 0, 0, 0, 0, 0, 0]
            bytes += PropertyImages.chunk("eXIf", exif)
        }
        bytes += PropertyImages.chunk("IDAT", PropertyImages.zlib(raw)) + PropertyImages.chunk("IEND", [])
        return Data(bytes)
    }

    /// A 300x200 picture: a smooth grey background (a faint gradient down) with a busy object, a
    /// 60x60 checkerboard of red and yellow squares of 6 pixels, whose top left is `object`.
    static func offCentreObject(at object: (x: Int, y: Int), orientation: Orientation = .up) -> Data {
        png(width: objectScene.width, height: objectScene.height, orientation: orientation) { x, y in
            if (object.x..<object.x + 60).contains(x), (object.y..<object.y + 60).contains(y) {
                return ((x - object.x) / 6 + (y - object.y) / 6) % 2 == 0 ? (220, 30, 30, 255) : (250, 220, 40, 255)
            }
            let grey = UInt8(120 + y / 20)
            return (grey, grey, grey, 255)
        }
    }

    static let objectScene = (width: 300, height: 200)
}
