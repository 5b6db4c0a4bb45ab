internal import CCodecs
import Foundation

/// An animation's frames as a viewer shows them, one at a time: each decoded and composited on
/// the canvas by the library (giflib through ``GIFFrames``, libwebp's `WebPAnimDecoder` through
/// ``WebPAnimationFrames``), never more than the canvas and its saved copy held. The thumbnail
/// steps of ``ImageSource`` resample each canvas as it comes (see `AnimatedThumbnail.swift`).
protocol CompositedFrames: AnyObject {
    /// The canvas, whose size the frames are composited at.
    var width: Int { get }
    var height: Int { get }
    /// How many times the animation plays: 0 forever (known once every frame has been read).
    var loopCount: Int { get }
    /// The next frame: the canvas (straight RGBA, `width * height * 4` bytes, valid until the next
    /// call) and how long it shows; nil after the last.
    func next() throws(MagickIOError) -> (canvas: UnsafePointer<UInt8>, delay: Duration)?
}

/// A GIF's frames through giflib (`DGifOpen` over a read callback: the bytes in memory or read
/// from the file a block at a time, never held whole), each composited after the previous one's
/// disposal: none, background (its rectangle cleared to transparent, as browsers do) or previous.
final class GIFFrames: CompositedFrames {
    private let gif: OpaquePointer
    let width: Int
    let height: Int

    /// Opens the GIF in `input` (kept by the caller for the decoder's life) or, when it is nil,
    /// in the file `descriptor` of `size` bytes, on a canvas of `canvas` (frames past it clipped).
    init(input: UnsafePointer<UInt8>?, descriptor: Int32, size: Int, canvas: (width: Int, height: Int)) throws(MagickIOError) {
        guard let gif = mio_gif_open(input, descriptor, size, UInt32(clamping: canvas.width), UInt32(clamping: canvas.height)) else {
            throw MagickIOError(.limitExceeded, "giflib: out of memory for a \(canvas.width)x\(canvas.height) canvas")
        }
        self.gif = gif
        width = canvas.width
        height = canvas.height
        guard mio_gif_failed(gif) == 0 else {
            throw MagickIOError(.corruptImage, String(cString: mio_gif_message(gif)))
        }
    }

    deinit {
        mio_gif_close(gif)
    }

    /// How many times the animation plays (0 forever): the NETSCAPE2.0 extension counts the
    /// repetitions after the first play, so 3 is four plays, as browsers show it and libwebp's
    /// `gif2webp` converts it (at most 65,535, WebP's largest); a GIF without one plays once.
    var loopCount: Int {
        let repeats = Int(mio_gif_loop_count(gif))
        return repeats < 0 ? 1 : repeats == 0 ? 0 : min(repeats + 1, 65535)
    }

    func next() throws(MagickIOError) -> (canvas: UnsafePointer<UInt8>, delay: Duration)? {
        var canvas: UnsafePointer<UInt8>?
        var centiseconds: Int32 = 0
        switch mio_gif_next(gif, &canvas, &centiseconds) {
        case 1:
            guard let canvas else { throw MagickIOError(.corruptImage, "giflib gave no canvas") }
            return (canvas, .milliseconds(Int(centiseconds) * 10))
        case 0:
            return nil
        default:
            throw MagickIOError(.corruptImage, String(cString: mio_gif_message(gif)))
        }
    }
}

/// An animated WebP's frames through libwebp's `WebPAnimDecoder` (libwebpdemux), which
/// composites each frame (blend, dispose) on its canvas and keeps the previous canvas. The
/// demuxer needs the whole file in memory: a file on disk is read whole first (the estimate counts it).
final class WebPAnimationFrames: CompositedFrames {
    private let anim: OpaquePointer
    let width: Int
    let height: Int
    let loopCount: Int
    private var elapsed = 0

    /// Opens the file in `input` (`size` bytes, kept by the caller for the decoder's life), whose
    /// canvas must be `canvas` (the size MagickIO's walker read).
    init(input: UnsafePointer<UInt8>, size: Int, canvas: (width: Int, height: Int)) throws(MagickIOError) {
        var info = mio_webp_anim_info()
        guard let anim = mio_webp_anim_open(input, size, &info) else {
            throw MagickIOError(.corruptImage, "libwebp: the animation cannot be demuxed")
        }
        self.anim = anim
        width = Int(info.canvas_width)
        height = Int(info.canvas_height)
        loopCount = Int(info.loop_count)
        guard width == canvas.width, height == canvas.height else {
            throw MagickIOError(.corruptImage, "libwebp reads a \(width)x\(height) canvas, the header \(canvas.width)x\(canvas.height)")
        }
    }

    deinit {
        mio_webp_anim_close(anim)
    }

    func next() throws(MagickIOError) -> (canvas: UnsafePointer<UInt8>, delay: Duration)? {
        var canvas: UnsafePointer<UInt8>?
        var end: Int32 = 0
        switch mio_webp_anim_next(anim, &canvas, &end) {
        case 1:
            guard let canvas else { throw MagickIOError(.corruptImage, "libwebp gave no canvas") }
            let delay = max(Int(end) - elapsed, 0)
            elapsed = Int(end)
            return (canvas, .milliseconds(delay))
        case 0:
            return nil
        default:
            throw MagickIOError(.corruptImage, "libwebp: a frame of the animation cannot be decoded")
        }
    }
}

extension ImageSource {
    /// The decoder that composites this GIF's or WebP's frames, over the bytes `body` runs with.
    func withCompositedFrames<T>(_ body: (CompositedFrames) throws(MagickIOError) -> T) throws(MagickIOError) -> T {
        let canvas = (width: frames[0].pixelWidth, height: frames[0].pixelHeight)
        let bytes = bytes
        return try bytes.withDecoderInput { (data, descriptor, size) throws(MagickIOError) -> T in
            guard format == .webp else {
                return try body(GIFFrames(input: data, descriptor: descriptor, size: size, canvas: canvas))
            }
            if let data {
                return try body(WebPAnimationFrames(input: data, size: size, canvas: canvas))
            }
            let file = bytes.read(at: 0, length: size)
            guard file.count == size, size > 0 else { throw MagickIOError(.io, "the WebP file could not be read whole") }
            return try file.withUnsafeBufferPointer { (buffer) throws(MagickIOError) -> T in
                try body(WebPAnimationFrames(input: buffer.baseAddress!, size: size, canvas: canvas))
            }
        }
    }
}
