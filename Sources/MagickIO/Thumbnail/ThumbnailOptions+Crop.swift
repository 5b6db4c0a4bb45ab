extension ThumbnailOptions {
    /// Where ``SizingMode/fill`` cuts the box out of the scaled picture.
    ///
    /// ```swift
    /// let avatar = try source.thumbnail(size: ImageSize(width: 256, height: 256), mode: .fill,
    ///                                   options: ThumbnailOptions(crop: .attention))
    /// ```
    ///
    /// Every choice is made on the picture already resized and turned upright, just before the
    /// crop (never on the full image), so it costs about the same whatever the source's size.
    /// Other modes never crop and ignore it. See <doc:SmartCropAndColor> for what each one scores.
    public enum Crop: Sendable, Hashable {
        /// At the `gravity` the thumbnail asks for (the centre unless told otherwise): the default.
        case center
        /// Around what draws the eye: edges and fine detail, saturated colour and skin tones,
        /// the window holding the most of them (a person's whole face when it fits), leaning
        /// upwards when it crops a tall picture (libvips' `attention`, sharp's `attention`).
        case attention
        /// Trims the edge with the least information (the lower luminance entropy) step by step
        /// until the box is left (libvips' `entropy`).
        case entropy
        /// Centred as near as it can be on a point given as fractions of the upright picture,
        /// each 0...1 (0, 0 the top left corner; values outside are clamped), the window kept
        /// inside the picture.
        case focalPoint(x: Double, y: Double)
    }
}
