extension Image {
    /// The number of frames: above 1 for an animated thumbnail (``ThumbnailOptions/animated``), 1
    /// for a still image.
    ///
    /// ```swift
    /// let anim = try source.thumbnail(maxPixelSize: 128, options: ThumbnailOptions(animated: true))
    /// let webp = try anim.encoded(as: .webp(quality: 80))  // animated, anim.frameCount frames
    /// ```
    public var frameCount: Int { animation?.count ?? 1 }

    /// How long each frame shows, as the file says (a GIF's hundredths of a second, a WebP's
    /// milliseconds); empty for a still image.
    public var frameDelays: [Duration] { animation?.delays ?? [] }

    /// How many times the animation plays, as WebP counts it: 0 forever. A GIF's NETSCAPE2.0
    /// extension counts the repetitions after the first play (3 is four plays, as browsers show
    /// it); a GIF without one plays once (1); a still image has 0.
    public var loopCount: Int { animation?.loopCount ?? 0 }

    /// A still image as the one frame giflib writes, for ``EncodingFormat/gif`` (ImageMagick's GIF
    /// writer is not among the coders MagickIO's policy allows); nil for other formats.
    func stillGIF(_ format: EncodingFormat) throws(MagickIOError) -> AnimationFrames? {
        guard format == .gif else { return nil }
        let upright = try storage.withCopy { wand throws(MagickIOError) -> PixelBuffer in
            try wand.applyOrientation(orientation)
            let (width, height) = (wand.width, wand.height)
            let rgba = try wand.exportPixels(.rgba8, width: width, height: height)
            return PixelBuffer(layout: .rgba8, width: width, height: height, bytesPerRow: width * 4, bytes: rgba)
        }
        return AnimationFrames(width: upright.width, height: upright.height, pixels: upright.bytes, delays: [.zero], loopCount: 1)
    }
}
