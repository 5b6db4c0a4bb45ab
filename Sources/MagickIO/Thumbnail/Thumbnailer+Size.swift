import Foundation

extension Thumbnailer {
    /// A thumbnail of the image file at `url` sized into `size` by `mode` (see
    /// `ImageSource/thumbnail(size:mode:gravity:at:allowUpscale:options:)`), admitted as
    /// ``thumbnail(of:maxPixelSize:at:allowUpscale:options:)-(URL,_,_,_,_)``.
    ///
    /// ```swift
    /// let square = try await thumbnailer.thumbnail(of: url, size: ImageSize(width: 256, height: 256), mode: .fill)
    /// ```
    public func thumbnail(of url: URL, size: ImageSize, mode: SizingMode = .fit, gravity: Gravity = .center,
                          at frame: Int = 0, allowUpscale: Bool = false,
                          options: ThumbnailOptions = ThumbnailOptions()) async throws -> Image {
        try await job(url, .box(size, mode, gravity), at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// A thumbnail of an image held in memory, as ``thumbnail(of:size:mode:gravity:at:allowUpscale:options:)-(URL,_,_,_,_,_,_)``.
    public func thumbnail(of data: Data, size: ImageSize, mode: SizingMode = .fit, gravity: Gravity = .center,
                          at frame: Int = 0, allowUpscale: Bool = false,
                          options: ThumbnailOptions = ThumbnailOptions()) async throws -> Image {
        try await job(data, .box(size, mode, gravity), at: frame, allowUpscale: allowUpscale, options: options)
    }

    /// A thumbnail of a source already open, as ``thumbnail(of:size:mode:gravity:at:allowUpscale:options:)-(URL,_,_,_,_,_,_)``.
    public func thumbnail(of source: ImageSource, size: ImageSize, mode: SizingMode = .fit, gravity: Gravity = .center,
                          at frame: Int = 0, allowUpscale: Bool = false,
                          options: ThumbnailOptions = ThumbnailOptions()) async throws -> Image {
        try await job(source, .box(size, mode, gravity), at: frame, allowUpscale: allowUpscale, options: options)
    }

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
