import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// Containers whose oddities are not damage, and the damage beside them (issue 21), on the
/// fixtures scripts/container-fixtures.py writes: the stored picture is 96x64 quadrants, red top
/// left, green top right, blue bottom left, yellow bottom right.
@Suite("Container oddities")
struct ContainerOdditiesTests {
    typealias Colour = (r: UInt8, g: UInt8, b: UInt8)

    static let red: Colour = (255, 0, 0), green: Colour = (0, 255, 0), blue: Colour = (0, 0, 255), yellow: Colour = (255, 255, 0)

    /// The colours at the centres of the four quadrants of `image`, in reading order.
    func quadrants(_ image: Image) throws -> [Colour] {
        let pixels = try image.pixels(.rgba8)
        return [(1, 1), (3, 1), (1, 3), (3, 3)].map { x, y in
            let p = pixels.rgba(x: pixels.width * x / 4, y: pixels.height * y / 4)
            return (p.r, p.g, p.b)
        }
    }

    func near(_ a: Colour, _ b: Colour) -> Bool {
        abs(Int(a.r) - Int(b.r)) < 40 && abs(Int(a.g) - Int(b.g)) < 40 && abs(Int(a.b) - Int(b.b)) < 40
    }

    func expect(_ found: [Colour], _ wanted: [Colour], _ what: String) {
        #expect(zip(found, wanted).allSatisfy(near), "\(what): \(found)")
    }

    // MARK: - HEIF transforms

    /// (fixture, shown size, the quadrants' colours as shown): each decodes, whole and as a
    /// thumbnail, to the size and picture libheif's decode gives (heif-convert).
    static let transformed: [(String, Int, Int, [Colour])] = [
        ("avif-irot90-first.avif", 64, 96, [green, yellow, red, blue]),
        ("avif-irot90.avif", 64, 96, [green, yellow, red, blue]),
        ("avif-irot270-first.avif", 64, 96, [blue, red, yellow, green]),
        ("avif-clap-first.avif", 48, 32, [red, red, red, red]),
        ("avif-clap-irot-first.avif", 32, 96, [green, green, red, red]),
        ("avif-imir-irot-first.avif", 64, 96, [red, blue, green, yellow]),
        ("heic-irot90-first.heic", 64, 96, [green, yellow, red, blue]),
    ]

    @Test("an irot/clap listed before ispe: properties, image and thumbnail have the decoded size, upright, orientation 1",
          arguments: transformed.indices)
    func transformsBeforeSize(index: Int) throws {
        let (name, width, height, colours) = Self.transformed[index]
        let source = try Fixture.source(name)
        let p = try source.properties(at: 0)
        #expect((p.pixelWidth, p.pixelHeight) == (width, height), "\(name): \(p.pixelWidth)x\(p.pixelHeight)")
        #expect(p.orientation == .up && (p.orientedWidth, p.orientedHeight) == (width, height), "\(name)")
        let image = try source.image(at: 0)
        #expect((image.width, image.height) == (width, height), "\(name): image \(image.width)x\(image.height)")
        expect(try quadrants(image), colours, "\(name) image")
        // A thumbnail halves each side, never squeezing one into the other's place.
        let longest = max(width, height) / 2
        let thumbnail = try source.thumbnail(maxPixelSize: longest)
        #expect((thumbnail.width, thumbnail.height) == (width / 2, height / 2), "\(name): thumbnail \(thumbnail.width)x\(thumbnail.height)")
        expect(try quadrants(thumbnail), colours, "\(name) thumbnail")
        // ImageMagick's path (no own decoder) agrees.
        var options = ThumbnailOptions()
        options.ownDecoders = false
        let other = try source.thumbnail(maxPixelSize: longest, options: options)
        #expect((other.width, other.height) == (width / 2, height / 2), "\(name): ImageMagick's path \(other.width)x\(other.height)")
        expect(try quadrants(other), colours, "\(name) ImageMagick's path")
    }

    // MARK: - AVIF image sequences

    @Test("an AVIF sequence with a primary still item (brands avis/msf1 only), or one item and no pitm, gives that picture",
          arguments: ["avifs-with-still.avifs", "avifs-item-no-primary.avifs"])
    func sequenceWithStill(name: String) throws {
        let source = try Fixture.source(name)
        #expect(source.format == .avif)
        let p = try source.properties(at: 0)
        #expect((p.pixelWidth, p.pixelHeight) == (96, 64))
        expect(try quadrants(try source.image(at: 0)), [Self.red, Self.green, Self.blue, Self.yellow], "image")
        let thumbnail = try source.thumbnail(maxPixelSize: 48)
        #expect((thumbnail.width, thumbnail.height) == (48, 32))
        expect(try quadrants(thumbnail), [Self.red, Self.green, Self.blue, Self.yellow], "thumbnail")
    }

    @Test("an AVIF sequence without a still item (no meta box) is unsupportedFormat, saying so",
          arguments: ["avifs-sequence-only.avifs"])
    func sequenceOnly(name: String) throws {
        let opened = #expect(throws: MagickIOError.self) { _ = try Fixture.source(name).properties(at: 0) }
        let thumbnailed = #expect(throws: MagickIOError.self) { _ = try Fixture.source(name).thumbnail(maxPixelSize: 48) }
        for error in [opened, thumbnailed] {
            #expect(error?.kind == .unsupportedFormat, "\(String(describing: error))")
            #expect(error?.message.contains("AVIF image sequence with no still image") == true, "\(String(describing: error))")
        }
    }

    // MARK: - OS/2 BMPs

    @Test("an OS/2 BMP whose file-size field holds the headers' size decodes as its clean twin",
          arguments: [("bmp-os2-size-field.bmp", "bmp-os2.bmp"), ("bmp-os2-hotspot.bmp", "bmp-os2.bmp"),
                      ("bmp-os2v2-size-field.bmp", "bmp-os2v2.bmp"), ("bmp-os2v2-40-size-field.bmp", "bmp-os2v2-40.bmp")])
    func os2SizeField(odd: String, clean: String) throws {
        let image = try Fixture.source(odd).image(at: 0)
        let twin = try Fixture.source(clean).image(at: 0)
        #expect((image.width, image.height) == (32, 16))
        #expect(try image.pixels(.rgba8).bytes == twin.pixels(.rgba8).bytes, "\(odd) differs from \(clean)")
        #expect(image.warnings.contains { $0.contains("length and filesize do not match") }, "\(image.warnings)")
        let thumbnail = try Fixture.source(odd).thumbnail(maxPixelSize: 16)
        #expect((thumbnail.width, thumbnail.height) == (16, 8))
    }

    @Test("the OS/2 BMPs with a v1, 40-byte or 16-byte header show the quadrants")
    func os2Colours() throws {
        for name in ["bmp-os2-size-field.bmp", "bmp-os2v2-40-size-field.bmp", "bmp-os2v2-16.bmp"] {
            expect(try quadrants(try Fixture.source(name).image(at: 0)), [Self.red, Self.green, Self.blue, Self.yellow], name)
        }
    }

    @Test("an OS/2 2.x BMP ImageMagick misreads (a 64-byte header, a 16-byte one before the palette) shows the quadrants, from a file and from memory",
          arguments: ["bmp-os2v2.bmp", "bmp-os2v2-size-field.bmp", "bmp-os2v2-16-no-black.bmp"])
    func os2v2Palette(name: String) throws {
        for source in [try Fixture.source(name), try ImageSource(data: try Fixture.data(name))] {
            let quadrantsWanted = [Self.red, Self.green, Self.blue, Self.yellow]
            let found = try quadrants(try source.image(at: 0))
            #expect(found.elementsEqual(quadrantsWanted) { $0 == $1 }, "\(name): \(found)")
            let thumbnail = try source.thumbnail(maxPixelSize: 16)
            #expect((thumbnail.width, thumbnail.height) == (16, 8))
            expect(try quadrants(thumbnail), quadrantsWanted, "\(name) thumbnail")
        }
    }

    @Test("an OS/2 2.x BMP's copy for ImageMagick ends after its pixels: a 64 MiB tail is neither copied nor costed, and the picture is its twin's")
    func os2v2CopyEndsAtPixels() throws {
        let clean = try Fixture.data("bmp-os2v2.bmp")
        // 14 + 64 header bytes, 256 palette entries of 4 bytes, 32x16 pixels of 1 byte.
        #expect(clean.count == 14 + 64 + 1024 + 512)
        let tailed = clean + Data(count: 64 << 20)
        for data in [clean, tailed] {
            let source = try ImageSource(data: data)
            // The copy: a 54-byte Windows 3 header, the palette, the pixels.
            #expect(source.header?.copiedBytes == 54 + 1024 + 512)
            // What the decode copies: from the palette (after the 78 header bytes) to the pixels' end.
            let copy = try #require(try BMPHeader.read(.memory(data)).windowsHeaders(.memory(data)))
            #expect(copy.restAt == 78 && copy.end == clean.count && copy.head.count == 54)
            let image = try source.image(at: 0)
            expect(try quadrants(image), [Self.red, Self.green, Self.blue, Self.yellow], "\(data.count) bytes")
            #expect(image.warnings.isEmpty, "\(image.warnings)")
        }
        // Other BMPs are read as they are: nothing copied.
        #expect(try Fixture.source("bmp-os2.bmp").header?.copiedBytes == 0)
        #expect(try Fixture.source("bmp-rgb32-alpha-byte.bmp").header?.copiedBytes == 0)
    }

    @Test("OS/2 2.x's own Huffman 1D coding is unsupportedFormat, named")
    func os2v2Huffman() throws {
        let error = #expect(throws: MagickIOError.self) { _ = try Fixture.source("bmp-os2v2-huffman.bmp").thumbnail(maxPixelSize: 16) }
        #expect(error?.kind == .unsupportedFormat && error?.message.contains("Huffman 1D") == true, "\(String(describing: error))")
    }

    @Test("a 32-bit BI_RGB BMP's fourth byte is alpha unless it is 0 everywhere, in properties, image and thumbnail alike")
    func rgb32FourthByte() throws {
        let alpha = try Fixture.source("bmp-rgb32-alpha-byte.bmp")
        #expect(try alpha.properties(at: 0).hasAlpha)
        for image in [try alpha.image(at: 0), try alpha.thumbnail(maxPixelSize: 16)] {
            let pixels = try image.pixels(.rgba8)
            let left = pixels.rgba(x: pixels.width / 4, y: pixels.height / 4), right = pixels.rgba(x: pixels.width * 3 / 4, y: pixels.height / 4)
            #expect(left.a == 255 && left.r == 255 && left.g == 0, "\(left)")
            #expect(right.a == 0, "\(right)")
        }
        let opaque = try Fixture.source("bmp-rgb32-zero-byte.bmp")
        #expect(try !opaque.properties(at: 0).hasAlpha)
        for image in [try opaque.image(at: 0), try opaque.thumbnail(maxPixelSize: 16)] {
            #expect(try !ImageSource(data: try image.encoded(as: .png)).properties(at: 0).hasAlpha, "written without alpha")
            expect(try quadrants(image), [Self.red, Self.green, Self.blue, Self.yellow], "zero fourth bytes")
            #expect(try image.pixels(.rgba8).rgba(x: 2, y: 2).a == 255)
        }
    }

    // MARK: - A GIF with ImageMagick's gamma extension

    @Test("ImageMagick's private gamma extension in a GIF is ignored: the pixels are the stored palette's, as its plain twin's")
    func gifGammaExtension() throws {
        let odd = try Fixture.source("gif-imagemagick-gamma.gif"), twin = try Fixture.source("gif-plain-twin.gif")
        #expect(try odd.properties(at: 0).colorSpace == "srgb")
        let image = try odd.image(at: 0)
        let grey = try image.pixels(.rgba8).rgba(x: 24, y: 12)
        #expect(grey.r == 128 && grey.g == 128 && grey.b == 128, "not brightened: \(grey)")
        #expect(try image.pixels(.rgba8).bytes == twin.image(at: 0).pixels(.rgba8).bytes)
        #expect(try odd.thumbnail(maxPixelSize: 16).pixels(.rgba8).bytes == twin.thumbnail(maxPixelSize: 16).pixels(.rgba8).bytes)
        let png = try ImageSource(data: try odd.thumbnail(maxPixelSize: 16).encoded(as: .png))
        let again = try png.image(at: 0).pixels(.rgba8).rgba(x: 12, y: 6)
        // ImageMagick's PNG writer may store a palette, whose grey comes out within a step of 128.
        #expect(abs(Int(again.r) - 128) <= 2 && abs(Int(again.g) - 128) <= 2, "the PNG written says the same: \(again)")
    }

    @Test("the same oddity with rows missing is still corruptImage; refuseWarnings refuses the oddity")
    func os2Damage() throws {
        let truncated = #expect(throws: MagickIOError.self) { _ = try Fixture.source("bmp-os2-size-field-truncated.bmp").image(at: 0) }
        #expect(truncated?.kind == .corruptImage, "\(String(describing: truncated))")
        let strict = try ImageSource(url: Fixture.url("bmp-os2-size-field.bmp"), options: DecodingOptions(strictness: .refuseWarnings))
        let refused = #expect(throws: MagickIOError.self) { _ = try strict.image(at: 0) }
        #expect(refused?.kind == .corruptImage && refused?.message.contains("length and filesize") == true)
    }

    // MARK: - Embedded thumbnails and libjpeg's words

    @Test("a broken EXIF thumbnail falls back to the picture under .always and .ifAbsent")
    func brokenEmbeddedThumbnail() throws {
        let source = try Fixture.source("embedded-thumbnail-broken.jpg")
        #expect(source.embeddedThumbnail() != nil, "the fixture carries a thumbnail")
        for embedded in [ThumbnailOptions.EmbeddedThumbnail.always, .ifAbsent] {
            let thumbnail = try source.thumbnail(maxPixelSize: 48, options: ThumbnailOptions(embedded: embedded))
            #expect((thumbnail.width, thumbnail.height) == (48, 32), "\(embedded)")
            // Red from the picture, not the thumbnail's magenta.
            expect(try quadrants(thumbnail), [Self.red, Self.green, Self.blue, Self.yellow], "\(embedded)")
        }
    }

    @Test("a libjpeg warning that refuses a file says what is wrong with it and keeps ImageMagick's words")
    func libjpegWords() throws {
        let error = #expect(throws: MagickIOError.self) { _ = try Fixture.source("truncated.jpg").image(at: 0) }
        #expect(error?.kind == .corruptImage)
        let message = error?.message ?? ""
        #expect(message.hasPrefix("the file ends before its last row: it is truncated"), "\(message)")
        #expect(message.contains("Premature end of JPEG file") && message.contains(Fixture.url("truncated.jpg").path), "\(message)")
    }

    /// Leaves this thread's heap dirty: blocks of the sizes a small picture's planes and libde265's
    /// take (glibc's cached chunks to 1,032 bytes, and larger), filled with `byte`, then freed.
    func dirtyHeap(_ byte: UInt8) {
        let sizes = Array(stride(from: 24, through: 1032, by: 16)) + [1552, 1568, 6160, 6176, 16 << 10, 64 << 10]
        let blocks = sizes.flatMap { size in (0..<8).compactMap { _ in malloc(size).map { ($0, size) } } }
        for (block, size) in blocks { memset(block, Int32(byte), size) }
        for (block, _) in blocks { free(block) }
    }

    @Test("a HEIC whose slice is cut short: every decode shows the same picture, the blocks it never codes as zeros, never what the heap held",
          .enabled(if: HeapScrub.isEffective, "a sanitizer's allocator in place of glibc's malloc: nothing zeroes the heap"))
    func sliceCutShort() throws {
        let data = try Fixture.data("heic-slice-cut-short.heic")
        var imageMagick = ThumbnailOptions()
        imageMagick.ownDecoders = false
        for (path, options) in [("own", ThumbnailOptions()), ("ImageMagick's", imageMagick)] {
            var seen: [[UInt8]] = []
            for byte: UInt8 in [0x00, 0x5A, 0xC3, 0xFF] {
                dirtyHeap(byte)
                let source = try ImageSource(data: data, options: DecodingOptions().inProcess)
                let thumbnail = try source.thumbnail(maxPixelSize: 96, options: options)
                #expect((thumbnail.width, thumbnail.height) == (96, 64), "\(path) path: \(thumbnail.width)x\(thumbnail.height)")
                seen.append(try thumbnail.pixels(.rgba8).bytes)
            }
            #expect(seen.allSatisfy { $0 == seen[0] }, "\(path) path: the picture changed with the heap's contents")
            // The blocks the slice never reaches (the right third) are zeros in Y, Cb and Cr, shown as
            // (0, 135, 0); the first block, which libde265 decoded from the damaged slice, mid grey.
            let pixels = try ImageSource(data: data, options: DecodingOptions().inProcess).thumbnail(maxPixelSize: 96, options: options).pixels(.rgba8)
            for (x, y) in [(68, 4), (92, 60)] {
                let p = pixels.rgba(x: x, y: y)
                #expect(p.r < 16 && abs(Int(p.g) - 135) < 16 && p.b < 16, "\(path) path: (\(x), \(y)) is \(p)")
            }
            for (x, y) in [(4, 4), (60, 60)] {
                let p = pixels.rgba(x: x, y: y)
                #expect(abs(Int(p.r) - 128) < 16 && abs(Int(p.g) - 128) < 16 && abs(Int(p.b) - 128) < 16, "\(path) path: (\(x), \(y)) is \(p)")
            }
        }
    }
}
