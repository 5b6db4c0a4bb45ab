import Foundation

/// An animated thumbnail's frames: each composited on its canvas, resampled to the thumbnail size
/// and held as 8-bit straight RGBA (4 bytes a pixel), with how long it shows and how often the
/// animation plays. Only these small frames are kept; the canvases they came from are not (see
/// `AnimatedThumbnail.swift`). Immutable once built, so any thread may encode it.
final class AnimationFrames: Sendable {
    let width: Int
    let height: Int
    /// Every frame's pixels, one after the other.
    let pixels: [UInt8]
    let delays: [Duration]
    /// How many times the animation plays, as WebP counts it (0 forever; ``Image/loopCount``).
    let loopCount: Int

    var count: Int { delays.count }
    var frameBytes: Int { width * height * 4 }

    init(width: Int, height: Int, pixels: [UInt8], delays: [Duration], loopCount: Int) {
        self.width = width
        self.height = height
        self.pixels = pixels
        self.delays = delays
        self.loopCount = loopCount
    }

    /// Runs `body` on frame `index`'s pixels.
    func withFrame<T, E: Error>(_ index: Int, _ body: (UnsafePointer<UInt8>) throws(E) -> T) throws(E) -> T {
        let result: Result<T, E> = pixels.withUnsafeBufferPointer { buffer in
            Result { () throws(E) -> T in try body(buffer.baseAddress! + index * frameBytes) }
        }
        return try result.get()
    }

    /// The animation written as `format` (animated WebP or GIF, ``AnimationWriter``), or nil for
    /// a format that holds one picture (JPEG, PNG, HEIC, AVIF take frame 0).
    func encoded(as format: EncodingFormat) throws(MagickIOError) -> Data? {
        switch format {
        case .webp(let quality): try AnimationWriter.webp(self, quality: quality)
        case .gif: try AnimationWriter.gif(self)
        case .jpeg, .png, .heic, .avif: nil
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded down (animation delays are kept to the millisecond).
    var wholeMilliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
