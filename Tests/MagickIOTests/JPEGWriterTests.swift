import CMagickWand
import Foundation
import Testing
@testable import MagickIO

/// MagickIO's own JPEG writer (``JPEGWriter``, for a decode worker's thumbnail in its host) and
/// ImageMagick's coder write the same bytes for the same image: the rule that lets the host skip
/// making an ImageMagick image of an answer it only writes as JPEG.
@Suite("JPEG writer")
struct JPEGWriterTests {
    /// The qualities at which ImageMagick's choices change: the fast DCT up to 90, 1x1 chroma from 90.
    static let qualities = [1, 50, 85, 89, 90, 91, 100]

    /// The JPEG of `image` (a worker's answer, not yet made into a wand) by both writers, at each
    /// quality: nil for the own writer where it leaves the image to ImageMagick.
    static func bothWriters(_ image: MagickIO.Image) throws -> [(quality: Int, own: Data?, magick: Data)] {
        let own = try qualities.map { try image.storage.directJPEG(quality: $0) }
        // Only now made into a wand, the snapshot's pixels imported as the host always did.
        let magick = try qualities.map { quality in
            try image.storage.withCopy { wand throws(MagickIOError) in
                try wand.apply(.keepAll)
                return try wand.encode(as: .jpeg(quality: quality))
            }
        }
        return zip(qualities, zip(own, magick)).map { ($0, $1.0, $1.1) }
    }

    @Test("a worker's thumbnail: the same bytes as ImageMagick's coder at every quality", .enabled(if: JPEGWriter.reproducesImageMagick), arguments: [
        ("photo.jpg", 96, true), ("orient-6.jpg", 40, true), ("own-444.jpg", 37, true), ("own-gray.jpg", 50, true),
        ("cmyk.jpg", 30, true), ("adobe-rgb.jpg", 64, true), ("photo.png", 81, true), ("own-gray.png", 33, true),
        ("orient-5.tif", 21, true), ("bmp-os2v2.bmp", 17, true), ("alpha.png", 20, false), ("patches.gif", 1, false),
    ])
    func sameBytes(name: String, side: Int, own: Bool) throws {
        let source = try Fixture.source(name)
        #expect(source.decodingOptions.isolation == .process)
        let image = try source.thumbnail(maxPixelSize: side)
        for (quality, direct, magick) in try Self.bothWriters(image) {
            if own {
                let direct = try #require(direct, "\(name) at quality \(quality) left to ImageMagick")
                #expect(direct == magick, "\(name) at quality \(quality): \(direct.count) bytes against ImageMagick's \(magick.count)")
            } else {
                #expect(direct == nil, "\(name): written by the own writer")
            }
        }
        // And what the public call gives, for an answer that is still one.
        let fresh = try source.thumbnail(maxPixelSize: side)
        let public85 = try fresh.encoded(as: .jpeg(quality: 85))
        #expect(try ImageSource(data: public85).properties().pixelWidth == image.width)
        #expect(public85 == (try Self.bothWriters(fresh)).first { $0.quality == 85 }!.magick)
    }

    /// A snapshot of a 256x256 image whose 65,536 pixels take every 16-bit value in red (green and
    /// blue other values, or the same when `grey`), with its pixels, at depth 8 (which 7.1 moves to
    /// its 8-bit levels, 6.9 not). `nearGrey`: every pixel's channels round to the same 8-bit value
    /// but differ in their 16 bits, and the depth is only noted, as a 6.9 worker's thumbnail has it.
    static func everyValue(grey: Bool, resolution: (Double, Double, ResolutionType), nearGrey: Bool = false) throws -> (ImageSnapshot, [UInt8]) {
        var samples = [UInt16](repeating: 0, count: 256 * 256 * 3)
        for value in 0..<65536 {
            samples[3 * value] = UInt16(value)
            samples[3 * value + 1] = grey ? UInt16(value) : UInt16(65535 - value)
            samples[3 * value + 2] = grey ? UInt16(value) : UInt16((value * 7919) & 0xFFFF)
            if nearGrey {
                let level = (value % 256) * 257
                samples[3 * value] = UInt16(level)
                samples[3 * value + 1] = UInt16(level == 65535 ? level - 1 : level + 1)
                samples[3 * value + 2] = UInt16(level == 0 ? 1 : level - 1)
            }
        }
        let wand = Wand()
        try samples.withUnsafeBytes { pixels in
            Result { () throws(MagickIOError) in try wand.constitute(width: 256, height: 256, map: "RGB", sixteenBits: true, pixels: pixels.baseAddress!) }
        }.get()
        if !nearGrey { MagickSetImageDepth(wand.pointer, 8) }
        MagickSetImageResolution(wand.pointer, resolution.0, resolution.1)
        MagickSetImageUnits(wand.pointer, resolution.2)
        var snapshot = ImageSnapshot(wand)
        snapshot.depth = 8
        var pixels = [UInt8](repeating: 0, count: snapshot.pixelBytes)
        try pixels.withUnsafeMutableBytes { buffer in
            Result { () throws(MagickIOError) in try snapshot.exportPixels(wand, into: buffer.baseAddress!) }
        }.get()
        snapshot.pixelOffset = 0
        return (snapshot, pixels)
    }

    @Test("every 16-bit sample, grey or not, at every density rule: the same bytes as ImageMagick's coder", .enabled(if: JPEGWriter.reproducesImageMagick), arguments: [
        (false, (0.0, 0.0, UndefinedResolution)), (true, (0.0, 0.0, UndefinedResolution)),
        (false, (300.0, 150.0, PixelsPerInchResolution)), (true, (118.11, 118.11, PixelsPerCentimeterResolution)),
        (false, (72.0, 72.0, UndefinedResolution)), (false, (72.0, 0.0, PixelsPerInchResolution)),
        (false, (32766.9, 1.0, PixelsPerInchResolution)),
    ])
    func everySample(grey: Bool, resolution: (Double, Double, ResolutionType)) throws {
        let (snapshot, pixels) = try Self.everyValue(grey: grey, resolution: resolution)
        let image = MagickIO.Image(answer: snapshot, pixels: pixels, orientation: .up, warnings: [], decoder: .imageMagick, animation: nil)
        // A grey image is written with one component, as ImageMagick writes it.
        let written = try ImageSource(data: try #require(try image.storage.directJPEG(quality: 85)))
        #expect(try written.properties().colorSpace == (grey ? "gray" : "srgb"))
        for (quality, direct, magick) in try Self.bothWriters(image) {
            let direct = try #require(direct)
            #expect(direct == magick, "quality \(quality): \(direct.count) bytes against ImageMagick's \(magick.count)")
        }
    }

    @Test("pixels grey at 8 bits but not at 16, at depth 8: colour on 6.9, the same bytes as its coder; left to 7.1's", .enabled(if: JPEGWriter.reproducesImageMagick))
    func nearGrey() throws {
        let (snapshot, pixels) = try Self.everyValue(grey: false, resolution: (0, 0, UndefinedResolution), nearGrey: true)
        let image = MagickIO.Image(answer: snapshot, pixels: pixels, orientation: .up, warnings: [], decoder: .imageMagick, animation: nil)
        for (quality, direct, magick) in try Self.bothWriters(image) {
            if JPEGWriter.movesQuantaToDepth {
                // 7.1 moves the quanta to its 8-bit levels by a rule of its own: its coder writes them.
                #expect(direct == nil, "quality \(quality)")
                #expect(try ImageSource(data: magick).properties().pixelWidth == 256)
            } else {
                let direct = try #require(direct, "quality \(quality)")
                #expect(direct == magick, "quality \(quality)")
                #expect(try ImageSource(data: direct).properties().colorSpace == "srgb")
            }
        }
    }

    @Test("on an ImageMagick whose coder it was not checked against, the own writer writes nothing",
          .enabled(if: !JPEGWriter.reproducesImageMagick))
    func otherLines() throws {
        let image = try Fixture.source("photo.jpg").thumbnail(maxPixelSize: 40)
        #expect(try image.storage.directJPEG(quality: 85) == nil)
        #expect(try ImageSource(data: image.encoded(as: .jpeg(quality: 85))).properties().pixelWidth == 40)
    }

    @Test("the lines CI runs (Debian 12's 6.9.11-60, Debian 13's 7.1.1-43) are ones the own writer runs on")
    func ciLines() {
        let version = ImageMagick.version
        // Debian 12: "ImageMagick 6.9.11-60 Q16 x86_64 2021-01-25 ...", Debian 13: "ImageMagick 7.1.1-43 Q16 x86_64 22550 ..."
        // (Matched on the version alone: were either built otherwise, this fails rather than skip.)
        if version.hasPrefix("ImageMagick 6.9.11-60 ") || version.hasPrefix("ImageMagick 7.1.1-43 ") {
            #expect(JPEGWriter.reproducesImageMagick, "\(version)")
        }
    }

    @Test("the ImageMagick lines whose coder the own writer reproduces", arguments: [
        ("ImageMagick 6.9.11-60 Q16 x86_64 2021-01-25 https://imagemagick.org", true),
        ("ImageMagick 6.9.13-25 Q16 x86_64 https://legacy.imagemagick.org", true),
        ("ImageMagick 7.1.1-43 Q16 x86_64 22550 https://imagemagick.org", true),
        ("ImageMagick 7.1.1-29 Q16 x86_64", true), ("ImageMagick 7.1.1-28 Q16 x86_64", false),
        ("ImageMagick 7.1.2-0 Q16 x86_64", false), ("ImageMagick 7.0.10-62 Q16 x86_64", false),
        ("ImageMagick 6.8.9-9 Q16 x86_64", false), ("GraphicsMagick 1.3.40", false), ("", false),
        ("ImageMagick 6.9.11-60 Q8 x86_64", false), ("ImageMagick 7.1.1-43 Q16-HDRI x86_64", false),
        ("ImageMagick 6.9.11-60 Q16-HDRI x86_64", false), ("ImageMagick 7.1.1-43 Q32-HDRI x86_64", false),
        ("ImageMagick 7.1.1-43", false),
    ])
    func lines(version: String, reproduces: Bool) {
        #expect(JPEGWriter.reproduces(version: version) == reproduces)
    }

    @Test("the sampling factors ImageMagick's reader notes: the same bytes as ImageMagick's coder, or left to it", .enabled(if: JPEGWriter.reproducesImageMagick), arguments: [
        ("2x2,1x1,1x1", nil), ("1x1", nil), ("2x1", "2"), ("2x2", "4"), ("1x2,1x1,1x1", nil), ("2", "1"), ("4x4,2x2,1x1", nil),
        ("2x2, 1x1", nil), ("+2x2", nil), ("1x1,1x1,1x1,1x1", nil), ("5x5", nil),
    ] as [(String, String?)])
    func samplingFactors(factors: String, colorspace: String?) throws {
        for grey in [false, true] {
            var (snapshot, pixels) = try Self.everyValue(grey: grey, resolution: (0, 0, UndefinedResolution))
            snapshot.properties.append(("jpeg:sampling-factor", factors))
            if let colorspace { snapshot.properties.append(("jpeg:colorspace", colorspace)) }
            let image = MagickIO.Image(answer: snapshot, pixels: pixels, orientation: .up, warnings: [], decoder: .imageMagick, animation: nil)
            // Text outside the plain form is left to ImageMagick when its writer would read it.
            let read = colorspace.map { Int($0) == (grey ? 1 : 2) } ?? true
            let plain = ImageSnapshot.samplingFactors(factors) != nil
            // The own writer first: ImageMagick's makes the answer into a wand.
            let directs = Self.qualities.map { quality in
                Result { () throws(MagickIOError) in try image.storage.directJPEG(quality: quality) }
            }
            for (quality, direct) in zip(Self.qualities, directs) {
                let magick = Result { () throws(MagickIOError) in
                    try image.storage.withCopy { wand throws(MagickIOError) in try wand.encode(as: .jpeg(quality: quality)) }
                }
                switch (direct, magick) {
                case (.success(let direct), .success(let magick)):
                    if read && !plain {
                        #expect(direct == nil, "\(factors) at quality \(quality)")
                    } else {
                        #expect(direct == magick, "\(factors), grey \(grey), quality \(quality)")
                    }
                case (.success(nil), .failure) where read && !plain:
                    break  // left to ImageMagick, which refuses it
                case (.failure(let own), .failure(let theirs)):
                    // Factors libjpeg refuses (more than 10 blocks an MCU): both writers fail alike.
                    #expect(own.kind == .encodingFailed && theirs.kind == .encodingFailed, "\(factors): \(own), \(theirs)")
                default:
                    Issue.record("\(factors), grey \(grey), quality \(quality): \(direct) against ImageMagick's \(magick)")
                }
            }
        }
    }

    @Test("what the own writer leaves to ImageMagick: a profile, a comment, jpeg: settings, a density JFIF cannot hold", .enabled(if: JPEGWriter.reproducesImageMagick))
    func leftToImageMagick() throws {
        let (snapshot, pixels) = try Self.everyValue(grey: false, resolution: (0, 0, UndefinedResolution))
        var profiled = snapshot
        profiled.profiles = [("icc", sRGBProfile)]
        var commented = snapshot
        commented.properties.append(("comment", "hello"))
        var quality = snapshot
        quality.properties.append(("jpeg:quality", "85"))
        var capitalised = snapshot
        capitalised.properties.append(("Comment", "a PNG's tEXt keyword"))
        var spaced = snapshot
        spaced.properties += [("jpeg:sampling-factor", "1x1"), ("jpeg:colorspace", " 2")]
        var large = snapshot
        large.resolution = (32767, 72, Int(PixelsPerInchResolution.rawValue))
        var wide = snapshot
        wide.properties += [("jpeg:sampling-factor", "1x1"), ("jpeg:colorspace", "4294967298")]
        var shallow = snapshot
        shallow.depth = 4
        var auto = snapshot
        auto.properties.append(("colorspace:auto-grayscale", "false"))
        var hinted = snapshot
        hinted.artifacts.append(("jpeg:dct-method", "float"))
        var dense = snapshot
        dense.resolution = (70_000, 70_000, Int(PixelsPerInchResolution.rawValue))
        var fractional = snapshot
        fractional.resolution = (0.5, 0.5, Int(PixelsPerInchResolution.rawValue))
        var interlaced = snapshot
        interlaced.interlace = Int(PlaneInterlace.rawValue)
        var deep = snapshot
        deep.depth = 16
        func own(_ snapshot: ImageSnapshot) throws -> Data? {
            try pixels.withUnsafeBytes { pixels in
                Result { () throws(MagickIOError) in try snapshot.directJPEG(pixels: pixels.baseAddress!, quality: 85) }
            }.get()
        }
        for other in [profiled, commented, quality, capitalised, spaced, large, wide, shallow, auto, hinted, dense, fractional, interlaced, deep] {
            #expect(try own(other) == nil)
        }
        // The image itself is written by the own writer.
        #expect(try own(snapshot) != nil)
    }

    @Test("a worker's answer not made into a wand has the properties of the one made")
    func answerProperties() throws {
        for name in ["photo.jpg", "orient-6.tif", "alpha.png", "own-gray.jpg"] {
            let image = try Fixture.source(name).thumbnail(maxPixelSize: 30)
            let snapshot = try image.storage.reading { wand throws(MagickIOError) in ImageSnapshot(wand) }
            // The fallback for an answer this process has no room to make into a wand: the same,
            // but the EXIF tags.
            var restored = image.properties
            restored.exif = [:]
            #expect(snapshot.propertiesWithoutEXIF == restored, "\(name)")
        }
    }
}
