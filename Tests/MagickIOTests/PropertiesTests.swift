import Foundation
import Testing
@testable import MagickIO

/// Opening a file reads every frame's properties with MagickIO's own walkers, never an ImageMagick
/// ping: the same properties the ping gave, frame counts capped by `maxFrameCount`, and a bounded
/// cost whatever the file's pixels or metadata claim.
@Suite("Properties")
struct PropertiesTests {
    /// Every committed image fixture and example sample, by path.
    static let files: [URL] = {
        let fixtures = Fixture.url("")
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/thumbnail/Samples")
        let extensions: Set = ["jpg", "png", "gif", "webp", "tif", "heic", "avif", "bmp"]
        return [fixtures, samples].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
                .filter { extensions.contains($0.pathExtension) }
                // HEIF items turned or cropped by properties listed before their `ispe`: the ping
                // says libheif's handle size, which misses those, and MagickIO the size libheif
                // decodes to (ContainerOdditiesTests checks it against the pixels).
                .filter { !$0.lastPathComponent.contains("-first.") }
                // Files ImageMagick's ping reads wrongly and MagickIO right: its own gamma
                // extension as linear RGB (MagickIO: sRGB, as its decode gives); an OS/2 2.x
                // header cut before the palette, whose colours it reads as the header's missing
                // fields (ContainerOdditiesTests); AVIFs libheif 1.15 does not open, which
                // MagickIO shows (HEIFItemsTests checks their pixels): AVIF sequences among them
                // (brands avis/msf1 only, which ImageMagick's ping refuses), with pitm or without.
                .filter { !["gif-imagemagick-gamma.gif", "bmp-os2v2-16-no-black.bmp", "avif-idat-meta-size0.avif",
                            "avif-pyramid-group.avif", "avifs-10bit-pitm.avif", "avifs-10bit-no-pitm.avif",
                            "avifs-10bit-no-pitm-mdat-size0.avif", "avifs-alpha-no-pitm.avif"].contains($0.lastPathComponent) }
        }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }()

    static func expectSame(_ name: String, _ data: Data, file: URL? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let pinged = Result { try PingedProperties.frames(of: data, file: file) }
        let walked = Result { try ImageSource(data: data) }
        switch (walked, pinged) {
        case (.success(let source), .success(let frames)):
            #expect(source.count == frames.count, "\(name): frame count", sourceLocation: sourceLocation)
            for (index, frame) in frames.enumerated() where index < source.count {
                let own = PingedProperties.comparable(try? source.properties(at: index))
                let frame = PingedProperties.comparable(frame)
                #expect(own == frame, "\(name)[\(index)]:\n own  \(String(describing: own))\n ping \(frame)",
                        sourceLocation: sourceLocation)
                #expect(own?.isOffsetOnCanvas == frame?.isOffsetOnCanvas, "\(name)[\(index)]: offset", sourceLocation: sourceLocation)
            }
        case (.success(let source), .failure):
            // Damage inside the image data (a WebP cut in its bitstream), a coding or layout no
            // decoder MagickIO uses reads (OS/2 2.x Huffman 1D; a TIFF of 64-bit integers, which
            // the ping calls corrupt), or a side past ImageMagick's limits (a 65535x1 PNG, whose
            // thumbnail MagickIO's own rows make): the headers open, and a whole decode refuses
            // it, as a truncated JPEG's does.
            let refusal = #expect(throws: MagickIOError.self, "\(name): opens, so its decode must refuse it",
                                  sourceLocation: sourceLocation) { try source.image(at: 0) }
            #expect([.corruptImage, .unsupportedFormat, .limitExceeded].contains(refusal?.kind), "\(name): \(String(describing: refusal))",
                    sourceLocation: sourceLocation)
        case (.failure(let error), .failure):
            let kind = (error as? MagickIOError)?.kind
            #expect(kind == .corruptImage || kind == .emptyData || kind == .unsupportedFormat, "\(name): \(error)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(name): walker \(walked), ping \(pinged)", sourceLocation: sourceLocation)
        }
    }

    @Test("every fixture's properties are what ImageMagick's ping gave", arguments: files)
    func fixtureMatchesPing(file: URL) throws {
        Self.expectSame(file.lastPathComponent, try Data(contentsOf: file), file: file)
    }

    @Test("PNG, BMP and GIF layouts the fixtures lack read as ImageMagick's ping reads them",
          arguments: PropertyImages.pngVariants + PropertyImages.bmpVariants + PropertyImages.gifVariants)
    func variantMatchesPing(name: String, data: Data) {
        Self.expectSame(name, data)
    }

    @Test("the EXIF properties are ImageMagick's names and formatting")
    func exifFormatting() throws {
        let exif = try Fixture.source("gps.jpg").properties(at: 0).exif
        #expect(exif["Make"] == "MagickIO")
        #expect(exif["GPSLatitude"] == "48/1, 51/1, 756/25")
        #expect(exif["ExifVersion"] == "48, 50, 51, 50")
        #expect(exif["DateTimeOriginal"] == "2026:11:21 12:00:00")
    }

    @Test("an EXIF directory that points at itself is read once, as ImageMagick reads it")
    func exifLoopEnds() {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        var exif = Array("Exif\0\0".utf8) + [0x49, 0x49, 42, 0] + le32(8)
        exif += le16(2) + le16(0x10F) + le16(2) + le32(4) + Array("Foo\0".utf8)
        exif += le16(0x8769) + le16(4) + le32(1) + le32(8) + le32(8)  // ExifOffset and next IFD: IFD0 again
        exif += [UInt8](repeating: 0, count: 16)
        let properties = EXIFProperties.dictionary(exif)
        #expect(properties["Make"] == "Foo")
        #expect(properties["ExifOffset"] == "8")
        #expect(properties.keys.allSatisfy { !$0.hasPrefix("thumbnail:") || $0 == "thumbnail:Make" || $0 == "thumbnail:ExifOffset" })
    }

    @Test("a TIFF's EXIF directory gives the properties ImageMagick's TIFF coder sets")
    func tiffEXIF() throws {
        let data = PropertyImages.tiffWithEXIF()
        Self.expectSame("tiff-exif", data)
        let exif = try ImageSource(data: data).properties(at: 0).exif
        #expect(exif["ExposureTime"] == "0.004" && exif["FNumber"] == "2.8" && exif["ISOSpeedRatings"] == "100", "\(exif)")
    }

    @Test("a GIF of 2,000 frames offers maxFrameCount of them, or all under a higher limit")
    func gifFramesCapped() throws {
        let data = PropertyImages.gif(frames: 2_000)
        #expect(try ImageSource(data: data).count == 1_000)
        #expect(try ImageSource(data: data, options: DecodingOptions(maxFrameCount: 5_000)).count == 2_000)
        #expect(try ImageSource(data: data, options: DecodingOptions(maxFrameCount: 7)).count == 7)
    }

    @Test("a TIFF of 2,000 directories offers maxFrameCount pages, each from its own directory")
    func tiffPagesCapped() throws {
        let data = PropertyImages.tiff(pages: 2_000)
        let source = try ImageSource(data: data)
        #expect(source.count == 1_000)
        #expect(try source.properties(at: 999).colorSpace == "gray")
        #expect(try ImageSource(data: data, options: DecodingOptions(maxFrameCount: 5_000)).count == 2_000)
        #expect(try Fixture.source("tiff-ifd-loop.tif").count == 2, "a chain that loops offers the pages before the loop")
        let pages = try Fixture.source("pages.tif")
        #expect(try pages.properties(at: 1).pixelWidth == 8 && pages.properties(at: 0).pixelWidth == 16)
    }

    @Test("opening a 16383x16383 WebP or a PNG whose zTXt inflates to 1 GiB reads their properties in 64 MiB",
          .enabled(if: !runningUnderSanitizer, "LeakSanitizer cannot run in a child traced for its peak, and the peak is not a sanitizer's"),
          arguments: ["webp", "png"])
    func hostilePropertiesInLittleMemory(kind: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("properties-\(UUID().uuidString).\(kind)")
        try (kind == "webp" ? PropertyImages.hugeWebP() : PropertyImages.pngWithHugeText()).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try runChild(try builtProduct("DecodeProbe"), [file.path, "properties"], timeout: .seconds(60))
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stdoutText.contains(kind == "webp" ? "16383x16383" : "1x1"), "\(run.stdoutText)")
        #expect(run.peakRSSBytes <= 64 << 20, "peak RSS \(run.peakRSSBytes >> 20) MiB")
    }
}
