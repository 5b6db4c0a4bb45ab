import Foundation
import Testing
@testable import MagickIO

@Suite("Orientation")
struct OrientationTests {
    static let containers = ["jpg", "tif", "png", "webp"]

    @Test("properties report the EXIF orientation and the oriented size", arguments: containers, 1...8)
    func propertiesReportOrientation(container: String, exif: Int) throws {
        let p = try Fixture.source("orient-\(exif).\(container)").properties(at: 0)
        #expect(p.orientation.rawValue == exif)
        let swapped = exif >= 5
        #expect(p.pixelWidth == (swapped ? 64 : 96))
        #expect(p.pixelHeight == (swapped ? 96 : 64))
        #expect(p.orientedWidth == 96)
        #expect(p.orientedHeight == 64)
    }

    @Test("thumbnail is upright with every colour in its quadrant", arguments: containers, 1...8)
    func thumbnailIsUpright(container: String, exif: Int) throws {
        let thumb = try Fixture.source("orient-\(exif).\(container)").thumbnail(maxPixelSize: 48)
        #expect(thumb.width == 48)
        #expect(thumb.height == 32)
        #expect(thumb.orientation == .up)
        try expectUprightQuadrants(thumb, "orient-\(exif).\(container)")
    }

    @Test("orientedCopy turns the full image upright and reports .up", arguments: containers, 1...8)
    func orientedCopyIsUpright(container: String, exif: Int) throws {
        let image = try Fixture.source("orient-\(exif).\(container)").image(at: 0)
        #expect(image.orientation.rawValue == exif)
        let upright = try image.orientedCopy()
        #expect(upright.orientation == .up)
        #expect(upright.width == 96)
        #expect(upright.height == 64)
        try expectUprightQuadrants(upright, "orient-\(exif).\(container)")
    }

    @Test("HEIC's irot/imir are applied once, by libheif: upright pixels reported as .up", arguments: 1...8)
    func heicTransformsAppliedOnce(exif: Int) throws {
        let source = try Fixture.source("orient-\(exif).heic")
        let p = try source.properties(at: 0)
        #expect(p.orientation == .up)
        #expect(p.pixelWidth == 96 && p.pixelHeight == 64)
        let thumb = try source.thumbnail(maxPixelSize: 48)
        #expect(thumb.width == 48 && thumb.height == 32)
        try expectUprightQuadrants(thumb, "orient-\(exif).heic")
        let image = try source.image(at: 0)
        #expect(image.orientation == .up && image.width == 96 && image.height == 64)
        try expectUprightQuadrants(try image.orientedCopy(), "orient-\(exif).heic")
    }

    @Test("orientedCopy keeps metadata with the orientation tag reset to 1")
    func orientedCopyResetsTag() throws {
        let upright = try Fixture.source("orient-6.jpg").image(at: 0).orientedCopy()
        let reread = try ImageSource(data: upright.encoded(as: .jpeg(quality: 90)))
        let p = try reread.properties(at: 0)
        #expect(p.orientation == .up)
        #expect(p.pixelWidth == 96)
        #expect(p.exif["Orientation"] == "1")
    }

    @Test("image(at:) returns the pixels as stored")
    func imageIsAsStored() throws {
        let image = try Fixture.source("orient-6.jpg").image(at: 0)
        #expect(image.width == 64)
        #expect(image.height == 96)
        #expect(image.orientedWidth == 96)
    }

    @Test("an orientation outside 1...8 is .up")
    func invalidOrientationIsUp() throws {
        let source = try Fixture.source("orient-invalid.jpg")
        #expect(try source.properties(at: 0).orientation == .up)
        try expectUprightQuadrants(try source.thumbnail(maxPixelSize: 48))
    }

    @Test("EXIF values map to ImageIO's names")
    func exifValues() {
        #expect(Orientation(exifValue: 0) == .up)
        #expect(Orientation(exifValue: 9) == .up)
        #expect(Orientation(exifValue: -1) == .up)
        #expect(Orientation(exifValue: 2) == .upMirrored)
        #expect(Orientation(exifValue: 5) == .leftMirrored)
        #expect(Orientation(exifValue: 6) == .right)
        #expect(Orientation(exifValue: 7) == .rightMirrored)
        #expect(Orientation(exifValue: 8) == .left)
    }
}
