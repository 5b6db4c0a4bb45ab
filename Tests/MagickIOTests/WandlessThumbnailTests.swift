import Foundation
import Testing
@testable import MagickIO

@Suite("Thumbnails made without an ImageMagick image")
struct WandlessThumbnailTests {
    static let names = (1...8).flatMap { ["orient-\($0).jpg", "orient-\($0).png", "orient-\($0).webp"] }
        + ["alpha.png", "gps.jpg", "dpi.jpg", "own-444.jpg", "photo.png", "own-rgba16.png", "own-rgb-trns.png",
           "own-palette-trns.png", "own-gamma-srgb.png", "webp-lossy-alpha.webp", "webp-lossless-alpha.webp"]

    /// The source: a fixture, or (dpi.jpg) orient-1.jpg without its EXIF block and with a JFIF
    /// density of 300x150 dpi.
    static func source(_ name: String) throws -> ImageSource {
        var options = DecodingOptions.default
        options.isolation = .inProcess
        guard name == "dpi.jpg" else { return try ImageSource(url: Harness.fixture(name), options: options) }
        var bytes = [UInt8](try Data(contentsOf: Harness.fixture("orient-1.jpg")))
        #expect(Array(bytes[6..<11]) == Array("JFIF\0".utf8) && bytes[20] == 0xFF && bytes[21] == 0xE1)
        bytes.removeSubrange(20..<(22 + Int(bytes[22]) << 8 + Int(bytes[23])))  // the APP1 (EXIF) segment
        bytes.replaceSubrange(13..<18, with: [1, 0x01, 0x2C, 0x00, 0x96])
        let source = try ImageSource(data: Data(bytes), options: options)
        #expect(try source.properties().resolution == .init(x: 300, y: 150))
        return source
    }

    static func snapshotBytes(_ image: Image) throws -> (fields: [UInt8], pixels: [UInt8]) {
        let snapshot = try image.storage.snapshot()
        var wire = WireWriter()
        snapshot.encode(&wire)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: snapshot.pixelBytes, alignment: 16)
        defer { buffer.deallocate() }
        try image.storage.exportPixels(snapshot, into: buffer)
        return (wire.bytes, Array(UnsafeRawBufferPointer(start: buffer, count: snapshot.pixelBytes)))
    }

    @Test("a plain own-path thumbnail without a wand is the wand path's, field for field and pixel for pixel", arguments: names)
    func sameAsWandPath(name: String) throws {
        let source = try Self.source(name)
        var without = ThumbnailOptions(), with = ThumbnailOptions()
        without.buildsWithoutWand = false
        with.buildsWithoutWand = true
        guard WandlessThumbnail.isEnabled(with) else {
            // A line where it was not checked (ImageMagick 7 moves quanta when the depth is set):
            // never used there.
            #expect(!JPEGWriter.reproducesImageMagick || JPEGWriter.movesQuantaToDepth)
            return
        }
        for size in [37, 256] {
            let wand = try source.thumbnail(maxPixelSize: size, options: without)
            let wandless = try source.thumbnail(maxPixelSize: size, options: with)
            #expect(!wand.storage.holdsAnswer)
            #expect(wandless.storage.holdsAnswer, "\(name) at \(size) was made without a wand")
            #expect(wandless.width == wand.width && wandless.height == wand.height)
            let (wandFields, wandPixels) = try Self.snapshotBytes(wand)
            let (fields, pixels) = try Self.snapshotBytes(wandless)
            // Compared here, so that a failure names the first difference, not every byte.
            #expect(fields == wandFields, "\(name) at \(size): the snapshot's fields")
            let differs = pixels.indices.first { $0 >= wandPixels.count || pixels[$0] != wandPixels[$0] }
            #expect(pixels.count == wandPixels.count && differs == nil, "\(name) at \(size): the pixels, from byte \(differs ?? -1)")
            #expect(wandless.properties == wand.properties)
            let sameJPEG = try wandless.encoded(as: .jpeg(quality: 85)) == wand.encoded(as: .jpeg(quality: 85))
            let samePNG = try wandless.encoded(as: .png) == wand.encoded(as: .png)
            #expect(sameJPEG && samePNG, "\(name) at \(size): the JPEG and PNG written")
        }
    }

    @Test("what is not plain keeps the wand: a crop, kept metadata, an embedded profile, grey rows")
    func notPlain() throws {
        var with = ThumbnailOptions()
        with.buildsWithoutWand = true
        guard WandlessThumbnail.isEnabled(with) else { return }
        let source = try Self.source("orient-6.jpg")
        #expect(try source.thumbnail(maxPixelSize: 40, options: with).storage.holdsAnswer)
        #expect(try !source.thumbnail(size: ImageSize(width: 30, height: 30), mode: .fill, options: with).storage.holdsAnswer)
        var keep = with
        keep.metadata = .keepAll
        #expect(try !source.thumbnail(maxPixelSize: 40, options: keep).storage.holdsAnswer)
        #expect(try !Self.source("adobe-rgb.jpg").thumbnail(maxPixelSize: 40, options: with).storage.holdsAnswer)
        #expect(try !Self.source("orient-6.tif").thumbnail(maxPixelSize: 40, options: with).storage.holdsAnswer)
        for name in ["own-gray.png", "own-icc.png", "webp-icc.webp", "own-gray.jpg", "own-adobe.jpg"] {
            #expect(try !Self.source(name).thumbnail(maxPixelSize: 40, options: with).storage.holdsAnswer, "\(name)")
        }
    }

    @Test("the turns place pixels as the eight orientations say")
    func turns() {
        // A 3x2 stored picture, pixel values 1...6 in rows, placed upright.
        let expected: [Orientation: [Int]] = [
            .up: [1, 2, 3, 4, 5, 6], .upMirrored: [3, 2, 1, 6, 5, 4], .down: [6, 5, 4, 3, 2, 1], .downMirrored: [4, 5, 6, 1, 2, 3],
            .leftMirrored: [1, 4, 2, 5, 3, 6], .right: [4, 1, 5, 2, 6, 3], .rightMirrored: [6, 3, 5, 2, 4, 1], .left: [3, 6, 2, 5, 1, 4],
        ]
        for (orientation, values) in expected {
            let placement = WandlessThumbnail.placement(of: orientation, width: 3, height: 2)
            var upright = [Int](repeating: 0, count: 6)
            for y in 0..<2 {
                for x in 0..<3 { upright[placement.first + x * placement.across + y * placement.down] = y * 3 + x + 1 }
            }
            #expect(upright == values, "\(orientation)")
        }
    }
}
