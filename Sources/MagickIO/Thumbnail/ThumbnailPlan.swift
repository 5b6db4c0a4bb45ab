// The open half of the thumbnail pipeline, as libvips' thumbnail opens: from the header alone, the
// sizes, the inputs that may fill the picture (best first), each one's check against the limits and
// the cost a ``Thumbnailer`` admits the job on. Made once per thumbnail, and a plain value: the
// runner (``ImageSource/makeThumbnail(_:options:interrupt:)``) only follows it.

/// One thumbnail, planned before any pixel is decoded.
struct ThumbnailPlan: Sendable {
    var sizes: ThumbnailSizes
    /// What may fill the picture, best first: 1. a thumbnail the file carries that serves
    /// (``ImageSource/embeddedInput(_:plan:options:)``); 2. an animation's frame composited by
    /// giflib or libwebp (``ImageSource/compositedPlan(_:at:options:)``), or frame 0's rows from
    /// an own decoder at the shrink-on-load scale (``ImageSource/streamPlan(_:at:options:)``);
    /// 3. the frame decoded whole, at the JPEG shrink-on-load hint.
    var inputs: [ThumbnailFill]
    /// Why each input may not run (over a limit: ``ThumbnailFill/refusal()``), checked once, here;
    /// nil where it may. A picture over the limits can still give its embedded thumbnail.
    var refusals: [MagickIOError?]
    /// The picture's predicted bytes, what a ``Thumbnailer`` admits the job on (the own path's,
    /// the compositor's, or the decode's and the resize's), or why the picture may not be decoded.
    var cost: Result<Int, MagickIOError>

    /// The plan of a thumbnail of pixels already decoded (``Image/thumbHash()``).
    static func pixels(_ image: Image, _ geometry: ThumbnailGeometry) -> ThumbnailPlan {
        ThumbnailPlan(sizes: (geometry, geometry.stored(turnedBy: image.orientation), nil),
                      inputs: [.pixels(image, geometry)], refusals: [nil], cost: .success(0))
    }
}

extension ImageSource {
    /// The plan of a thumbnail of frame `index` (see ``ThumbnailPlan``): the one function that
    /// chooses a thumbnail's inputs and checks its limits, for the thumbnail itself and for the
    /// cost a ``Thumbnailer`` admits it on. Reads the header, and for a HEIC or AVIF whose carried
    /// thumbnails may serve, their items; decodes nothing.
    func thumbnailPlan(_ request: ThumbnailRequest, at index: Int, allowUpscale: Bool,
                       options: ThumbnailOptions) throws(MagickIOError) -> ThumbnailPlan {
        let sizes = try thumbnailSizes(request, at: index, allowUpscale: allowUpscale)
        var inputs: [ThumbnailFill] = []
        if options.embedded != .never, index == 0, let embedded = try embeddedInput(request, plan: sizes, options: options) {
            inputs.append(embedded)
        }
        let composite = compositedPlan(sizes, at: index, options: options)
        // An animated composite serves animated thumbnails only (AnimatedThumbnail.swift): a still
        // one of the same file takes the own rows, when there are any.
        let stream = composite.map(\.animated) ?? true ? streamPlan(sizes, at: index, options: options) : nil
        var path: ThumbnailFill?
        if let composite, !composite.animated {
            path = .composited(sizes, composite, frame: index, of: self)
        } else if let stream {
            path = .rows(sizes, stream, of: self)
        }
        inputs += [path, .decoded(sizes, frame: index, of: self)].compactMap { $0 }
        let refusals = inputs.map { $0.refusal() }
        let pathRefusal = path == nil ? nil : refusals[refusals.count - 2]
        // The cost is the picture's: an animation's compositor (animated or not), else the own
        // path's rows, else ImageMagick's decode and the resize after it.
        let cost: Result<Int, MagickIOError>
        if let composite {
            let refusal = composite.animated ? ThumbnailFill.composited(sizes, composite, frame: index, of: self).refusal() : pathRefusal
            cost = Self.cost(composite.estimate.bytes, refusal: refusal)
        } else if let stream {
            cost = Self.cost(stream.estimate.bytes, refusal: pathRefusal)
        } else {
            cost = Self.cost(thumbnailEstimate(sizes, at: index), refusal: refusals[refusals.count - 1])
        }
        return ThumbnailPlan(sizes: sizes, inputs: inputs, refusals: refusals, cost: cost)
    }

    private static func cost(_ bytes: Int, refusal: MagickIOError?) -> Result<Int, MagickIOError> {
        refusal.map { .failure($0) } ?? .success(bytes)
    }

    /// The predicted bytes of a thumbnail (``ThumbnailPlan/cost``), after the source's own limits
    /// (``DecodingOptions``) have let it through.
    func thumbnailCost(_ request: ThumbnailRequest, at index: Int, allowUpscale: Bool,
                       options: ThumbnailOptions = ThumbnailOptions()) throws(MagickIOError) -> Int {
        try thumbnailPlan(request, at: index, allowUpscale: allowUpscale, options: options).cost.get()
    }

}

/// A thumbnail's sizes: the geometry in oriented axes, the resize target in stored axes, and the
/// JPEG shrink-on-load hint for ImageMagick's decoder.
typealias ThumbnailSizes = (geometry: ThumbnailGeometry, stored: (width: Int, height: Int), hint: JPEGScale.Hint?)

/// What a thumbnail is asked to be.
enum ThumbnailRequest: Sendable, Hashable {
    /// The longest side, the image fitted into a square of it.
    case maxPixelSize(Int)
    /// A box, a mode and, for ``SizingMode/fill``, a gravity.
    case box(ImageSize, SizingMode, Gravity)

    /// The geometry for an image shown as `width` x `height`.
    func geometry(width: Int, height: Int, allowUpscale: Bool) -> ThumbnailGeometry {
        switch self {
        case .maxPixelSize(let side):
            let side = max(side, 1)
            return ThumbnailGeometry(width: width, height: height, box: ImageSize(width: side, height: side),
                                     mode: .fit, gravity: .center, allowUpscale: allowUpscale)
        case .box(let size, let mode, let gravity):
            return ThumbnailGeometry(width: width, height: height, box: size, mode: mode, gravity: gravity,
                                     allowUpscale: allowUpscale)
        }
    }
}

extension ImageSource {
    /// The sizes a thumbnail of frame `index` works with: the geometry in oriented axes, the resize
    /// target in stored axes (the pixels are resized before they are turned) and the JPEG
    /// shrink-on-load hint.
    func thumbnailSizes(_ request: ThumbnailRequest, at index: Int, allowUpscale: Bool) throws(MagickIOError) -> ThumbnailSizes {
        try checkFrame(index)
        let header = frames[index]
        let geometry = request.geometry(width: header.orientedWidth, height: header.orientedHeight, allowUpscale: allowUpscale)
        let stored = geometry.stored(turnedBy: header.orientation)
        var hint: JPEGScale.Hint?
        if format == .jpeg {
            let limits = ResourceLimits.current
            hint = JPEGScale.hint(width: header.pixelWidth, height: header.pixelHeight, target: stored,
                                  within: (limits.width, limits.height))
        }
        return (geometry, stored, hint)
    }

    func thumbnailEstimate(_ plan: ThumbnailSizes, at index: Int) -> Int {
        let decode = estimate(frame: index, jpegHint: plan.hint)
        return decode.bytes.saturatingPlus(DecodeEstimate.resizeBytes(from: decode.width, to: plan.stored))
    }
}

