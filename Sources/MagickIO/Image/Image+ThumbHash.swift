import Foundation

extension ImageSource {
    /// The ThumbHash of frame `index`: its upright thumbnail at most 100 pixels a side (the same
    /// pipeline as `thumbnail(maxPixelSize:at:allowUpscale:options:)`, so shrink-on-load keeps it
    /// cheap), its pixels as `.rgba8`, encoded (see ``ThumbHash``).
    ///
    /// ```swift
    /// let hash = try ImageSource(url: photo).thumbHash()
    /// ```
    ///
    /// Stands on MagickIO's thumbnail pipeline and `MagickExportImagePixels`.
    ///
    /// - Throws: what the thumbnail throws: ``MagickIOError`` of kind `frameOutOfRange`,
    ///   `corruptImage` or `limitExceeded`.
    public func thumbHash(at index: Int = 0) throws -> ThumbHash {
        try thumbnail(maxPixelSize: 100, at: index).thumbHash()
    }

    /// `thumbHash(at:)` on MagickIO's threads, cancellable.
    public func thumbHash(at index: Int = 0) async throws -> ThumbHash {
        try await asyncThumbnail(.maxPixelSize(100), at: index, allowUpscale: false, options: ThumbnailOptions()).thumbHash()
    }
}

extension Image {
    /// The ThumbHash of the picture as a viewer shows it: the image turned upright and brought
    /// within 100 pixels a side by the thumbnail pipeline's resize when it is not already (a
    /// thumbnail of 100 or less is used as it is), its pixels as `.rgba8`, encoded.
    ///
    /// ```swift
    /// let thumb = try source.thumbnail(maxPixelSize: 256)
    /// let hash = try thumb.thumbHash()
    /// ```
    ///
    /// Stands on MagickIO's resampler (or `MagickResizeImage`) and `MagickExportImagePixels`.
    ///
    /// - Throws: ``MagickIOError/Kind/corruptImage`` when ImageMagick cannot resize or export it.
    public func thumbHash() throws -> ThumbHash {
        let small = orientation == .up && max(width, height) <= 100 ? self : try placeholderSized()
        let pixels = try small.pixels(.rgba8)
        return ThumbHash(rgba: pixels.bytes, width: pixels.width, height: pixels.height)
    }

    /// The thumbnail pipeline (``ImageSource/makeThumbnail(_:options:interrupt:)``) on this
    /// image's own pixels: resize, orientation, normalisation.
    private func placeholderSized() throws(MagickIOError) -> Image {
        let geometry = ThumbnailRequest.maxPixelSize(100).geometry(width: orientedWidth, height: orientedHeight,
                                                                   allowUpscale: false)
        return try ImageSource.makeThumbnail(.pixels(self, geometry), options: ThumbnailOptions(), interrupt: nil)
    }
}
