import Foundation
import Testing
@testable import MagickIO

/// Issue 18's table, file by file: each hostile family that scripts/hostile-fixtures.py writes,
/// opened by the built `imageinfo` and thumbnailed by the built `thumbnail` at default settings, in
/// children of their own. Properties stay within 64 MiB, a thumbnail within 300 MiB, and the answer
/// is an image or a typed error, never a crash or a time-out.
@Suite("Hostile families stay bounded", .serialized,
       .enabled(if: !runningUnderSanitizer, "a sanitizer's allocator and shadow memory change the peaks"))
struct HostileFamiliesTests {
    /// The error kinds a hostile file may end in.
    static let typedKinds: Set<String> = ["corruptImage", "limitExceeded", "unsupportedFormat"]

    struct Outcome {
        var json: [String: Any]
        var peakRSS: Int
        var status: Int32

        var summary: String { "\(json) (exit \(status), peak \(peakRSS >> 20) MiB)" }
        var isImage: Bool { json["error"] == nil && (json["width"] != nil || json["pixelWidth"] != nil) }
        var errorKind: String? { (json["error"] as? [String: Any])?["kind"] as? String }
    }

    static func run(_ tool: String, _ file: URL) throws -> Outcome {
        let work = HostileFixtures.folder.appendingPathComponent("run-\(UUID())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        // Default settings but the time limit: a loaded machine must not turn a slow answer into
        // `cancelled` (what the file costs in CPU is measured with the release tools instead).
        let arguments = tool == "imageinfo"
            ? [file.path, "--json", "--time-limit", "0"]
            : [file.path, "--json", "--jobs", "1", "--output", work.path, "--time-limit", "0"]
        let run = try runChild(try builtProduct(tool), arguments, timeout: .seconds(120))
        let line = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "{}"
        let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        return Outcome(json: json, peakRSS: run.peakRSSBytes, status: run.status)
    }

    static func check(_ name: String, properties: (Outcome) -> Void = { _ in }, thumbnail: (Outcome) -> Void = { _ in }) throws {
        let file = try HostileFixtures.url(name)
        let info = try run("imageinfo", file)
        #expect(info.peakRSS <= 64 << 20, "imageinfo \(name): \(info.summary)")
        #expect(info.isImage || typedKinds.contains(info.errorKind ?? "-"), "imageinfo \(name): \(info.summary)")
        properties(info)
        let thumb = try run("thumbnail", file)
        #expect(thumb.peakRSS <= 300 << 20, "thumbnail \(name): \(thumb.summary)")
        #expect(thumb.isImage || typedKinds.contains(thumb.errorKind ?? "-"), "thumbnail \(name): \(thumb.summary)")
        thumbnail(thumb)
    }

    @Test("a PNG whose zTXt inflates to 1 GiB: its properties and a thumbnail, without the comment",
          .timeLimit(.minutes(5)))
    func inflatedText() throws {
        try Self.check("png-ztxt-1g.png", properties: { #expect($0.json["pixelWidth"] as? Int == 64, "\($0.summary)") },
                       thumbnail: { #expect($0.json["width"] as? Int == 64, "\($0.summary)") })
    }

    @Test("a PNG whose iCCP profile inflates to 1 GiB: its properties, and a typed answer for the thumbnail",
          .timeLimit(.minutes(5)))
    func inflatedProfile() throws {
        try Self.check("png-iccp-1g.png", properties: { #expect($0.json["pixelWidth"] as? Int == 64, "\($0.summary)") })
    }

    @Test("a PNG of 100,000 text chunks", .timeLimit(.minutes(5)))
    func manyTextChunks() throws {
        try Self.check("png-text-100k.png", thumbnail: { #expect($0.json["width"] as? Int == 64, "\($0.summary)") })
    }

    @Test("a 16383x16383 WebP of 32 bytes: its size read, never decoded whole to read it", .timeLimit(.minutes(5)))
    func hugeWebP() throws {
        try Self.check("webp-lossless-16383.webp", properties: {
            #expect($0.json["pixelWidth"] as? Int == 16383 && $0.json["pixelHeight"] as? Int == 16383, "\($0.summary)")
        })
    }

    @Test("an 8191x8191 lossy WebP with a losslessly compressed alpha plane: its size read, the thumbnail refused by the budget",
          .timeLimit(.minutes(5)))
    func lossyWebPAlphaPlane() throws {
        try Self.check("webp-lossy-alpha-8191.webp", properties: {
            #expect($0.json["pixelWidth"] as? Int == 8191 && $0.json["hasAlpha"] as? Bool == true, "\($0.summary)")
        }, thumbnail: { #expect($0.errorKind == "limitExceeded", "\($0.summary)") })
    }

    @Test("a 1024x1024 lossless WebP naming 65,536 prefix code groups (812 MB of libwebp's tables): refused by the budget",
          .timeLimit(.minutes(5)), arguments: ["webp-lossless-groups-65536.webp", "webp-lossy-alpha-groups-65536.webp"])
    func prefixCodeGroupFlood(name: String) throws {
        try Self.check(name, properties: {
            #expect($0.json["pixelWidth"] as? Int == 1024 && $0.json["hasAlpha"] as? Bool == true, "\($0.summary)")
        }, thumbnail: {
            #expect($0.errorKind == "limitExceeded", "\($0.summary)")
            #expect($0.peakRSS <= 64 << 20, "\($0.summary)")
        })
    }

    @Test("an animated WebP of 2,000 frames of 2500x2500: frames capped, frame 0 thumbnailed alone",
          .timeLimit(.minutes(5)))
    func manyWebPFrames() throws {
        try Self.check("webp-anim-2000.webp", properties: {
            #expect($0.json["frameCount"] as? Int == DecodingOptions().maxFrameCount, "\($0.summary)")
        })
    }

    @Test("a TIFF of 2000x2000 with 13 float64 extra samples in one strip", .timeLimit(.minutes(5)))
    func wideSamples() throws {
        try Self.check("tiff-float64-extras.tif")
    }

    @Test("a 4400x4400 16-bit RGBA TIFF in one strip", .timeLimit(.minutes(5)))
    func oneBigStrip() throws {
        try Self.check("tiff-rgba16-strip.tif")
    }

    @Test("a TIFF of 100,000 pages: pages capped, page 0 thumbnailed", .timeLimit(.minutes(5)))
    func manyPages() throws {
        try Self.check("tiff-100k-ifds.tif", properties: {
            #expect($0.json["frameCount"] as? Int == DecodingOptions().maxFrameCount, "\($0.summary)")
        }, thumbnail: { #expect($0.isImage, "\($0.summary)") })
    }

    @Test("a GIF of 10,000 frames: frames counted and capped, frame 0 thumbnailed", .timeLimit(.minutes(5)))
    func manyGIFFrames() throws {
        try Self.check("gif-10k-frames.gif", properties: {
            #expect($0.json["frameCount"] as? Int == DecodingOptions().maxFrameCount, "\($0.summary)")
        }, thumbnail: { #expect($0.isImage, "\($0.summary)") })
    }

    @Test("a JPEG after 600,000 APP15 segments: its properties and a thumbnail", .timeLimit(.minutes(5)))
    func manySegments() throws {
        try Self.check("jpeg-app15-600k.jpg", properties: { #expect($0.json["pixelWidth"] as? Int == 64, "\($0.summary)") },
                       thumbnail: { #expect($0.json["width"] as? Int == 64, "\($0.summary)") })
    }

    @Test("an 8800x8800 arithmetic-coded JPEG of 1,500 DC scans is refused before decoding", .timeLimit(.minutes(5)))
    func manyScans() throws {
        try Self.check("jpeg-arith-dc-1500.jpg", thumbnail: { #expect($0.errorKind == "limitExceeded", "\($0.summary)") })
    }

    // MARK: - Found by review: what a walker must read as the decoder does

    @Test("scans behind an APP0 of length 0 are counted (libjpeg reads on), so the JPEG is still refused",
          .timeLimit(.minutes(5)))
    func scansBehindAShortSegment() throws {
        try Self.check("jpeg-arith-dc-1500-short-app.jpg", thumbnail: { #expect($0.errorKind == "limitExceeded", "\($0.summary)") })
        let source = try ImageSource(url: HostileFixtures.url("jpeg-arith-dc-1500-short-app.jpg"))
        let error = #expect(throws: MagickIOError.self) { try source.image(at: 0) }
        #expect(error?.kind == .limitExceeded && error?.limit?.name == "jpegScanWork", "\(String(describing: error))")
    }

    @Test("segments behind an APP0 of length 0 are counted: a thumbnail strips them, a full decode is refused",
          .timeLimit(.minutes(5)))
    func segmentsBehindAShortSegment() throws {
        try Self.check("jpeg-short-app-then-600k.jpg", thumbnail: { #expect($0.json["width"] as? Int == 64, "\($0.summary)") })
        let source = try ImageSource(url: HostileFixtures.url("jpeg-short-app-then-600k.jpg"))
        let error = #expect(throws: MagickIOError.self) { try source.image(at: 0) }
        #expect(error?.kind == .limitExceeded && error?.limit?.name == "maxFrameCount", "\(String(describing: error))")
    }

    @Test("a TIFF tag given twice is read as libtiff reads it, the first: a 5000x5000 page is costed as such",
          .timeLimit(.minutes(5)))
    func duplicateTIFFTags() throws {
        try Self.check("tiff-duplicate-size.tif", properties: {
            #expect($0.json["pixelWidth"] as? Int == 5000 && $0.json["pixelHeight"] as? Int == 5000, "\($0.summary)")
        })
        let source = try ImageSource(url: HostileFixtures.url("tiff-duplicate-size.tif"), options: DecodingOptions(memoryBudget: 16 << 20))
        let error = #expect(throws: MagickIOError.self) { try source.thumbnail(maxPixelSize: 64) }
        #expect(error?.kind == .limitExceeded && error?.limit?.name == "memoryBudget", "\(String(describing: error))")
    }

    @Test("a TIFF directory of EXIF pointers back at itself is walked once", .timeLimit(.minutes(5)))
    func exifPointerFanOut() throws {
        try Self.check("tiff-exif-fanout.tif", thumbnail: { #expect($0.json["width"] as? Int == 16, "\($0.summary)") })
    }

    @Test("10,000 overlapping TIFF directories of 4,096 entries: the walk stops at its entry budget", .timeLimit(.minutes(5)))
    func overlappingDirectories() throws {
        try Self.check("tiff-overlapping-ifds.tif")
        var tiff = try #require(TIFFDirectories(.file(OpenFile(path: HostileFixtures.url("tiff-overlapping-ifds.tif").path))))
        for directory in tiff.chain() { _ = tiff.entries(at: directory) }
        #expect(tiff.isExhausted && tiff.entriesRead == TIFFDirectories.entryBudget)
    }

    @Test("a GIF frame larger than its logical screen is costed at its own size", .timeLimit(.minutes(5)))
    func framePastTheScreen() throws {
        try Self.check("gif-frame-past-screen.gif")
        let source = try ImageSource(url: HostileFixtures.url("gif-frame-past-screen.gif"), options: DecodingOptions(memoryBudget: 16 << 20))
        #expect(try source.properties(at: 0).pixelWidth == 1, "the properties are the screen's, as ImageMagick's ping gave")
        let error = #expect(throws: MagickIOError.self) { try source.thumbnail(maxPixelSize: 64) }
        // The 5000x5000 frame's cache is over ImageMagick's pool before it is over the budget.
        #expect(error?.kind == .limitExceeded && ["memory", "memoryBudget"].contains(error?.limit?.name), "\(String(describing: error))")
    }

    /// Issue 28's HEIF families: floods of items, references and property associations, extents
    /// that read the file over and over, configurations of millions of NAL units, a tile named
    /// 65,025 times. libheif 1.15 parses each without limits (minutes, or gigabytes); the ISO BMFF
    /// walker refuses each before libheif sees it, in the properties as in the thumbnail.
    @Test("HEIF structures past libheif's limits are refused before libheif parses them", .timeLimit(.minutes(5)),
          arguments: [("heif-iref-500k.heic", "more than 1000 items"), ("heif-ipma-1m.heic", "more than 1000 items"),
                      ("heif-exif-extents.heic", "an item (2) of 520093696 bytes of data"),
                      ("heif-primary-extents.heic", "an item (1) of 520093696 bytes of data"),
                      ("heif-hvcc-nal-6m.heic", "an hvcC of 18"), ("heif-hvcc-nal-2000.heic", "an hvcC of more than 64 NAL units"),
                      ("heif-grid-255.heic", "a reference to 65025 items, more than 1000"),
                      ("heif-grid-hvcc-3m.heic", "an hvcC of 3600234 bytes"),
                      ("heif-grid-fat-tile.heic", "whose inputs make the decoder read")])
    func heifStructureFloods(name: String, reason: String) throws {
        let refused = { (outcome: Outcome) in
            let message = ((outcome.json["error"] as? [String: Any])?["message"] as? String) ?? ""
            #expect(outcome.errorKind == "corruptImage" && message.contains(reason), "\(name): \(outcome.summary)")
        }
        try Self.check(name, properties: refused, thumbnail: refused)
    }

    @Test("HEIF structures within the limits still open and decode: 1,000 items, 10,000 references, 255,000 associations, a grid of 992 references",
          .timeLimit(.minutes(5)), arguments: [("heif-iref-10k.heic", 96, 64, 96, 64), ("heif-ipma-255k.heic", 96, 64, 96, 64),
                                               ("heif-grid-992.heic", 3072, 1984, 256, 165)])
    func heifWithinLimits(name: String, width: Int, height: Int, thumbnailWidth: Int, thumbnailHeight: Int) throws {
        try Self.check(name, properties: {
            #expect($0.json["pixelWidth"] as? Int == width && $0.json["pixelHeight"] as? Int == height, "\(name): \($0.summary)")
        }, thumbnail: {
            #expect($0.json["width"] as? Int == thumbnailWidth && $0.json["height"] as? Int == thumbnailHeight, "\(name): \($0.summary)")
        })
    }
}
