import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

extension ThumbnailOptions {
    /// Every thumbnail through ImageMagick's path: what the own decoders are held to.
    static let imageMagickOnly: ThumbnailOptions = {
        var options = ThumbnailOptions()
        options.ownDecoders = false
        return options
    }()
}

/// The checks that make a thumbnail from an own decoder the one ImageMagick's path makes.
enum OwnPathParity {
    /// The fixture `name`, opened from its file and from memory, thumbnailed both ways at a few
    /// sizes (16, a third, a half and the whole of its longest side): the own path through
    /// `decoder`, and the same thumbnail as ImageMagick's path.
    static func expectMatches(_ name: String, through decoder: Image.Decoder, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for source in [try Fixture.source(name), try ImageSource(data: Fixture.data(name))] {
            let side = max(source.frames[0].orientedWidth, source.frames[0].orientedHeight)
            for size in Set([16, side / 3, side / 2 + 1, side]) where size >= 1 {
                let own = try source.thumbnail(maxPixelSize: size)
                let magick = try source.thumbnail(maxPixelSize: size, options: .imageMagickOnly)
                #expect(own.decoder == decoder, "\(name) at \(size)", sourceLocation: sourceLocation)
                #expect(magick.decoder == .imageMagick, sourceLocation: sourceLocation)
                try expectSame(own, magick, "\(name) at \(size)", sourceLocation: sourceLocation)
            }
        }
    }

    /// The same size, orientation, alpha, colour space and warnings, and colours within an RMSE
    /// of 1%, weighted by their alpha as they are seen (under alpha 0 a lossy encoder leaves any
    /// colour, which a rescaler and a full decode give differently).
    static func expectSame(_ own: Image, _ magick: Image, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(own.width == magick.width && own.height == magick.height, "\(what): \(own.width)x\(own.height) vs \(magick.width)x\(magick.height)", sourceLocation: sourceLocation)
        #expect(own.orientation == magick.orientation, sourceLocation: sourceLocation)
        #expect(own.properties.hasAlpha == magick.properties.hasAlpha, "\(what): alpha", sourceLocation: sourceLocation)
        #expect(own.properties.colorSpace == magick.properties.colorSpace, "\(what): \(own.properties.colorSpace) vs \(magick.properties.colorSpace)", sourceLocation: sourceLocation)
        #expect(own.warnings == magick.warnings, "\(what): warnings", sourceLocation: sourceLocation)
        guard own.width == magick.width, own.height == magick.height else { return }
        let a = try own.pixels(.rgba8), b = try magick.pixels(.rgba8)
        var sum = 0.0
        for i in a.bytes.indices {
            let alpha = i % 4 == 3 ? (1.0, 1.0) : (Double(a.bytes[i | 3]) / 255, Double(b.bytes[i | 3]) / 255)
            let d = (Double(a.bytes[i]) * alpha.0 - Double(b.bytes[i]) * alpha.1) / 255
            sum += d * d
        }
        let rmse = (sum / Double(a.bytes.count)).squareRoot()
        #expect(rmse < 0.01, "\(what): RMSE \(rmse)", sourceLocation: sourceLocation)
    }
}
