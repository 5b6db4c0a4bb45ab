import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// A HEIC whose primary image is a grid of tiles, as phones store their photos: a thumbnail is
/// made a row of tiles at a time, turned and mirrored afterwards as libheif turns the whole
/// picture (issue 30). The fixtures come from scripts/heic-grid.py.
@Suite("Phone HEICs: a grid a row of tiles at a time, a single image as planar RGB")
struct HEIFGridTests {
    @Test("a grid turned and mirrored by irot and imir, its tiles past the canvas, thumbnails upright from its tiles as ImageMagick's path makes it",
          arguments: ["heic-grid-irot1-imir0.heic", "heic-grid-irot2.heic", "heic-grid-irot3.heic", "heic-grid-imir1.heic"])
    func turnedGrid(_ name: String) throws {
        let source = try Fixture.source(name)
        #expect(source.header?.tiling != nil)
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 150 && p.pixelHeight == 100 && p.orientation == .up)
        let thumbnail = try source.thumbnail(maxPixelSize: 75)
        #expect(thumbnail.decoder == .libheif && thumbnail.width == 75 && thumbnail.height == 50)
        try expectUprightQuadrants(thumbnail, "\(name)")
        try OwnPathParity.expectMatches(name, through: .libheif)
    }

    @Test("the walk reads a grid's layout, its tiles and what turns it; a grid libheif assembles otherwise is left to it")
    func tiling() throws {
        let tiling = try #require(try Fixture.source("phone-48mp-grid.heic").header?.tiling)
        #expect(tiling.canvas == ImageSize(width: 8064, height: 6048) && tiling.columns == 16 && tiling.rows == 12)
        #expect(tiling.tile == ImageSize(width: 512, height: 512) && tiling.tiles.count == 192 && tiling.flags.count == 192)
        #expect(tiling.orientation == .left, "irot 1: a quarter turn anticlockwise")
        let orientations = try ["heic-grid-irot1-imir0.heic", "heic-grid-irot2.heic", "heic-grid-irot3.heic", "heic-grid-imir1.heic"]
            .map { try Fixture.source($0).header?.tiling?.orientation }
        #expect(orientations == [.leftMirrored, .down, .right, .upMirrored])
        #expect(try Fixture.source("heic-grid.heic").header?.tiling?.orientation == .up)
        // The canvas larger than the size the grid declares: libheif's whole decode, after the guard.
        #expect(try Fixture.source("heic-grid-canvas-past-ispe.heic").header?.tiling == nil)
        // A single image: no tiles.
        #expect(try Fixture.source("phone-24mp.heic").header?.tiling == nil)
    }

    @Test("a 48 MP phone grid thumbnails upright, its colours in place, within a 128 MiB budget")
    func phoneGrid48() throws {
        let source = try ImageSource(url: Fixture.url("phone-48mp-grid.heic"), options: DecodingOptions(memoryBudget: 128 << 20))
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 6048 && p.pixelHeight == 8064 && p.orientation == .up)
        let thumbnail = try source.thumbnail(maxPixelSize: 256)
        #expect(thumbnail.decoder == .libheif && thumbnail.width == 192 && thumbnail.height == 256)
        try expectUprightQuadrants(thumbnail)
    }

    @Test("a 48 MP single-image HEIC (8-bit 4:2:0) is taken as libheif's planar RGB and thumbnails upright at default settings")
    func phoneSingle48() throws {
        let source = try Fixture.source("phone-48mp.heic")
        #expect(source.header?.tiling == nil && source.header?.planarImage == HEIFPlanarImage(chroma: 1, copied: false))
        let thumbnail = try source.thumbnail(maxPixelSize: 256)
        #expect(thumbnail.decoder == .libheif && thumbnail.width == 256 && thumbnail.height == 192)
        try expectUprightQuadrants(thumbnail)
    }
}
