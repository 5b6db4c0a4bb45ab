internal import CMagickCompat
import Foundation

/// A thumbnail made without an ImageMagick image, where one would exist only to be taken apart
/// again: in a decode worker, whose answer leaves as a snapshot and 16-bit pixels
/// (``ImageSnapshot``), a plain own-path thumbnail (``ThumbnailFill/rows(_:_:of:)`` of a JPEG, PNG
/// or WebP without an ICC profile, not cropped, metadata stripped) is resampled straight into
/// those pixels. The new image, the float import, the turn, the depth and the export are then
/// MagickIO's own: the quanta ImageMagick's float import makes (``cmc_float_quanta``), each row
/// written where ImageMagick's flop, flip, rotate, transpose and transverse would move it.
/// Everything else in the snapshot is the same for every such thumbnail of one kind but its size,
/// so it is taken once a process from ImageMagick's own path run on a 2x3 picture of that kind
/// (``template(_:)``), and refused (the wand path runs) unless it holds no page offset, profile or
/// property.
///
/// Only on ImageMagick 6.9 (``JPEGWriter/reproducesImageMagick`` without
/// ``JPEGWriter/movesQuantaToDepth``): there the build's depth of 8 leaves the quanta as the import
/// made them. Tests hold the snapshot and pixels to the wand path's for every orientation.
final class WandlessThumbnail {
    /// What a template depends on besides the size.
    struct Kind: Hashable {
        var format: ImageFormat
        var orientation: Orientation
        var alpha: Bool
        var resolution: ImageProperties.Resolution?
        var colorProfile: ThumbnailOptions.ColorProfile
    }

    let kind: Kind
    private let template: ImageSnapshot
    /// The picture's 16-bit quanta, upright, as the bytes the answer carries.
    private var quanta: [UInt8] = []
    private var stored = (width: 0, height: 0)
    private var placement = Placement(first: 0, across: 1, down: 0)
    private var rowsWritten = 0
    /// Whether the rows went here (not into the wand), every one of them, and the decoder then
    /// finished without handing the file to ImageMagick. Not the count of rows alone: a decoder
    /// may fail at its end (``RowSource/finish()``) after the resampler wrote every row, and then
    /// ImageMagick's path fills the wand instead.
    private(set) var isFilled = false

    private init(kind: Kind, template: ImageSnapshot) {
        self.kind = kind
        self.template = template
    }

    var channels: Int { kind.alpha ? 4 : 3 }

    /// Whether this process makes such thumbnails without a wand: in a decode worker on the line
    /// where that was checked, unless `options` say otherwise (tests).
    static func isEnabled(_ options: ThumbnailOptions) -> Bool {
        (options.buildsWithoutWand ?? Worker.isWorker) && JPEGWriter.reproducesImageMagick && !JPEGWriter.movesQuantaToDepth
    }

    /// The wandless build for `input`, when it is a plain one and its kind has a template; nil
    /// for the wand path.
    static func prepare(_ input: ThumbnailFill, options: ThumbnailOptions) -> WandlessThumbnail? {
        guard isEnabled(options), case .rows(let plan, let stream, let source) = input, plan.geometry.crop == nil,
              options.metadata == .stripAll, stream.orientation == .up, [.jpeg, .png, .webp].contains(stream.decoder),
              let frame = source.frames.first else { return nil }
        let kind = Kind(format: source.format, orientation: frame.orientation, alpha: frame.hasAlpha,
                        resolution: frame.resolution, colorProfile: options.colorProfile)
        guard let template = template(kind) else { return nil }
        return WandlessThumbnail(kind: kind, template: template)
    }

    /// Made once a process for each kind (nil when the wand path must run for it); at most 64
    /// kinds (a resolution is part of one), then made again.
    private static let templates = Locked<[Kind: ImageSnapshot?]>([:])

    private static func template(_ kind: Kind) -> ImageSnapshot? {
        if let made = templates.withLock({ $0[kind] }) { return made }
        // A refusal is kept; an error (ImageMagick's pool full, a limit) is not: the next may make it.
        guard let made = try? makeTemplate(kind) else { return nil }
        templates.withLock { templates in
            if templates.count >= 64 { templates.removeAll() }
            templates[kind] = made
        }
        return made
    }

    /// The snapshot of ImageMagick's path for a 2x3 picture of `kind`: the fill's steps
    /// (``ImageSource/fillRows(_:_:from:into:wandless:interrupt:idleCore:)``: a new image, rows
    /// imported, described), then the build itself (``ImageSource/buildThumbnail(_:_:options:)``),
    /// so that a step added to the build reaches the template too.
    private static func makeTemplate(_ kind: Kind) throws(MagickIOError) -> ImageSnapshot?? {
        let wand = Wand()
        let map = kind.alpha ? "RGBA" : "RGB"
        try wand.newImage(width: 2, height: 3, alpha: kind.alpha)
        var row = [Float](repeating: 0.5, count: 2 * 4 + 1)
        for y in 0..<3 {
            try row.withUnsafeMutableBufferPointer { row throws(MagickIOError) in try wand.importRow(y, row.baseAddress!, map: map) }
        }
        try wand.describe(format: kind.format, resolution: kind.resolution)
        let turned = kind.orientation.swapsWidthAndHeight
        let upright = turned ? (width: 3, height: 2) : (width: 2, height: 3)
        let geometry = ThumbnailGeometry(width: upright.width, height: upright.height,
                                         box: ImageSize(width: upright.width, height: upright.height), mode: .fit,
                                         gravity: .center, allowUpscale: false)
        let picture = ThumbnailFill.Picture(geometry: geometry, stored: (2, 3), orientation: kind.orientation, warnings: [],
                                            decoder: .imageMagick)
        var options = ThumbnailOptions()
        options.colorProfile = kind.colorProfile
        let snapshot = try ImageSource.buildThumbnail(wand, picture, options: options).storage.snapshot()
        guard snapshot.map == map, snapshot.sampleBytes == 2, snapshot.width == upright.width,
              snapshot.height == upright.height, snapshot.page.width == 0, snapshot.page.height == 0, snapshot.page.x == 0,
              snapshot.page.y == 0, snapshot.profiles.isEmpty,
              snapshot.properties.isEmpty, snapshot.animation == nil else { return .some(nil) }
        return snapshot
    }

    /// Begins the picture at `width` x `height` (the stored axes).
    func start(width: Int, height: Int) {
        stored = (width, height)
        placement = Self.placement(of: kind.orientation, width: width, height: height)
        quanta = [UInt8](repeating: 0, count: width * height * channels * 2)
        rowsWritten = 0
    }

    /// Writes row `y` (stored axes) of the resampler's floats (clamped) as ImageMagick's import
    /// would, where the turn upright moves it.
    func write(_ y: Int, _ row: UnsafePointer<Float>) {
        precondition(y >= 0 && y < stored.height, "row \(y) of \(stored.height)")
        let channels = channels, first = placement.first + y * placement.down
        quanta.withUnsafeMutableBytes { quanta in
            cmc_place_float_quanta(row, stored.width, channels, quanta.baseAddress!.assumingMemoryBound(to: UInt16.self) + first * channels,
                                   placement.across * channels)
        }
        rowsWritten += 1
    }

    /// Where a turn by an orientation moves a stored picture's pixels, in pixels of the upright
    /// picture: stored (x, y) lands at `first + x * across + y * down`.
    struct Placement: Equatable {
        var first: Int
        var across: Int
        var down: Int
    }

    /// How ImageMagick's flop, flip, rotate, transpose and transverse (``Wand/applyOrientation(_:)``)
    /// place the pixels of a `width` x `height` stored picture turned upright by `orientation`.
    static func placement(of orientation: Orientation, width: Int, height: Int) -> Placement {
        // The upright picture's row length.
        let row = orientation.swapsWidthAndHeight ? height : width
        switch orientation {
        case .up: return Placement(first: 0, across: 1, down: row)
        case .upMirrored: return Placement(first: width - 1, across: -1, down: row)
        case .down: return Placement(first: (height - 1) * row + width - 1, across: -1, down: -row)
        case .downMirrored: return Placement(first: (height - 1) * row, across: 1, down: -row)
        case .leftMirrored: return Placement(first: 0, across: row, down: 1)
        case .right: return Placement(first: height - 1, across: row, down: -1)
        case .rightMirrored: return Placement(first: (width - 1) * row + height - 1, across: -row, down: -1)
        case .left: return Placement(first: (width - 1) * row, across: -row, down: 1)
        }
    }

    /// Whether every row was written (the resampler writes each once): then the picture is done.
    func finish() -> Bool {
        isFilled = rowsWritten == stored.height
        return isFilled
    }

    /// The thumbnail: the upright picture, with the template's snapshot at its size.
    func image(warnings: [String], decoder: Image.Decoder) -> Image {
        let turned = kind.orientation.swapsWidthAndHeight
        var snapshot = template
        snapshot.width = turned ? stored.height : stored.width
        snapshot.height = turned ? stored.width : stored.height
        return Image(answer: snapshot, pixels: quanta, orientation: .up, warnings: warnings, decoder: decoder, animation: nil)
    }
}
