import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// Animated thumbnails (``ThumbnailOptions/animated``) and still thumbnails of an animation's
/// frames, through giflib and libwebp's WebPAnimDecoder, on the fixtures of
/// scripts/animation-fixtures.py (anim-dispose.webp is gif2webp's copy of anim-dispose.gif).
@Suite("Animations")
struct AnimationTests {
    static let animated = ThumbnailOptions(animated: true)

    @Test("an animated GIF's frame count, delays and loop count are kept in the animated WebP and GIF written",
          arguments: [("anim-dispose.gif", 4, [100, 200, 300, 400], 0), ("anim-once.gif", 3, [50, 100, 150], 1),
                      ("anim-thrice.gif", 3, [50, 100, 150], 4)])
    func timingKept(name: String, frames: Int, delays: [Int], loop: Int) throws {
        let source = try Fixture.source(name)
        let thumb = try source.thumbnail(maxPixelSize: 128, options: Self.animated)
        #expect(thumb.frameCount == frames)
        #expect(thumb.frameDelays == delays.map { .milliseconds($0) })
        #expect(thumb.loopCount == loop)
        for format in [EncodingFormat.webp(quality: 80), .gif] {
            let written = try ImageSource(data: try thumb.encoded(as: format))
            #expect(written.format.rawValue == format.fileExtension)
            #expect(written.count == frames, "\(format)")
            // Read back through MagickIO's own decoders (giflib, libwebp's demuxer).
            let again = try written.thumbnail(maxPixelSize: 128, options: Self.animated)
            #expect(again.frameCount == frames, "\(format)")
            #expect(again.frameDelays == delays.map { .milliseconds($0) }, "\(format)")
            #expect(again.loopCount == loop, "\(format)")
        }
    }

    @Test("a GIF's NETSCAPE2.0 count is repetitions after the first play: 3 is a WebP loop count of 4, and 3 again in a GIF written")
    func loopCountAsPlays() throws {
        let thumb = try Fixture.source("anim-thrice.gif").thumbnail(maxPixelSize: 16, options: Self.animated)
        let webp = [UInt8](try thumb.encoded(as: .webp(quality: 80)))
        let anim = try #require(Self.offset(of: Array("ANIM".utf8), in: webp))
        // ANIM: the chunk's size (4 bytes), the background colour (4), then the loop count (2).
        #expect(Int(webp[anim + 12]) | Int(webp[anim + 13]) << 8 == 4, "the WebP plays four times")
        let gif = [UInt8](try thumb.encoded(as: .gif))
        let netscape = try #require(Self.offset(of: Array("NETSCAPE2.0".utf8), in: gif))
        // NETSCAPE2.0, then a 3-byte sub-block: 1 and the little-endian count.
        #expect(Array(gif[(netscape + 11)..<(netscape + 15)]) == [3, 1, 3, 0], "the GIF repeats three times")
        let once = try Fixture.source("anim-once.gif").thumbnail(maxPixelSize: 16, options: Self.animated)
        #expect(Self.offset(of: Array("NETSCAPE2.0".utf8), in: [UInt8](try once.encoded(as: .gif))) == nil,
                "a GIF that plays once is written without the extension")
    }

    static func offset(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    @Test("frames are composited with their disposal (none, background, previous) and transparency",
          arguments: ["anim-dispose.gif", "anim-dispose.webp"])
    func disposal(name: String) throws {
        let thumb = try Fixture.source(name).thumbnail(maxPixelSize: 40, options: Self.animated)
        #expect(thumb.width == 40 && thumb.height == 40 && thumb.frameCount == 4)
        for (frame, x, y, colour) in AnimationProbes.dispose {
            let seen = AnimationProbes.pixel(thumb, frame: frame, x: x, y: y)
            #expect(AnimationProbes.near(seen, colour), "frame \(frame) at (\(x), \(y)): \(seen)")
        }
    }

    @Test("interlaced frames with local colour tables come out in place")
    func interlaced() throws {
        // anim-once.gif: frame n's pixel (x, y) is local colour (x / 4 + y / 4 + n) % 4.
        let colours: [AnimationProbes.RGBA] = [(0, 0, 0, 255), (255, 128, 0, 255), (0, 128, 255, 255), (128, 0, 255, 255)]
        let thumb = try Fixture.source("anim-once.gif").thumbnail(maxPixelSize: 16, options: Self.animated)
        for frame in 0..<3 {
            for (x, y) in [(0, 0), (5, 1), (1, 6), (9, 13), (15, 15), (2, 11)] {
                let seen = AnimationProbes.pixel(thumb, frame: frame, x: x, y: y)
                #expect(AnimationProbes.near(seen, colours[(x / 4 + y / 4 + frame) % 4]), "frame \(frame) at (\(x), \(y)): \(seen)")
            }
        }
    }

    @Test("the animated GIF and WebP written show the same frames", arguments: [EncodingFormat.gif, .webp(quality: 100)])
    func writtenFrames(format: EncodingFormat) throws {
        let thumb = try Fixture.source("anim-dispose.gif").thumbnail(maxPixelSize: 40, options: Self.animated)
        let again = try ImageSource(data: try thumb.encoded(as: format)).thumbnail(maxPixelSize: 40, options: Self.animated)
        // GIF keeps these few colours exactly; lossy WebP comes close.
        let tolerance = format == .gif ? 0 : 24
        for (frame, x, y, colour) in AnimationProbes.dispose {
            let seen = AnimationProbes.pixel(again, frame: frame, x: x, y: y)
            #expect(AnimationProbes.near(seen, colour, tolerance: tolerance), "\(format) frame \(frame) at (\(x), \(y)): \(seen)")
        }
    }

    @Test("a still thumbnail of frame N is composited by giflib or libwebp, as ImageMagick composites it",
          arguments: ["anim-dispose.gif", "anim-dispose.webp"])
    func stillFrame(name: String) throws {
        let source = try Fixture.source(name)
        var imageMagick = ThumbnailOptions()
        imageMagick.ownDecoders = false
        for frame in 0..<4 {
            let own = try source.thumbnail(maxPixelSize: 40, at: frame)
            #expect(own.decoder == (name.hasSuffix(".gif") ? .giflib : .libwebp))
            let reference = try source.thumbnail(maxPixelSize: 40, at: frame, options: imageMagick)
            #expect(reference.decoder == .imageMagick)
            #expect(own.properties.hasAlpha == reference.properties.hasAlpha, "frame \(frame)")
            for (probeFrame, x, y, colour) in AnimationProbes.dispose where probeFrame == frame {
                let seen = try AnimationProbes.pixel(own, x: x, y: y)
                #expect(AnimationProbes.near(seen, colour), "frame \(frame) at (\(x), \(y)): \(seen)")
                #expect(AnimationProbes.near(seen, try AnimationProbes.pixel(reference, x: x, y: y), tolerance: 1))
            }
        }
    }

    @Test("JPEG and PNG take an animated thumbnail's frame 0; a still image is one frame without delays, and its GIF one frame")
    func stillFormats() throws {
        let thumb = try Fixture.source("anim-dispose.gif").thumbnail(maxPixelSize: 40, options: Self.animated)
        let png = try ImageSource(data: try thumb.encoded(as: .png))
        #expect(png.format == .png && png.count == 1)
        #expect(AnimationProbes.near(try AnimationProbes.pixel(try png.image(), x: 30, y: 30), AnimationProbes.red))
        let still = try Fixture.source("photo.jpg").thumbnail(maxPixelSize: 64, options: Self.animated)
        #expect(still.frameCount == 1 && still.frameDelays.isEmpty && still.loopCount == 0)
        // A still image's GIF is giflib's too (ImageMagick's GIF writer is outside the policy).
        let gif = try ImageSource(data: try still.encoded(as: .gif))
        #expect(gif.format == .gif && gif.count == 1)
        #expect(try gif.properties(at: 0).pixelWidth == 64 && gif.properties(at: 0).pixelHeight == 48)
    }

    @Test("maxFrameCount caps the frames an animated thumbnail decodes")
    func maxFrameCount() throws {
        let source = try ImageSource(url: Fixture.url("anim-300.gif"), options: DecodingOptions(maxFrameCount: 5))
        let thumb = try source.thumbnail(maxPixelSize: 32, options: Self.animated)
        #expect(thumb.frameCount == 5)
        #expect(thumb.frameDelays == Array(repeating: .milliseconds(40), count: 5))
    }

    @Test("a fill crops every frame at the gravity's window and reports it in the source's pixels")
    func filledAnimation() throws {
        let source = try ImageSource(url: Fixture.url("anim-300.gif"), options: DecodingOptions(maxFrameCount: 3))
        let thumb = try source.thumbnail(size: ImageSize(width: 64, height: 32), mode: .fill, options: Self.animated)
        #expect(thumb.width == 64 && thumb.height == 32 && thumb.frameCount == 3)
        // 500x500 scaled to 64x64, the middle 64x32 kept: rows 125..<375 of the source.
        #expect(thumb.cropRect == ImageRect(x: 0, y: 125, width: 500, height: 250))
        let fitted = try source.thumbnail(maxPixelSize: 32, options: Self.animated)
        #expect(fitted.cropRect == nil)
    }

    @Test("the estimate counts every kept frame and the canvases, and the budget refuses it before decoding")
    func budget() throws {
        // 2 canvases of 500x500 (2 MB) and 300 frames of 128x128 (19.7 MB): over 16 MiB.
        let source = try ImageSource(url: Fixture.url("anim-300.gif"), options: DecodingOptions(memoryBudget: 16 << 20))
        #expect {
            _ = try source.thumbnail(maxPixelSize: 128, options: Self.animated)
        } throws: { error in
            (error as? MagickIOError)?.kind == .limitExceeded && (error as? MagickIOError)?.limit?.name == "memoryBudget"
        }
        // One frame of it fits.
        let frame = try source.thumbnail(maxPixelSize: 128, at: 299)
        #expect(frame.width == 128 && frame.decoder == .giflib)
    }

    @Test("a stop reaches an animated thumbnail between rows of a frame, long before its last frame", .timeLimit(.minutes(10)))
    func cancellation() throws {
        let source = try ImageSource(url: Fixture.url("anim-300.gif"), options: DecodingOptions().inProcess)
        let interrupt = Interrupt()
        let outcome = CancellationTests.cancelAtFirstProgress(interrupt) { () throws(MagickIOError) in
            _ = try source.thumbnail(.maxPixelSize(128), at: 0, allowUpscale: false, options: Self.animated, interrupt: interrupt)
        }
        #expect(outcome == .cancelled)
        // 500 rows a frame, a progress point every 16: 31 a frame, 9,300 for all 300.
        #expect(interrupt.callbacks.load(ordering: .relaxed) < 9_000, "stopped before the last frames")
    }

    @Test("a 300-frame 500x500 GIF becomes a 128-px animated WebP in at most 64 MiB", .timeLimit(.minutes(10)),
          .enabled(if: !runningUnderSanitizer, "a sanitizer's allocator and shadow memory change the peak"))
    func threeHundredFrames() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("anim-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let run = try runChild(
            try builtProduct("thumbnail"),
            [Fixture.url("anim-300.gif").path, "--animated", "--max-pixel-size", "128", "--output", work.path,
             "--jobs", "1", "--json", "--time-limit", "0"],
            timeout: .seconds(300))
        #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
        let line = String(decoding: run.stdout, as: UTF8.self)
        #expect(line.contains("\"frames\": 300") && line.contains("\"width\": 128"), "\(line)")
        #expect(run.peakRSSBytes <= 64 << 20, "peak RSS \(run.peakRSSBytes >> 20) MiB")
        let written = try ImageSource(url: work.appendingPathComponent("anim-300.webp"))
        #expect(written.format == .webp && written.count == 300)
    }
}
