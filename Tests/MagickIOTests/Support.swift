import Foundation
import Testing
@testable import MagickIO

/// The committed fixtures (made by `Fixtures/make-fixtures.sh`).
enum Fixture {
    static func url(_ name: String) -> URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(name)
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }

    static func source(_ name: String) throws -> ImageSource {
        try ImageSource(url: url(name))
    }
}

/// The four colours of the asymmetric test picture, as a viewer must see them.
enum Quadrant: CaseIterable, CustomStringConvertible {
    case topLeft, topRight, bottomLeft, bottomRight

    /// red, lime, blue, yellow
    var colour: (r: UInt8, g: UInt8, b: UInt8) {
        switch self {
        case .topLeft: (255, 0, 0)
        case .topRight: (0, 255, 0)
        case .bottomLeft: (0, 0, 255)
        case .bottomRight: (255, 255, 0)
        }
    }

    /// The centre of this quadrant in a `width` x `height` image.
    func centre(width: Int, height: Int) -> (x: Int, y: Int) {
        let x = (self == .topLeft || self == .bottomLeft) ? width / 4 : width * 3 / 4
        let y = (self == .topLeft || self == .topRight) ? height / 4 : height * 3 / 4
        return (x, y)
    }

    var description: String {
        switch self {
        case .topLeft: "top-left"
        case .topRight: "top-right"
        case .bottomLeft: "bottom-left"
        case .bottomRight: "bottom-right"
        }
    }
}

extension PixelBuffer {
    /// The RGBA of pixel (x, y) of an `.rgba8` buffer.
    func rgba(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = y * bytesPerRow + x * 4
        return (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
    }
}

/// Checks that `image` shows the test picture upright: each quadrant's centre has its colour
/// (within JPEG's error).
func expectUprightQuadrants(_ image: Image, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let pixels = try image.pixels(.rgba8)
    for quadrant in Quadrant.allCases {
        let (x, y) = quadrant.centre(width: pixels.width, height: pixels.height)
        let got = pixels.rgba(x: x, y: y)
        let want = quadrant.colour
        let close = abs(Int(got.r) - Int(want.r)) < 40 && abs(Int(got.g) - Int(want.g)) < 40 && abs(Int(got.b) - Int(want.b)) < 40
        #expect(close, "\(quadrant) at (\(x), \(y)) is \(got), expected \(want) \(comment.map { "— \($0)" } ?? "")", sourceLocation: sourceLocation)
    }
}

/// Runs `body` and returns the MagickIOError kind it threw, or nil when it did not throw.
func errorKind(_ body: () throws -> Void) -> MagickIOError.Kind? {
    do {
        try body()
        return nil
    } catch let error as MagickIOError {
        return error.kind
    } catch {
        Issue.record("threw a non-MagickIOError: \(error)")
        return nil
    }
}

/// Whether the ImageMagick under test is 7 (Debian 13), where a test's expectation follows one
/// of ImageMagick's documented differences from 6.9.11.
let runningImageMagick7 = ImageMagick.version.hasPrefix("ImageMagick 7")

/// Whether this test process (and so the executables built with it) runs under a sanitizer, whose
/// shadow memory makes RSS bounds meaningless: memory-bound expectations are checked only without.
let runningUnderSanitizer: Bool = {
    let process = dlopen(nil, RTLD_NOW)
    return dlsym(process, "__tsan_init") != nil || dlsym(process, "__asan_init") != nil
}()
