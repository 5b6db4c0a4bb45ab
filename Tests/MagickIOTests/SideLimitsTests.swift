import Foundation
import Testing
@testable import MagickIO

/// ImageMagick's width and height limits (16,000 pixels under Debian's policy) bind what goes
/// into its pixel cache, not a thumbnail MagickIO's own decoders stream: a 65535x1 PNG (own rows)
/// or GIF (giflib) the budget admits is thumbnailed; decoded whole by ImageMagick it is refused.
/// Fixtures: scripts/own-path-fixtures.py and scripts/animation-fixtures.py, left half red,
/// right half blue.
@Suite("ImageMagick's side limits")
struct SideLimitsTests {
    @Test("a 65535x1 PNG or GIF thumbnails on MagickIO's own path, left red and right blue",
          arguments: ["png-65535x1.png", "gif-65535x1.gif"])
    func wideThumbnail(name: String) throws {
        #expect(ResourceLimits.current.width < 65535, "the process's width limit is below the fixture's width")
        for source in [try Fixture.source(name), try ImageSource(data: try Fixture.data(name))] {
            #expect(try source.properties(at: 0).pixelWidth == 65535)
            let thumbnail = try source.thumbnail(maxPixelSize: 256)
            #expect((thumbnail.width, thumbnail.height) == (256, 1))
            let pixels = try thumbnail.pixels(.rgba8)
            let left = pixels.rgba(x: 8, y: 0), right = pixels.rgba(x: 248, y: 0)
            #expect(left.r == 255 && left.b == 0 && left.a == 255, "\(left)")
            #expect(right.r == 0 && right.b == 255 && right.a == 255, "\(right)")
        }
    }

    @Test("decoded whole by ImageMagick, the same file is refused for its width, as limitExceeded naming it",
          arguments: ["png-65535x1.png", "gif-65535x1.gif"])
    func wideWholeDecode(name: String) throws {
        let error = #expect(throws: MagickIOError.self) { _ = try Fixture.source(name).image(at: 0) }
        #expect(error?.kind == .limitExceeded && error?.limit?.name == "width", "\(String(describing: error))")
    }
}
