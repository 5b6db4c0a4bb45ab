/// Every frame's ``ImageProperties`` from MagickIO's own walkers, as ImageMagick 6.9.11's ping gave
/// them, for the formats MagickIO allows by default (JPEG, PNG, GIF, WebP, TIFF, BMP, HEIC, AVIF):
/// no coder runs, so opening a file costs what its headers cost, whatever its pixels or metadata
/// claim. Each frame's properties come from that frame's own header.
///
/// A file that declares more frames than `options.maxFrameCount` offers its first `maxFrameCount`
/// only; a walk that cannot finish (a loop in a TIFF chain) offers the frames it reached.
enum FrameProperties {
    /// The frames of `bytes` (a TIFF's or a HEIF file's from `index`, its walk), or nil for a format
    /// without a walker (ImageMagick's ping decides).
    /// - Throws: ``MagickIOError/Kind/corruptImage`` where ImageMagick's ping refused the file at
    ///   open: no frame header, a header cut short, a frame without pixels.
    static func read(_ bytes: SourceBytes, format: ImageFormat, header: inout ImageHeader?, index: ContainerIndex?,
                     options: DecodingOptions) throws(MagickIOError) -> [ImageProperties]? {
        let cap = max(options.maxFrameCount, 1)
        switch format {
        case .jpeg: return [try jpeg(bytes, index: index?.jpeg ?? JPEGIndex(bytes))]
        case .png: return [try PNGProperties.read(bytes, header: header, index: index?.png ?? PNGIndex(bytes))]
        case .gif: return try gif(bytes, maxFrames: cap, header: &header)
        case .webp: return try WebPProperties.read(bytes, header: header, index: index?.webp ?? RIFFIndex(bytes), maxFrames: cap)
        case .tiff: return try TIFFProperties.read(index?.tiff, maxPages: cap)
        case .bmp: return [try BMPProperties.read(bytes)]
        case .heic, .avif:
            return [try HEIFProperties.read(bytes, format: format, header: header, items: index?.heif,
                                        options: options)]
        default: return nil
        }
    }

    // MARK: - JPEG

    /// The SOF's size, components and precision; resolution from JFIF, then from the EXIF
    /// X/YResolution and ResolutionUnit ImageMagick's `ReadImage` takes over it; EXIF properties from
    /// the APP1 `exif` segments, concatenated as ImageMagick keeps them.
    private static func jpeg(_ bytes: SourceBytes, index: JPEGIndex) throws(MagickIOError) -> ImageProperties {
        var jfif: [UInt8]?
        var exif: [UInt8] = []
        index.visit(bytes) { reader, segment in
            if segment.code == 0xE0, jfif == nil, segment.payload.count >= 12,
               let head = reader.bytes(at: segment.payload.lowerBound, 12), head.starts(with: Array("JFIF\0".utf8)) {
                jfif = head
            }
            if segment.code == 0xE1, segment.payload.count > 4, exif.count < EXIFProperties.maximumProfile,
               let payload = reader.bytes(at: segment.payload.lowerBound, segment.payload.count),
               String(decoding: payload.prefix(4), as: UTF8.self).lowercased() == "exif", payload != exif {
                exif += payload
            }
        }
        let frame: JPEGSegments.Frame
        switch index.frame {
        case .success(let found): frame = found
        case .failure(.noFrameHeader): throw MagickIOError(.corruptImage, "the JPEG has no frame header before its first scan")
        case .failure(.truncated): throw MagickIOError(.corruptImage, "the JPEG ends before its frame header")
        case .failure: throw MagickIOError(.corruptImage, "the JPEG's frame header is malformed")
        }
        let components = frame.sampling.count
        var properties = ImageProperties(format: .jpeg, width: frame.width, height: frame.height)
        properties.colorSpace = components == 1 ? "gray" : components == 4 ? "cmyk" : "srgb"
        properties.bitDepth = frame.precision
        properties.exif = exif.isEmpty ? [:] : EXIFProperties.dictionary(exif)
        properties.orientation = EXIFProperties.orientation(properties.exif) ?? .up
        var density = Density()
        if let jfif, jfif.u16be(at: 8) != 1, jfif.u16be(at: 10) != 1 {
            density = Density(x: Double(jfif.u16be(at: 8)), y: Double(jfif.u16be(at: 10)), unit: Int(jfif[7]))
        }
        density.apply(exif: properties.exif)
        properties.resolution = density.resolution
        return properties
    }

    // MARK: - GIF

    /// Each frame on the logical screen. ImageMagick's GIF coder decodes a frame at its own size
    /// even where it reaches past the screen, so the header (what the guard estimates from)
    /// becomes the box that holds the screen and every frame offered.
    private static func gif(_ bytes: SourceBytes, maxFrames: Int, header: inout ImageHeader?) throws(MagickIOError) -> [ImageProperties] {
        var reader = ByteReader(bytes)
        var blocks = GIFBlocks()
        blocks.advance(&reader, maxFrames: maxFrames)
        blocks.finish(&reader)
        if let corrupt = blocks.corrupt { throw MagickIOError(.corruptImage, corrupt) }
        let screen = blocks.screen ?? (0, 0)
        if var box = header {
            for frame in blocks.frames {
                box.width = max(box.width, frame.x.saturatingPlus(frame.width))
                box.height = max(box.height, frame.y.saturatingPlus(frame.height))
            }
            header = box
        }
        return blocks.frames.map { frame in
            var properties = ImageProperties(format: .gif, width: frame.width, height: frame.height)
            properties.hasAlpha = frame.hasAlpha
            properties.place(onCanvas: screen, x: frame.x, y: frame.y)
            return properties
        }
    }
}

/// A resolution as ImageMagick holds it: a density and a unit (0 none, 1 per inch, 2 per centimetre).
struct Density {
    var x = 0.0
    var y = 0.0
    var unit = 0

    /// ImageMagick's `ReadImage` (magick/constitute.c) after any coder: the EXIF `XResolution` and
    /// `YResolution` properties (`n/d`) and `ResolutionUnit` (1 none, 2 inch, 3 centimetre) replace it.
    mutating func apply(exif: [String: String]) {
        if let value = exif["XResolution"], let parsed = Self.ratio(value) { x = parsed }
        if let value = exif["YResolution"], let parsed = Self.ratio(value) { y = parsed }
        if let value = exif["ResolutionUnit"] {
            switch value.lowercased() {
            case "1", "undefined": unit = 0
            case "2", "pixelsperinch": unit = 1
            case "3", "pixelspercentimeter": unit = 2
            default: break
            }
        }
    }

    /// `ParseGeometry`'s reading of `n/d` (and of `a, b` lists: a + b/1000).
    private static func ratio(_ text: String) -> Double? {
        let numbers = text.split(whereSeparator: { "/, ".contains($0) }).compactMap { Double($0) }
        guard let first = numbers.first else { return nil }
        let second = numbers.count > 1 ? numbers[1] : 1
        if text.contains(",") { return first + second / 1000 }
        return second != 0 ? first / second : nil
    }

    /// Pixels per inch, when there is a unit and a density.
    var resolution: ImageProperties.Resolution? {
        guard x > 0, y > 0, unit == 1 || unit == 2 else { return nil }
        return unit == 2 ? ImageProperties.Resolution(x: x * 2.54, y: y * 2.54) : ImageProperties.Resolution(x: x, y: y)
    }
}

extension ImageProperties {
    /// A frame with ImageMagick's defaults for what its header does not say.
    init(format: ImageFormat, width: Int, height: Int) {
        self.init(format: format, pixelWidth: width, pixelHeight: height, orientation: .up, hasAlpha: false,
                  colorSpace: "srgb", bitDepth: 8, resolution: nil, exif: [:])
    }

    /// An animation frame shown on its canvas: the canvas's size, and whether the frame covers it.
    mutating func place(onCanvas canvas: (width: Int, height: Int), x: Int, y: Int) {
        guard canvas.width > 0, canvas.height > 0 else { return }
        isOffsetOnCanvas = x != 0 || y != 0 || canvas.width != pixelWidth || canvas.height != pixelHeight
        pixelWidth = canvas.width
        pixelHeight = canvas.height
    }
}
