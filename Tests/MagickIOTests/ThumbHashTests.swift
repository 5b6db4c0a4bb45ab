import Foundation
import Testing
@testable import MagickIO

@Suite("ThumbHash")
struct ThumbHashTests {
    /// The hashes `Fixtures/make-thumbhash-references.py` computed with another implementation.
    struct Reference: Decodable {
        var thumbHash: String
        var averageRGBA: [Double]
        var aspectRatio: Double
    }

    static let references: [String: Reference] = {
        let data = try! Fixture.data("thumbhash-references.json")
        return try! JSONDecoder().decode([String: Reference].self, from: data)
    }()

    @Test("the bytes equal the reference encoder's", arguments: [
        "thumbhash-landscape.png", "thumbhash-portrait.png", "thumbhash-alpha.png", "thumbhash-flat.png",
    ])
    func matchesReference(name: String) throws {
        let reference = try #require(Self.references[name])
        let hash = try Fixture.source(name).thumbHash()
        #expect(hash.base64 == reference.thumbHash)
        #expect(hash.approximateAspectRatio == reference.aspectRatio)
        let average = hash.averageColor
        let got = [average.red, average.green, average.blue, average.alpha]
        for (value, expected) in zip(got, reference.averageRGBA) {
            #expect(abs(value - expected) < 1e-9, "average \(got) against \(reference.averageRGBA)")
        }
    }

    @Test("a hash is about 20-25 bytes and reads back from its Base64")
    func sizeAndBase64() throws {
        for name in ["photo.jpg", "thumbhash-alpha.png", "quadrants.png"] {
            let hash = try Fixture.source(name).thumbHash()
            #expect((18...27).contains(hash.bytes.count), "\(name): \(hash.bytes.count) bytes")
            #expect(ThumbHash(base64: hash.base64) == hash)
            #expect(ThumbHash(bytes: hash.bytes) == hash)
        }
    }

    @Test("bytes too short for their header, or not Base64, are no hash")
    func malformed() {
        #expect(ThumbHash(bytes: []) == nil)
        #expect(ThumbHash(bytes: [0x99, 0x95, 0x01, 0x07]) == nil)
        #expect(ThumbHash(bytes: Array([UInt8](Data(base64Encoded: "oZcNXYR2eYd/h4d0eFiIiHZwCGeL")!).prefix(10))) == nil)
        #expect(ThumbHash(base64: "not base64!") == nil)
        #expect(ThumbHash(bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == nil)  // a zero grid
    }

    @Test("decoded, the placeholder shows the picture upright, whatever the EXIF orientation", arguments: 1...8)
    func uprightPlaceholder(orientation: Int) throws {
        let hash = try Fixture.source("orient-\(orientation).jpg").thumbHash()
        let placeholder = hash.rendered()
        // The upright picture is 96x64: the placeholder keeps the shape, landscape.
        #expect(placeholder.width == 32 && placeholder.height < 32)
        for quadrant in Quadrant.allCases {
            let (x, y) = quadrant.centre(width: placeholder.width, height: placeholder.height)
            let got = placeholder.rgba(x: x, y: y)
            let nearest = Quadrant.allCases.min { a, b in distance(got, a.colour) < distance(got, b.colour) }
            #expect(nearest == quadrant, "\(quadrant) renders as \(got)")
        }
    }

    @Test("decoded, the placeholder is close to the picture it came from", arguments: [
        "thumbhash-landscape.png", "thumbhash-portrait.png", "thumbhash-alpha.png",
    ])
    func renderedResemblesPicture(name: String) throws {
        let source = try Fixture.source(name)
        let placeholder = try source.thumbHash().rendered()
        let picture = try source.thumbnail(size: ImageSize(width: placeholder.width, height: placeholder.height), mode: .exact)
            .pixels(.rgba8)
        var error = 0
        for y in 0..<placeholder.height {
            for x in 0..<placeholder.width {
                let a = placeholder.rgba(x: x, y: y), b = picture.rgba(x: x, y: y)
                let alpha = Int(b.a)
                error += abs(Int(a.a) - alpha)
                // Colour only counts where the picture is there to see.
                error += (abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b))) * alpha / 255
            }
        }
        let meanPerChannel = Double(error) / Double(placeholder.width * placeholder.height * 4)
        #expect(meanPerChannel < 20, "mean error \(meanPerChannel) a channel")
    }

    @Test("an image's hash and its source's agree: turned upright and brought within 100 pixels")
    func imageAndSourceAgree() throws {
        let source = try Fixture.source("orient-6.jpg")
        let fromSource = try source.thumbHash()
        let fromImage = try source.image(at: 0).thumbHash()
        #expect(fromImage.approximateAspectRatio == fromSource.approximateAspectRatio)
        let a = fromImage.averageColor, b = fromSource.averageColor
        #expect(abs(a.red - b.red) + abs(a.green - b.green) + abs(a.blue - b.blue) < 0.1)
        let big = try Fixture.source("photo.jpg").image(at: 0)
        #expect(try big.thumbHash().approximateAspectRatio == 7.0 / 5.0)  // 320x240: 7 by round(5.25)
    }

    @Test("the async form gives the same hash")
    func asyncForm() async throws {
        let source = try Fixture.source("photo.jpg")
        let hash = try await source.thumbHash()
        let synchronous = { () throws -> ThumbHash in try source.thumbHash() }
        #expect(hash == (try synchronous()))
    }

    private func distance(_ a: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ b: (r: UInt8, g: UInt8, b: UInt8)) -> Int {
        abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b))
    }
}
