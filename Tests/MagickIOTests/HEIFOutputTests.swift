import Foundation
import Testing
@testable import MagickIO

/// HEIC and AVIF written through libheif: alpha kept, colours close, chroma as the quality asks.
@Suite("HEIC and AVIF output")
struct HEIFOutputTests {
    /// rgba-quadrants.png thumbnailed to 48x32: the centre of each quadrant, its colour and alpha.
    static let quadrants: [(x: Int, y: Int, rgb: [Int], alpha: Int)] = [
        (12, 8, [255, 0, 0], 255), (36, 8, [0, 255, 0], 128), (12, 24, [0, 0, 255], 0), (36, 24, [255, 255, 0], 64),
    ]

    @Test("an RGBA thumbnail written as HEIC or AVIF reads back with its alpha within 2/255 and its colours close",
          arguments: [EncodingFormat.avif(quality: 60), .heic(quality: 60), .avif(quality: 95), .heic(quality: 95)])
    func alphaRoundTrip(format: EncodingFormat) throws {
        try #require(format.isAvailable, "Debian 12's libheif has x265 and aom")
        #expect(format.keepsAlpha)
        let thumb = try Fixture.source("rgba-quadrants.png").thumbnail(maxPixelSize: 48)
        let data = try thumb.encoded(as: format)
        let source = try ImageSource(data: data)
        #expect(source.format == (format.fileExtension == "avif" ? .avif : .heic))
        let properties = try source.properties(at: 0)
        #expect(properties.pixelWidth == 48 && properties.pixelHeight == 32)
        #expect(properties.hasAlpha)

        let pixels = try source.image(at: 0).pixels(.rgba8)
        for point in Self.quadrants {
            let at = point.y * pixels.bytesPerRow + point.x * 4
            let alpha = Int(pixels.bytes[at + 3])
            #expect(abs(alpha - point.alpha) <= 2, "alpha at \(point.x),\(point.y): \(alpha), wanted \(point.alpha)")
            // A transparent pixel's colour is not part of the picture.
            guard point.alpha > 0 else { continue }
            for channel in 0..<3 {
                let value = Int(pixels.bytes[at + channel])
                #expect(abs(value - point.rgb[channel]) <= 12, "channel \(channel) at \(point.x),\(point.y): \(value)")
            }
        }
    }

    @Test("an opaque picture is written without an alpha image")
    func opaqueHasNoAlpha() throws {
        for format in [EncodingFormat.avif(quality: 60), .heic(quality: 60)] where format.isAvailable {
            let thumb = try Fixture.source("quadrants.png").thumbnail(maxPixelSize: 48)
            let source = try ImageSource(data: thumb.encoded(as: format))
            #expect(try !source.properties(at: 0).hasAlpha)
            try expectUprightQuadrants(source.image(at: 0))
        }
    }

    @Test("chroma is 4:4:4 from quality 90 up and 4:2:0 below", arguments: [
        (EncodingFormat.avif(quality: 89), false), (.avif(quality: 90), true),
        (.heic(quality: 89), false), (.heic(quality: 90), true),
    ])
    func chromaFollowsQuality(format: EncodingFormat, full: Bool) throws {
        try #require(format.isAvailable)
        let data = try Fixture.source("quadrants.png").thumbnail(maxPixelSize: 48).encoded(as: format)
        let sampling = try #require(colourSampling(data), "no av1C or hvcC box")
        #expect(sampling == (full ? "4:4:4" : "4:2:0"))
    }

    @Test("an image still carrying an EXIF orientation is written upright")
    func orientationApplied() throws {
        let image = try Fixture.source("orient-6.jpg").image(at: 0)
        #expect(image.orientation == .right)
        let source = try ImageSource(data: image.encoded(as: .avif(quality: 80)))
        let properties = try source.properties(at: 0)
        #expect(properties.orientation == .up)
        #expect(properties.pixelWidth == 96 && properties.pixelHeight == 64)
        try expectUprightQuadrants(source.image(at: 0))
    }

    @Test("odd sizes and a single pixel encode", arguments: [EncodingFormat.avif(quality: 50), .heic(quality: 50)])
    func oddSizes(format: EncodingFormat) throws {
        try #require(format.isAvailable)
        for size in [1, 7, 33] {
            let thumb = try Fixture.source("rgba-quadrants.png").thumbnail(maxPixelSize: size)
            let source = try ImageSource(data: thumb.encoded(as: format))
            let properties = try source.properties(at: 0)
            #expect(properties.pixelWidth == thumb.width && properties.pixelHeight == thumb.height)
        }
    }

    @Test("many threads encode at once, each with an encoder of its own")
    func concurrent() async throws {
        try #require(EncodingFormat.avif(quality: 60).isAvailable && EncodingFormat.heic(quality: 60).isAvailable)
        let thumb = try await Fixture.source("rgba-quadrants.png").thumbnail(maxPixelSize: 48)
        try await withThrowingTaskGroup(of: ImageProperties.self) { group in
            for index in 0..<8 {
                let format: EncodingFormat = index.isMultiple(of: 2) ? .avif(quality: 60) : .heic(quality: 60)
                group.addTask { try await ImageSource(data: thumb.encoded(as: format)).properties(at: 0) }
            }
            for try await properties in group {
                #expect(properties.pixelWidth == 48 && properties.pixelHeight == 32 && properties.hasAlpha)
            }
        }
    }

    /// The colour image's chroma sampling from the first av1C (AV1 codec configuration) or hvcC
    /// (HEVC decoder configuration) box that is not monochrome, as "4:4:4", "4:2:2" or "4:2:0".
    func colourSampling(_ data: Data) -> String? {
        let bytes = [UInt8](data)
        for start in 4..<max(bytes.count - 24, 4) {
            let type = String(decoding: bytes[start..<start + 4], as: UTF8.self)
            let body = start + 4
            if type == "av1C" {
                // marker/version, profile/level, then tier, high_bitdepth, twelve_bit, monochrome,
                // subsampling_x, subsampling_y, chroma_sample_position (2 bits).
                let flags = bytes[body + 2]
                guard flags & 0x10 == 0 else { continue }
                return samplingName(x: flags & 0x08 != 0, y: flags & 0x04 != 0)
            }
            if type == "hvcC" {
                // version 1, profile 1, compatibility flags 4, constraint flags 6, level 1,
                // min_spatial_segmentation 2, parallelismType 1, then chroma_format_idc.
                let format = bytes[body + 16] & 0x03
                guard format != 0 else { continue }
                return format == 3 ? "4:4:4" : format == 2 ? "4:2:2" : "4:2:0"
            }
        }
        return nil
    }

    func samplingName(x: Bool, y: Bool) -> String {
        x ? (y ? "4:2:0" : "4:2:2") : "4:4:4"
    }
}
