// The inputs a thumbnail's picture can come from. The plan
// (``ImageSource/thumbnailPlan(_:at:allowUpscale:options:)``) lists the ones that apply, best
// first, and checks each against the limits once; each only *fills* the pipeline's wand with a
// decoded picture and says what the build half must do with it. The wand, the interrupt and the
// cache reservation belong to the runner (``ImageSource/makeThumbnail(_:options:interrupt:)``),
// never to an input.

/// One kind of input to the thumbnail pipeline. A new decoder of frame 0's rows is a new
/// ``RowDecoder`` (one case); a new kind of picture is a case here with its `admit` and `fill`.
enum ThumbnailFill: Sendable {
    /// A JPEG's EXIF thumbnail (IFD1), opened as a source of its own, decoded by ImageMagick; the
    /// picture's metadata is copied onto it when the options keep metadata.
    case exifThumbnail(ImageSource, ThumbnailSizes, of: ImageSource)
    /// A HEIC/AVIF thumbnail item, decoded by libheif; a failed decode leaves the picture to the
    /// next input (a missed shortcut, not an error).
    case heifItem(HEIFThumbnail, ThumbnailGeometry, of: ImageSource)
    /// Frame 0's rows from one of MagickIO's own decoders, resampled as they come; the decoder
    /// can hand the file on to the next input (``RowSourceFailure/fallback(_:)``).
    case rows(ThumbnailSizes, StreamPlan, of: ImageSource)
    /// An animation's frame composited by giflib or libwebp's WebPAnimDecoder (frames 0...N, two
    /// canvases at most), resampled to the plan's size; a file these decoders call corrupt is
    /// left to the next input (ImageMagick's coder).
    case composited(ThumbnailSizes, CompositedPlan, frame: Int, of: ImageSource)
    /// A frame decoded whole: by its ImageMagick coder, or by libheif for HEIC/AVIF.
    case decoded(ThumbnailSizes, frame: Int, of: ImageSource)
    /// An image already decoded (``Image/thumbHash()``): its own pixels.
    case pixels(Image, ThumbnailGeometry)

    /// A thumbnail the file carries: a shortcut whose failure (over the limits, undecodable) is
    /// missed, not an error: viewers show the picture, and the next input decodes it. A stop
    /// (cancellation, the time limit) is final all the same.
    var isShortcut: Bool {
        switch self {
        case .exifThumbnail, .heifItem: true
        case .rows, .composited, .decoded, .pixels: false
        }
    }

    /// What an input was admitted with: the bytes its decoder may read (``DecoderInput``), and
    /// the share of ImageMagick's pixel cache to reserve for it (``AdmissionGate``): its decoded
    /// picture where ImageMagick holds one, and always the build's (``buildCacheBytes(_:)``).
    struct Admission {
        var input: DecoderInput?
        var cacheBytes: Int

        /// The approved bytes, which every input that reads the file's bytes was admitted with.
        func approved() throws(MagickIOError) -> DecoderInput {
            guard let input else { throw MagickIOError(.corruptImage, "the thumbnail's input was not admitted") }
            return input
        }
    }

    /// The picture a fill left in the wand, and what the build half needs to know of it.
    struct Picture {
        var geometry: ThumbnailGeometry
        /// The resize target, in the axes the picture is stored in.
        var stored: (width: Int, height: Int)
        var orientation: Orientation
        var warnings: [DecoderWarning]
        var decoder: Image.Decoder
    }

    /// The pixel cache the build half holds at once for a picture resized to `stored`: the resized
    /// picture and one transformed copy beside it (turning, cropping and the colour conversion
    /// each make a new image before the old one goes), 8 bytes a pixel in ImageMagick's Q16 build.
    /// An 11 MP thumbnail holds 180 MB: never "the small part" of a decode.
    static func buildCacheBytes(_ stored: (width: Int, height: Int)) -> Int {
        stored.width.saturatingTimes(stored.height).saturatingTimes(16)
    }

    /// Why this input may not run: its decode's estimate over the limits
    /// (``ImageSource/checkLimits(frame:jpegHint:)``, or the own path's); nil where it may. Made
    /// once, by the plan (``ThumbnailPlan/refusals``).
    func refusal() -> MagickIOError? {
        do throws(MagickIOError) {
            switch self {
            case .exifThumbnail(let embedded, let plan, _):
                try embedded.checkLimits(frame: 0, jpegHint: plan.hint)
            case .heifItem, .pixels:
                break
            case .rows(_, let stream, let source):
                try source.checkLimits(stream)
            case .composited(_, let composite, _, let source):
                try source.checkLimits(stored: composite.canvas, composite.estimate, byImageMagick: false)
            case .decoded(let plan, let frame, let source):
                try source.checkLimits(frame: frame, jpegHint: plan.hint)
            }
            return nil
        } catch {
            return error
        }
    }

    /// Admits this input, which its plan let through (``refusal()``): the bytes its decoder reads,
    /// after the metadata limits (``ImageSource/decoderInput(keeping:forLibjpeg:)``), and the pixel cache it
    /// reserves. `pictureInput` keeps the picture's approved bytes for the next input of the same
    /// picture, so that they are counted once.
    func admit(_ options: ThumbnailOptions, pictureInput: inout DecoderInput?) throws(MagickIOError) -> Admission {
        switch self {
        case .exifThumbnail(let embedded, let plan, _):
            let input = try embedded.decoderInput(keeping: MetadataUse(options))
            return Admission(input: input, cacheBytes: embedded.estimate(frame: 0, jpegHint: plan.hint).cacheBytes
                .saturatingPlus(Self.buildCacheBytes(plan.stored)))
        case .heifItem(let item, let geometry, _):
            return Admission(cacheBytes: item.pixels.saturatingTimes(8).saturatingPlus(Self.buildCacheBytes(geometry.scaled)))
        case .pixels(let image, let geometry):
            // The copy shares the image's cache until something writes to it: counted all the same.
            return Admission(cacheBytes: image.width.saturatingTimes(image.height).saturatingTimes(8)
                .saturatingPlus(Self.buildCacheBytes(geometry.scaled)))
        case .rows(let plan, let stream, let source):
            let build = Self.buildCacheBytes(plan.stored)
            // libjpeg's rows need the census only to the first scan; that input is not the
            // whole picture's, so ImageMagick's decode after it takes its own.
            if stream.decoder == .jpeg {
                return Admission(input: try source.decoderInput(keeping: MetadataUse(options), forLibjpeg: true), cacheBytes: build)
            }
            let input = if let pictureInput { pictureInput } else { try source.decoderInput(keeping: MetadataUse(options)) }
            pictureInput = input
            return Admission(input: input, cacheBytes: build)
        case .composited(let plan, _, _, _):
            return Admission(cacheBytes: Self.buildCacheBytes(plan.stored))
        case .decoded(let plan, let frame, let source):
            let input = if let pictureInput { pictureInput } else { try source.decoderInput(keeping: MetadataUse(options)) }
            pictureInput = input
            return Admission(input: input, cacheBytes: source.estimate(frame: frame, jpegHint: plan.hint).cacheBytes
                .saturatingPlus(Self.buildCacheBytes(plan.stored)))
        }
    }

    /// Decodes the picture into `wand` (which holds no image, and reports progress to
    /// `interrupt`), or returns nil to leave it to the next input.
    func fill(_ wand: Wand, _ admission: Admission, options: ThumbnailOptions, wandless: WandlessThumbnail? = nil,
              interrupt: Interrupt?, idleCore: Bool) throws(MagickIOError) -> Picture? {
        switch self {
        case .exifThumbnail(let embedded, let plan, let source):
            let warnings = try embedded.decode(frame: 0, from: try admission.approved(), jpegHint: plan.hint, interrupt: interrupt,
                                             cacheBytes: admission.cacheBytes, into: wand)
            try source.copyMetadata(into: wand, for: options)
            return Picture(geometry: plan.geometry.standingFor(source), stored: plan.stored,
                           orientation: embedded.frames[0].orientation,
                           warnings: warnings.map(source.namingEmbedded), decoder: .imageMagick)
        case .heifItem(let item, let geometry, let source):
            // An item libheif cannot decode is a missed shortcut (``isShortcut``): the pipeline
            // goes on to the picture; a stop is final.
            try item.decode(into: wand, interrupt: interrupt)
            try interrupt?.check()
            try source.copyMetadata(into: wand, for: options)
            return Picture(geometry: geometry.standingFor(source), stored: geometry.scaled, orientation: .up, warnings: [],
                           decoder: .imageMagick)
        case .rows(let plan, let stream, let source):
            guard let (warnings, decoder) = try source.fillRows(plan, stream, from: try admission.approved(), into: wand,
                                                                wandless: wandless, interrupt: interrupt,
                                                                idleCore: idleCore) else { return nil }
            return Picture(geometry: plan.geometry, stored: plan.stored, orientation: source.frames[0].orientation,
                           warnings: warnings, decoder: decoder)
        case .composited(let plan, let composite, let frame, let source):
            guard let decoder = try source.fillComposited(plan, composite, at: frame, into: wand, interrupt: interrupt) else {
                return nil
            }
            return Picture(geometry: plan.geometry, stored: plan.stored, orientation: source.frames[frame].orientation,
                           warnings: [], decoder: decoder)
        case .decoded(let plan, let frame, let source):
            let warnings = try source.decode(frame: frame, from: try admission.approved(), jpegHint: plan.hint, interrupt: interrupt,
                                           cacheBytes: admission.cacheBytes, into: wand)
            return Picture(geometry: plan.geometry, stored: plan.stored, orientation: source.frames[frame].orientation,
                           warnings: warnings, decoder: .imageMagick)
        case .pixels(let image, let geometry):
            try image.storage.copyImage(into: wand)
            return Picture(geometry: geometry, stored: geometry.stored(turnedBy: image.orientation),
                           orientation: image.orientation, warnings: [], decoder: image.decoder)
        }
    }
}

extension ThumbnailGeometry {
    /// This geometry of a carried thumbnail, its crop told in `picture`'s upright pixels (what
    /// ``Image/cropRect`` reports), not the carried thumbnail's.
    func standingFor(_ picture: ImageSource) -> ThumbnailGeometry {
        var geometry = self
        geometry.source = (picture.frames[0].orientedWidth, picture.frames[0].orientedHeight)
        return geometry
    }
}
