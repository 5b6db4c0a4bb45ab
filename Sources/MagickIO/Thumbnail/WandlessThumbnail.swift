internal import CMagickCompat
import Foundation

/// A thumbnail made without an ImageMagick image, where one would exist only to be taken apart
/// again: in a decode worker, whose answer leaves as a snapshot and 16-bit pixels
/// (``ImageSnapshot``), a plain own-path thumbnail (``ThumbnailFill/rows(_:_:of:)`` of a JPEG, PNG
/// or WebP without an ICC profile, not cropped, metadata stripped) is resampled straight into
/// those pixels. The new image, the float import, the turn, the depth and the export are then
/// MagickIO's own: the quanta ImageMagick's float import makes (``cmc_float_quanta``), moved as its
/// flop, flip, rotate, transpose and transverse move them. Everything else in the snapshot is the
/// same for every such thumbnail of one kind but its size, so it is taken once a process from
/// ImageMagick's own path run on a 2x3 picture of that kind (``template(_:)``), and refused (the
/// wand path runs) unless it holds no page offset, profile or property.
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
    private var quanta: [UInt16] = []
    private var stored = (width: 0, height: 0)
    private var rowsWritten = 0
    /// Whether the rows went here (not into the wand), every one of them.
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

    /// The snapshot of ImageMagick's path (``ImageSource/fillRows(_:_:from:into:interrupt:idleCore:)``
    /// and the build) for a 2x3 picture of `kind`: a new image, rows imported, described, turned,
    /// normalised.
    private static func makeTemplate(_ kind: Kind) throws(MagickIOError) -> ImageSnapshot?? {
        let wand = Wand()
        let map = kind.alpha ? "RGBA" : "RGB"
        try wand.newImage(width: 2, height: 3, alpha: kind.alpha)
        var row = [Float](repeating: 0.5, count: 2 * 4 + 1)
        for y in 0..<3 {
            try row.withUnsafeMutableBufferPointer { row throws(MagickIOError) in try wand.importRow(y, row.baseAddress!, map: map) }
        }
        try wand.describe(format: kind.format, resolution: kind.resolution)
        try wand.applyOrientation(kind.orientation)
        var options = ThumbnailOptions()
        options.colorProfile = kind.colorProfile
        try ImageSource.normalize(wand, options)
        let snapshot = ImageSnapshot(wand)
        let turned = kind.orientation.swapsWidthAndHeight
        guard snapshot.map == map, snapshot.sampleBytes == 2, snapshot.width == (turned ? 3 : 2),
              snapshot.height == (turned ? 2 : 3), snapshot.page.width == 0, snapshot.page.height == 0, snapshot.page.x == 0,
              snapshot.page.y == 0, snapshot.profiles.isEmpty,
              snapshot.properties.isEmpty, snapshot.animation == nil else { return .some(nil) }
        return snapshot
    }

    /// Begins the picture at `width` x `height` (the stored axes).
    func start(width: Int, height: Int) {
        stored = (width, height)
        quanta = [UInt16](repeating: 0, count: width * height * channels)
        rowsWritten = 0
    }

    /// Writes row `y` of the resampler's floats (clamped) as ImageMagick's import would.
    func write(_ y: Int, _ row: UnsafePointer<Float>) {
        precondition(y >= 0 && y < stored.height, "row \(y) of \(stored.height)")
        let count = stored.width * channels
        quanta.withUnsafeMutableBufferPointer { quanta in
            cmc_float_quanta(row, quanta.baseAddress! + y * count, count)
        }
        rowsWritten += 1
    }

    /// Whether every row was written (the resampler writes each once): then the picture is done.
    func finish() -> Bool {
        isFilled = rowsWritten == stored.height
        return isFilled
    }

    /// The thumbnail: the picture turned upright, with the template's snapshot at its size.
    func image(warnings: [String], decoder: Image.Decoder) -> Image {
        let (pixels, width, height) = Self.turned(quanta, width: stored.width, height: stored.height, channels: channels,
                                                  by: kind.orientation)
        var snapshot = template
        snapshot.width = width
        snapshot.height = height
        return Image(answer: snapshot, pixels: pixels, orientation: .up, warnings: warnings, decoder: decoder, animation: nil)
    }

    /// `quanta` (`width` x `height` pixels of `channels`) moved as `orientation`'s turn moves them,
    /// as bytes; and the turned size.
    static func turned(_ quanta: [UInt16], width: Int, height: Int, channels: Int,
                       by orientation: Orientation) -> (pixels: [UInt8], width: Int, height: Int) {
        let swaps = orientation.swapsWidthAndHeight
        let (outWidth, outHeight) = swaps ? (height, width) : (width, height)
        let bytes = [UInt8](unsafeUninitializedCapacity: quanta.count * 2) { buffer, initialized in
            let out = UnsafeMutableRawPointer(buffer.baseAddress!)
            quanta.withUnsafeBufferPointer { input in
                let input = input.baseAddress!
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // The stored pixel shown at (x, y).
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (width - 1 - x, y)
                        case .down: (sx, sy) = (width - 1 - x, height - 1 - y)
                        case .downMirrored: (sx, sy) = (x, height - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, height - 1 - x)
                        case .rightMirrored: (sx, sy) = (width - 1 - y, height - 1 - x)
                        case .left: (sx, sy) = (width - 1 - y, x)
                        }
                        let from = input + (sy * width + sx) * channels
                        let to = (y * outWidth + x) * channels * 2
                        for channel in 0..<channels { out.storeBytes(of: from[channel], toByteOffset: to + 2 * channel, as: UInt16.self) }
                    }
                }
            }
            initialized = quanta.count * 2
        }
        return (bytes, outWidth, outHeight)
    }
}
