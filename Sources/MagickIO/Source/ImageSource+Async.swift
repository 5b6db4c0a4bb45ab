import Foundation

/// The `async` forms of ``ImageSource``'s decoding work (opening a source only reads its header, and
/// stays synchronous). They run on MagickIO's own threads, never blocking
/// Swift's cooperative pool, and honour task cancellation: a cancelled task's decode stops at its
/// next row and throws ``MagickIOError/Kind/cancelled``.
///
/// ```swift
/// let thumb = try await ImageSource(url: url).thumbnail(maxPixelSize: 256)   // in an async context
/// ```
extension ImageSource {
    /// `thumbnail(maxPixelSize:at:allowUpscale:options:)` on MagickIO's threads, cancellable.
    public func thumbnail(maxPixelSize: Int, at index: Int = 0, allowUpscale: Bool = false,
                          options thumbnailOptions: ThumbnailOptions = ThumbnailOptions()) async throws -> Image {
        try await asyncThumbnail(.maxPixelSize(maxPixelSize), at: index, allowUpscale: allowUpscale, options: thumbnailOptions)
    }

    func asyncThumbnail(_ request: ThumbnailRequest, at index: Int, allowUpscale: Bool,
                        options thumbnailOptions: ThumbnailOptions) async throws(MagickIOError) -> Image {
        let interrupt = Interrupt(timeLimit: decodingOptions.timeLimit, startsNow: false)
        return try await WorkerPool.shared.run(interrupt: interrupt) { () throws(MagickIOError) in
            try thumbnail(request, at: index, allowUpscale: allowUpscale, options: thumbnailOptions, interrupt: interrupt)
        }
    }

    /// A planned thumbnail (``ThumbnailPlan``) run on MagickIO's threads, cancellable.
    func asyncThumbnail(_ plan: ThumbnailPlan, options thumbnailOptions: ThumbnailOptions) async throws(MagickIOError) -> Image {
        let interrupt = Interrupt(timeLimit: decodingOptions.timeLimit, startsNow: false)
        return try await WorkerPool.shared.run(interrupt: interrupt) { () throws(MagickIOError) in
            try Self.makeThumbnail(plan, options: thumbnailOptions, interrupt: interrupt)
        }
    }

    /// `thumbnail(size:mode:gravity:at:allowUpscale:options:)` on MagickIO's threads, cancellable.
    public func thumbnail(size: ImageSize, mode: SizingMode = .fit, gravity: Gravity = .center, at index: Int = 0,
                          allowUpscale: Bool = false,
                          options thumbnailOptions: ThumbnailOptions = ThumbnailOptions()) async throws -> Image {
        let interrupt = Interrupt(timeLimit: decodingOptions.timeLimit, startsNow: false)
        return try await WorkerPool.shared.run(interrupt: interrupt) { () throws(MagickIOError) in
            try thumbnail(.box(size, mode, gravity), at: index, allowUpscale: allowUpscale, options: thumbnailOptions,
                          interrupt: interrupt)
        }
    }

    /// `image(at:)` on MagickIO's threads, cancellable.
    public func image(at index: Int = 0) async throws -> Image {
        let interrupt = Interrupt(timeLimit: decodingOptions.timeLimit, startsNow: false)
        return try await WorkerPool.shared.run(interrupt: interrupt) { () throws(MagickIOError) in
            try image(at: index, interrupt: interrupt)
        }
    }
}

/// The `async` forms of ``Image``'s encoding, on MagickIO's own threads.
extension Image {
    /// `encoded(as:metadata:)` on MagickIO's threads.
    public func encoded(as format: EncodingFormat, metadata: MetadataPolicy = .keepAll) async throws -> Data {
        try await WorkerPool.shared.run(interrupt: Interrupt()) { () throws(MagickIOError) in
            try encodedData(as: format, metadata: metadata)
        }
    }

    /// `write(to:as:metadata:)` on MagickIO's threads.
    public func write(to url: URL, as format: EncodingFormat, metadata: MetadataPolicy = .keepAll) async throws {
        try await WorkerPool.shared.run(interrupt: Interrupt()) { () throws(MagickIOError) in
            try writeFile(to: url, as: format, metadata: metadata)
        }
    }
}
