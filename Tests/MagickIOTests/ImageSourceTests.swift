import Foundation
import Synchronization
import Testing
@testable import MagickIO

@Suite("ImageSource")
struct ImageSourceTests {
    @Test("format comes from the content, not the name", arguments: [
        ("orient-1.jpg", ImageFormat.jpeg), ("png-named.jpg", .png), ("quadrants.png", .png),
        ("animated.gif", .gif), ("quadrants.webp", .webp), ("orient-1.tif", .tiff),
    ])
    func formatFromContent(name: String, format: ImageFormat) throws {
        #expect(try Fixture.source(name).format == format)
    }

    @Test("format prints its lowercase raw value")
    func formatDescription() throws {
        #expect(String(describing: try Fixture.source("png-named.jpg").format) == "png")
        #expect(ImageFormat(rawValue: "TGA").rawValue == "tga")
    }

    @Test("a GIF with three frames has count 3, each frame's header readable")
    func gifFrameCount() throws {
        let source = try Fixture.source("animated.gif")
        #expect(source.count == 3)
        for index in 0..<3 {
            let p = try source.properties(at: index)
            #expect(p.pixelWidth == 24)
            #expect(p.pixelHeight == 16)
        }
    }

    @Test("image(at:) decodes the frame asked for")
    func gifFrameDecode() throws {
        let source = try Fixture.source("animated.gif")
        let expected: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
        for (index, colour) in expected.enumerated() {
            let pixels = try source.image(at: index).pixels(.rgba8)
            let got = pixels.rgba(x: 12, y: 8)
            #expect(got.r == colour.0 && got.g == colour.1 && got.b == colour.2, "frame \(index) is \(got)")
        }
    }

    @Test("a still image has count 1")
    func stillCount() throws {
        #expect(try Fixture.source("photo.jpg").count == 1)
    }

    @Test("properties of a PNG with alpha say so; a JPEG has none")
    func alphaProperty() throws {
        #expect(try Fixture.source("alpha.png").properties(at: 0).hasAlpha)
        #expect(try !Fixture.source("photo.jpg").properties(at: 0).hasAlpha)
    }

    @Test("properties carry colour space, depth and the EXIF tags")
    func propertiesDetail() throws {
        let p = try Fixture.source("photo.jpg").properties(at: 0)
        #expect(p.format == .jpeg)
        #expect(p.pixelWidth == 320)
        #expect(p.pixelHeight == 240)
        #expect(p.colorSpace == "srgb")
        #expect(p.bitDepth == 8)
        #expect(p.exif["Make"] == "MagickIO")
        #expect(p.exif["Model"] == "Fixture")
        #expect(p.exif["DateTimeOriginal"] == "2026:11:21 12:00:00")
        #expect(try Fixture.source("cmyk.jpg").properties(at: 0).colorSpace == "cmyk")
    }

    @Test("a source from Data equals one from the file")
    func dataSource() throws {
        let fromData = try ImageSource(data: Fixture.data("orient-6.jpg"))
        let fromFile = try Fixture.source("orient-6.jpg")
        #expect(fromData.format == fromFile.format)
        #expect(try fromData.properties(at: 0) == fromFile.properties(at: 0))
    }

    @Test("one source is used from many threads at once")
    func concurrentUse() throws {
        let source = try Fixture.source("orient-6.jpg")
        let reference = try source.thumbnail(maxPixelSize: 48).encoded(as: .png)
        let outputs = Locked<[Data]>([])
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            let png = try? source.thumbnail(maxPixelSize: 48).encoded(as: .png)
            outputs.withLock { $0.append(png ?? Data()) }
        }
        #expect(outputs.withLock { $0 } == Array(repeating: reference, count: 32))
    }

    @Test("one image is encoded from many tasks at once")
    func concurrentImageUse() async throws {
        let image = try await Fixture.source("orient-6.jpg").image(at: 0)
        let reference = try await image.encoded(as: .png)
        let outputs = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<32 {
                group.addTask { try image.orientedCopy().encoded(as: .png) }
            }
            return try await group.reduce(into: [Data]()) { $0.append($1) }
        }
        let upright = try ImageSource(data: outputs[0])
        try await expectUprightQuadrants(upright.image(at: 0))
        #expect(Set(outputs).count == 1)
        #expect(outputs[0] != reference)
    }
}
