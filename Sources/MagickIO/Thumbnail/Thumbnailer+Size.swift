import Foundation

extension Thumbnailer {
    /// Thumbnails of the image files at `urls`, each sized into `size` by `mode` (see
    /// `ImageSource/thumbnail(size:mode:gravity:at:allowUpscale:options:)`; a ``SizingMode/fill``
    /// crops where `options.crop` says), in completion order.
    ///
    /// ```swift
    /// let squares = thumbnailer.thumbnails(of: urls, size: ImageSize(width: 256, height: 256), mode: .fill,
    ///                                      options: ThumbnailOptions(crop: .attention))
    /// ```
    ///
    /// The sequence never throws: each ``ThumbnailResult`` carries its own outcome.
    public func thumbnails(of urls: [URL], size: ImageSize, mode: SizingMode = .fit, gravity: Gravity = .center,
                           at frame: Int = 0, allowUpscale: Bool = false,
                           options: ThumbnailOptions = ThumbnailOptions()) -> AsyncStream<ThumbnailResult<URL>> {
        results(of: urls, .box(size, mode, gravity), at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// Thumbnails of images held in memory, as ``thumbnails(of:size:mode:gravity:at:allowUpscale:options:)->AsyncStream<ThumbnailResult<URL>>``.
    public func thumbnails(of images: [Data], size: ImageSize, mode: SizingMode = .fit, gravity: Gravity = .center,
                           at frame: Int = 0, allowUpscale: Bool = false,
                           options: ThumbnailOptions = ThumbnailOptions()) -> AsyncStream<ThumbnailResult<Data>> {
        results(of: images, .box(size, mode, gravity), at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// Thumbnails of sources already open, as ``thumbnails(of:size:mode:gravity:at:allowUpscale:options:)->AsyncStream<ThumbnailResult<URL>>``.
    public func thumbnails(of sources: [ImageSource], size: ImageSize, mode: SizingMode = .fit, gravity: Gravity = .center,
                           at frame: Int = 0, allowUpscale: Bool = false,
                           options: ThumbnailOptions = ThumbnailOptions()) -> AsyncStream<ThumbnailResult<ImageSource>> {
        results(of: sources, .box(size, mode, gravity), at: frame, allowUpscale: allowUpscale, options: options)
    }
}
