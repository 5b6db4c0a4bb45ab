internal import CCodecs
import Foundation

/// Writes ``AnimationFrames`` as an animated WebP (libwebp's `WebPAnimEncoder`, libwebpmux) or an
/// animated GIF (giflib's `EGifOpen` over a write callback), one frame at a time, keeping every
/// frame's delay and the loop count. Neither file is larger than it needs: `WebPAnimEncoder`
/// writes each frame as the sub-rectangle that changed (and chooses key frames itself); the GIF
/// writer writes the changed rectangle too, its unchanged pixels transparent, with a palette of
/// the frame's own colours when it has at most 255 and giflib's median cut (refined) otherwise.
enum AnimationWriter {
    /// Animated WebP, lossy at `quality` (1...100), alpha kept losslessly. Delays are whole
    /// milliseconds. Two identical frames in a row become one frame showing for both delays.
    static func webp(_ frames: AnimationFrames, quality: Int) throws(MagickIOError) -> Data {
        guard let writer = mio_webp_anim_writer_create(UInt32(frames.width), UInt32(frames.height), Int32(clamping: frames.loopCount),
                                                       Float(min(max(quality, 1), 100))) else {
            throw MagickIOError(.encodingFailed, "libwebp could not start an animation of \(frames.width)x\(frames.height)")
        }
        defer { mio_webp_anim_writer_destroy(writer) }
        func failure() -> MagickIOError { MagickIOError(.encodingFailed, String(cString: mio_webp_anim_writer_message(writer))) }
        var start = 0
        for index in 0..<frames.count {
            let status = frames.withFrame(index) { mio_webp_anim_writer_add(writer, $0, Int32(clamping: start)) }
            guard status == 0 else { throw failure() }
            start += frames.delays[index].wholeMilliseconds
        }
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        guard mio_webp_anim_writer_finish(writer, Int32(clamping: start), &bytes, &length) == 0, let bytes else { throw failure() }
        return Data(bytes: bytes, count: length)
    }

    /// Animated GIF: delays rounded to the format's hundredths of a second, alpha as GIF has it
    /// (below half transparent, otherwise opaque).
    static func gif(_ frames: AnimationFrames) throws(MagickIOError) -> Data {
        guard frames.width <= 65_535, frames.height <= 65_535,
              let writer = mio_gif_writer_create(UInt32(frames.width), UInt32(frames.height), Int32(clamping: frames.loopCount)) else {
            throw MagickIOError(.encodingFailed, "giflib could not start a GIF of \(frames.width)x\(frames.height)")
        }
        defer { mio_gif_writer_destroy(writer) }
        func failure() -> MagickIOError { MagickIOError(.encodingFailed, String(cString: mio_gif_writer_message(writer))) }
        for index in 0..<frames.count {
            let centiseconds = Int32(clamping: (frames.delays[index].wholeMilliseconds + 5) / 10)
            let status = frames.withFrame(index) { frame in
                index + 1 < frames.count
                    ? frames.withFrame(index + 1) { next in mio_gif_writer_add(writer, frame, next, centiseconds) }
                    : mio_gif_writer_add(writer, frame, nil, centiseconds)
            }
            guard status == 0 else { throw failure() }
        }
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        guard mio_gif_writer_finish(writer, &bytes, &length) == 0, let bytes else { throw failure() }
        return Data(bytes: bytes, count: length)
    }
}
