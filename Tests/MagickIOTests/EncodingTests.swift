import Foundation
import Testing
@testable import MagickIO

@Suite("Encoding")
struct EncodingTests {
    @Test("each format round-trips with its size", arguments: [
        (EncodingFormat.jpeg(quality: 85), ImageFormat.jpeg), (.png, .png), (.webp(quality: 80), .webp),
    ])
    func roundTrip(format: EncodingFormat, expected: ImageFormat) throws {
        let thumb = try Fixture.source("orient-3.jpg").thumbnail(maxPixelSize: 48)
        let source = try ImageSource(data: thumb.encoded(as: format))
        #expect(source.format == expected)
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 48 && p.pixelHeight == 32)
        try expectUprightQuadrants(source.image(at: 0))
    }

    @Test("JPEG quality changes the size")
    func jpegQuality() throws {
        let image = try Fixture.source("photo.jpg").image(at: 0)
        let low = try image.encoded(as: .jpeg(quality: 20))
        let high = try image.encoded(as: .jpeg(quality: 95))
        #expect(low.count < high.count)
    }

    @Test("write(to:as:) replaces an existing file")
    func writeReplaces() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("magickio-\(UUID()).png")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("old".utf8).write(to: url)
        try Fixture.source("alpha.png").thumbnail(maxPixelSize: 10).write(to: url, as: .png)
        let p = try ImageSource(url: url).properties(at: 0)
        #expect(p.format == .png && p.pixelWidth == 10)
    }

    @Test("HEIC and AVIF encode where the coder exists, and fail with encodingFailed where not", arguments: [
        EncodingFormat.heic(quality: 60), .avif(quality: 60),
    ])
    func heifFamily(format: EncodingFormat) throws {
        let thumb = try Fixture.source("photo.jpg").thumbnail(maxPixelSize: 64)
        if format.isAvailable {
            let data = try thumb.encoded(as: format)
            let source = try ImageSource(data: data)
            #expect(source.format == (format == .avif(quality: 60) ? .avif : .heic))
            #expect(try source.properties(at: 0).pixelWidth == 64)
        } else {
            #expect(errorKind { _ = try thumb.encoded(as: format) } == .encodingFailed)
        }
    }
}
