/// For the benchmark's `stages` tool, which times each step of a thumbnail: ``Resampler`` on an
/// image, as a thumbnail resizes it. Not part of MagickIO's API.
@_spi(Benchmarks)
extension Image {
    /// The decoder that made this image's pixels: `ImageMagick`, `libjpeg-turbo` or `libpng`
    /// (MagickIO's own path, see ``ThumbnailOptions``).
    public var decoderName: String { decoder.rawValue }

    /// This RGB image resized with MagickIO's resampler (a thumbnail's resize step).
    public func resampled(toWidth width: Int, height: Int) throws -> Image {
        try storage.withCopy { wand throws(MagickIOError) in
            try wand.resample(toWidth: width, height: height)
            return Image(wand: wand.clone(), orientation: orientation)
        }
    }
}
