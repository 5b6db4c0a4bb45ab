internal import CCodecs
internal import CMagickCompat
internal import CMagickWand
import Foundation

/// One image of a wand as it crosses from a decode worker to its host: the pixels, at 8 or 16
/// bits a sample in the colour space's own channels, and what an encode reads besides them (colour
/// space, alpha, depth, resolution, gamma, primaries, background, rendering intent, the orientation field, the coder's name, the page, every profile,
/// property and artifact: a strip leaves `png:exclude-chunk`). No encoded file crosses: the host never runs a coder on what a worker gives.
struct ImageSnapshot {
    var width: Int
    var height: Int
    /// ImageMagick's channel map for the export ("RGB", "RGBA", "I", "IA", "CMYK", "CMYKA").
    var map: String
    /// 2 bytes a sample (1 is read too).
    var sampleBytes: Int
    var colorspace: Int
    var depth: Int
    var resolution: (x: Double, y: Double, units: Int)
    var orientation: Int
    var gamma: Double
    var primaries: [Double]
    /// Red, green, blue and alpha, 0...1.
    var background: [Double]
    var renderingIntent: Int
    /// The coder's quality, compression and interlace (a PNG's writer takes its zlib level and
    /// filter from the quality a JPEG was read with).
    var quality: Int
    var compression: Int
    var interlace: Int
    var format: String
    var page: (width: Int, height: Int, x: Int, y: Int)
    var profiles: [(name: String, bytes: [UInt8])]
    var properties: [(name: String, value: String)]
    var artifacts: [(name: String, value: String)]
    /// An animated thumbnail's frames (``ThumbnailOptions/animated``): their size, delays and loop
    /// count here, their RGBA pixels in the memory file after the image's.
    struct Animation {
        var width: Int
        var height: Int
        var loopCount: Int
        /// In nanoseconds.
        var delays: [Int]
        var offset = 0
        var bytes: Int { width * height * 4 * delays.count }
    }

    var animation: Animation?
    /// Where the pixels lie in the response's memory file, and how many bytes they take.
    var pixelOffset = 0
    var pixelBytes: Int { width * height * map.count * sampleBytes }

    /// The most of each a snapshot may carry: far past what a decode keeps (the metadata limit
    /// caps what a file brings), small enough that a worker cannot make its host allocate much.
    static let maxEntries = 4096
    static let maxSide = 1 << 20
    static let maxFrames = 100_000

    /// The wand's current image.
    init(_ wand: Wand) {
        let pointer = wand.pointer
        width = wand.width
        height = wand.height
        let space = MagickGetImageColorspace(pointer)
        let alpha = wand.hasAlpha
        switch space {
        case GRAYColorspace: map = alpha ? "IA" : "I"
        case CMYKColorspace: map = alpha ? "CMYKA" : "CMYK"
        default: map = alpha ? "RGBA" : "RGB"
        }
        colorspace = Int(space.rawValue)
        depth = Int(MagickGetImageDepth(pointer))
        // ImageMagick's own 16-bit quanta (Q16), whatever the depth says: an 8-bit image's quanta
        // need not be multiples of 257, and the encoders (a PNG's palette) see them.
        sampleBytes = 2
        var x = 0.0, y = 0.0
        MagickGetImageResolution(pointer, &x, &y)
        resolution = (x, y, Int(MagickGetImageUnits(pointer).rawValue))
        orientation = Int(MagickGetImageOrientation(pointer).rawValue)
        gamma = MagickGetImageGamma(pointer)
        primaries = [Double](repeating: 0, count: 8)
        cmc_get_primaries(pointer, &primaries)
        let colour = NewPixelWand()
        MagickGetImageBackgroundColor(pointer, colour)
        background = [PixelGetRed(colour), PixelGetGreen(colour), PixelGetBlue(colour), PixelGetAlpha(colour)]
        DestroyPixelWand(colour)
        renderingIntent = Int(MagickGetImageRenderingIntent(pointer).rawValue)
        quality = Int(MagickGetImageCompressionQuality(pointer))
        compression = Int(MagickGetImageCompression(pointer).rawValue)
        interlace = Int(MagickGetImageInterlaceScheme(pointer).rawValue)
        format = wand.imageFormat.rawValue
        var pageWidth = 0, pageHeight = 0, pageX = 0, pageY = 0
        MagickGetImagePage(pointer, &pageWidth, &pageHeight, &pageX, &pageY)
        page = (pageWidth, pageHeight, pageX, pageY)
        profiles = wand.profileNames().compactMap { name in wand.profile(name).map { (name, $0) } }
        properties = wand.properties(matching: "*").sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        artifacts = Self.artifacts(of: wand)
    }

    private static func artifacts(of wand: Wand) -> [(name: String, value: String)] {
        guard let names = cmc_artifact_names(wand.pointer) else { return [] }
        defer { free(names) }
        return String(cString: names).split(separator: "\n").compactMap { name in
            guard let value = MagickGetImageArtifact(wand.pointer, String(name)) else { return nil }
            defer { MagickRelinquishMemory(value) }
            return (String(name), String(cString: value))
        }
    }

    /// Writes the pixels into `buffer` (``pixelBytes`` of it).
    func exportPixels(_ wand: Wand, into buffer: UnsafeMutableRawPointer) throws(MagickIOError) {
        try wand.check(MagickExportImagePixels(wand.pointer, 0, 0, width, height, map, sampleBytes == 1 ? CharPixel : ShortPixel, buffer),
                       fallback: .corruptImage)
    }

    /// The image made again in `wand` (whatever it held goes) from the pixels at `pixels`.
    func restore(into wand: Wand, pixels: UnsafeRawPointer) throws(MagickIOError) {
        let pointer = wand.pointer
        ClearMagickWand(pointer)
        do {
            try wand.constitute(width: width, height: height, map: map, sixteenBits: sampleBytes != 1,
                                colorspace: ColorspaceType(rawValue: UInt32(colorspace)), pixels: pixels)
        } catch where error.kind == .corruptImage {
            // ImageMagick gives no reason when its pixel cache is full: a pool error, which the
            // gate runs again alone (``AdmissionGate/retryingAlone(_:_:)``).
            throw MagickIOError(.limitExceeded, "ImageMagick's pixel cache has no room for a \(width)x\(height) image (\(error.message))")
        }
        MagickSetImageDepth(pointer, depth)
        MagickSetImageResolution(pointer, resolution.x, resolution.y)
        MagickSetImageUnits(pointer, ResolutionType(rawValue: UInt32(resolution.units)))
        MagickSetImageOrientation(pointer, OrientationType(rawValue: UInt32(orientation)))
        MagickSetImageGamma(pointer, gamma)
        cmc_set_primaries(pointer, primaries)
        let colour = NewPixelWand()
        PixelSetRed(colour, background[0])
        PixelSetGreen(colour, background[1])
        PixelSetBlue(colour, background[2])
        PixelSetAlpha(colour, background[3])
        MagickSetImageBackgroundColor(pointer, colour)
        DestroyPixelWand(colour)
        MagickSetImageRenderingIntent(pointer, RenderingIntent(rawValue: UInt32(renderingIntent)))
        MagickSetImageCompressionQuality(pointer, quality)
        MagickSetImageCompression(pointer, CompressionType(rawValue: UInt32(compression)))
        MagickSetImageInterlaceScheme(pointer, InterlaceType(rawValue: UInt32(interlace)))
        if !format.isEmpty { MagickSetImageFormat(pointer, format) }
        MagickSetImagePage(pointer, page.width, page.height, page.x, page.y)
        for (name, bytes) in profiles {
            try wand.setProfile(name, bytes)
        }
        for (name, value) in properties {
            MagickSetImageProperty(pointer, name, value)
        }
        for (name, value) in artifacts {
            MagickSetImageArtifact(pointer, name, value)
        }
    }

    func encode(_ wire: inout WireWriter) {
        wire.put(width)
        wire.put(height)
        wire.put(map)
        wire.put(sampleBytes)
        wire.put(colorspace)
        wire.put(depth)
        wire.put(resolution.x)
        wire.put(resolution.y)
        wire.put(resolution.units)
        wire.put(orientation)
        wire.put(gamma)
        for value in primaries + background { wire.put(value) }
        wire.put(renderingIntent)
        wire.put(quality)
        wire.put(compression)
        wire.put(interlace)
        wire.put(format)
        wire.put(page.width)
        wire.put(page.height)
        wire.put(page.x)
        wire.put(page.y)
        wire.put(profiles.count)
        for (name, bytes) in profiles {
            wire.put(name)
            wire.put(bytes)
        }
        for list in [properties, artifacts] {
            wire.put(list.count)
            for (name, value) in list {
                wire.put(name)
                wire.put(value)
            }
        }
        wire.put(pixelOffset)
        wire.put(animation) { wire, animation in
            wire.put(animation.width)
            wire.put(animation.height)
            wire.put(animation.loopCount)
            wire.put(animation.delays.count)
            for delay in animation.delays { wire.put(delay) }
            wire.put(animation.offset)
        }
    }

    init(_ wire: inout WireReader) throws(WireReader.Malformed) {
        width = try wire.int(in: 1...Self.maxSide)
        height = try wire.int(in: 1...Self.maxSide)
        map = try wire.string()
        guard ["RGB", "RGBA", "I", "IA", "CMYK", "CMYKA"].contains(map) else { throw WireReader.Malformed() }
        sampleBytes = try wire.int(in: 1...2)
        colorspace = try wire.int(in: 0...64)
        depth = try wire.int(in: 1...64)
        resolution = (try wire.double(), try wire.double(), try wire.int(in: 0...2))
        orientation = try wire.int(in: 0...8)
        gamma = try wire.double()
        primaries = []
        for _ in 0..<8 { primaries.append(try wire.double()) }
        background = []
        for _ in 0..<4 { background.append(try wire.double()) }
        renderingIntent = try wire.int(in: 0...8)
        quality = try wire.int(in: 0...100)
        compression = try wire.int(in: 0...64)
        interlace = try wire.int(in: 0...16)
        format = try wire.string()
        page = (try wire.int(in: 0...Self.maxSide), try wire.int(in: 0...Self.maxSide),
                try wire.int(in: -Self.maxSide...Self.maxSide), try wire.int(in: -Self.maxSide...Self.maxSide))
        profiles = []
        for _ in 0..<(try wire.int(in: 0...Self.maxEntries)) { profiles.append((try wire.string(), try wire.bytes())) }
        func pairs(_ wire: inout WireReader) throws(WireReader.Malformed) -> [(name: String, value: String)] {
            var pairs: [(name: String, value: String)] = []
            for _ in 0..<(try wire.int(in: 0...Self.maxEntries)) { pairs.append((try wire.string(), try wire.string())) }
            return pairs
        }
        properties = try pairs(&wire)
        artifacts = try pairs(&wire)
        pixelOffset = try wire.int(in: 0...Int(Int32.max) * 64)
        animation = try wire.optional { (wire: inout WireReader) throws(WireReader.Malformed) -> Animation in
            var animation = Animation(width: try wire.int(in: 1...Self.maxSide), height: try wire.int(in: 1...Self.maxSide),
                                      loopCount: try wire.int(in: 0...Int(Int32.max)), delays: [])
            for _ in 0..<(try wire.int(in: 1...Self.maxFrames)) { animation.delays.append(try wire.int(in: 0...Int.max)) }
            animation.offset = try wire.int(in: 0...Int.max)
            return animation
        }
    }
}

extension ImageSnapshot {
    /// The JPEG ImageMagick's coder would write of this image made again (``restore(into:pixels:)``)
    /// at `quality`, written by MagickIO's own writer (``JPEGWriter``) from the 16-bit `pixels`;
    /// nil for an image whose JPEG depends on more than that writer reproduces (then ImageMagick
    /// writes it), and on an ImageMagick whose coder it was not checked against
    /// (``JPEGWriter/reproducesImageMagick``). It reproduces an 8-bit RGB or grey image in sRGB or
    /// grey at depth 8, without alpha, profiles, comment or `jpeg:` settings (but the colour space and
    /// sampling factors ImageMagick's reader notes), not interlaced, of a density that fits JFIF.
    /// ImageMagick's coder reads each sample as `ScaleQuantumToChar`, the nearest 8-bit value to a
    /// 16-bit one, and writes an RGB image whose every pixel is grey (red, green and blue equal in
    /// its quanta) as a grey JPEG. So does this. 6.9 keeps an 8-bit image's 16-bit quanta as they
    /// are; 7.1 moves them to its 8-bit levels when the restore sets the depth (to 257 times the
    /// quantum over 257, rounded down: measured on 7.1.1-43), so there only
    /// quanta already on those levels (multiples of 257, as every 7.1 worker's thumbnail has) are
    /// written here. One difference is left: ImageMagick optimises the Huffman tables only when its
    /// memory resource has room for the rows at that moment, where this writer always does (its
    /// JPEG is then smaller than ImageMagick's, not the same).
    func directJPEG(pixels: UnsafeRawPointer, quality: Int) throws(MagickIOError) -> Data? {
        // ImageMagick's properties are found by name whatever its case. (The restore sets them in
        // order: the last of two names that differ in case wins.)
        let properties = Dictionary(self.properties.map { ($0.name.lowercased(), $0.value) }) { _, last in last }
        guard JPEGWriter.reproducesImageMagick, writesAsOwnJPEG(properties), let density = jfifDensity,
              let (rows, grey) = eightBitRows(pixels) else { return nil }
        // The source's sampling factors, which ImageMagick's reader notes, are written again
        // when the colour space it notes with them (or none) is the one written; a colour space
        // that is not a plain number of C's `int` (which its `strtol` and cast would read) is left to it.
        let written = grey || map.count == 1 ? 1 : 2  // JCS_GRAYSCALE, JCS_RGB
        var sampling: [Int32]?
        if let factors = properties["jpeg:sampling-factor"] {
            let noted = properties["jpeg:colorspace"]
            guard noted.map({ $0.allSatisfy { $0.isASCII && $0.isNumber } && Int32($0) != nil }) ?? true else { return nil }
            if noted.map({ Int($0) == written }) ?? true {
                guard let parsed = Self.samplingFactors(factors) else { return nil }
                sampling = parsed
            }
        }
        return try rows.withUnsafeBufferPointer { rows throws(MagickIOError) in
            try JPEGWriter.encode(rows: rows.baseAddress!, width: width, height: height, components: grey ? 1 : map.count,
                                  quality: quality, sampling: sampling, density: density)
        }
    }

    /// Whether what ImageMagick's coder reads of the image besides its pixels is what the own
    /// writer writes: 8-bit RGB in sRGB or grey, no alpha, frames, profiles, comment, interlace,
    /// lossless JPEG or `jpeg:` settings but those its reader notes (`properties`: lowercased).
    private func writesAsOwnJPEG(_ properties: [String: String]) -> Bool {
        let artifacts = self.artifacts.map { $0.name.lowercased() }
        return sampleBytes == 2 && animation == nil && depth == 8 && profiles.isEmpty
            && (map == "RGB" && colorspace == Int(sRGBColorspace.rawValue) || map == "I" && colorspace == Int(GRAYColorspace.rawValue))
            && (interlace == Int(UndefinedInterlace.rawValue) || interlace == Int(NoInterlace.rawValue))
            && compression != Int(LosslessJPEGCompression.rawValue)
            && properties["comment"] == nil && !properties.keys.contains { $0.hasPrefix("colorspace:") }
            && !properties.keys.contains { $0.hasPrefix("jpeg:") && $0 != "jpeg:colorspace" && $0 != "jpeg:sampling-factor" }
            && !artifacts.contains { $0.hasPrefix("jpeg:") && $0 != "jpeg:size" || $0.hasPrefix("colorspace:") }
    }

    /// The 8-bit rows ImageMagick's coder hands libjpeg for the 16-bit `pixels`, and whether it
    /// writes them grey (one sample a pixel); nil on a line that moves quanta off its 8-bit
    /// levels when the depth is set (``JPEGWriter/movesQuantaToDepth``) for pixels that are off them.
    private func eightBitRows(_ pixels: UnsafeRawPointer) -> (rows: [UInt8], grey: Bool)? {
        let channels = map.count
        let count = width * height
        let samples = pixels.assumingMemoryBound(to: UInt16.self)
        let grey = channels == 3 && mio_quanta_are_grey(samples, count) != 0
        var onLevels = true
        // A grey RGB image: its red quanta (each pixel's first) are its grey ones.
        let written = grey ? count : count * channels
        let rows = [UInt8](unsafeUninitializedCapacity: written) { bytes, initialized in
            onLevels = mio_quanta_to_bytes(samples, written, grey ? 3 : 1, bytes.baseAddress) != 0
            initialized = written
        }
        if !onLevels && JPEGWriter.movesQuantaToDepth { return nil }
        return (rows, grey)
    }

    /// The horizontal and vertical factors of the first three components that ImageMagick's coder
    /// sets for a `jpeg:sampling-factor` of `text` ("2x2,1x1,1x1": a factor "H" alone is HxH, the
    /// components past the list 1x1); nil for text outside that plain form (1 to 4 each, at most
    /// three), whose parse the writer does not reproduce.
    static func samplingFactors(_ text: String) -> [Int32]? {
        let factors = text.split(separator: ",", omittingEmptySubsequences: false)
        guard (1...3).contains(factors.count) else { return nil }
        var sampling = [Int32](repeating: 1, count: 6)
        for (index, factor) in factors.enumerated() {
            let sides = factor.split(separator: "x", omittingEmptySubsequences: false)
            guard (1...2).contains(sides.count) else { return nil }
            let values = sides.compactMap { side in side.allSatisfy { $0.isASCII && $0.isNumber } ? Int32(side) : nil }
            guard values.count == sides.count, values.allSatisfy({ (1...4).contains($0) }) else { return nil }
            sampling[2 * index] = values[0]
            sampling[2 * index + 1] = values.last!
        }
        return sampling
    }

    /// The JFIF density ImageMagick's coder writes for this image's resolution: none unless both
    /// sides have one, then each side truncated to 16 bits, in the units when they are inches or
    /// centimetres; nil for a resolution outside 1..<32767, where 6.9 (which converts any nonzero
    /// one) and 7.1 (which writes one below 32767 only) part ways, or the C conversion is undefined.
    private var jfifDensity: (x: UInt16, y: UInt16, unit: Int)? {
        guard resolution.x != 0, resolution.y != 0 else { return (0, 0, 0) }
        guard (1..<32767).contains(resolution.x), (1..<32767).contains(resolution.y) else { return nil }
        return (UInt16(resolution.x), UInt16(resolution.y), resolution.units)
    }
}

extension ImageSnapshot {
    /// What ``ImageProperties/init(wand:format:)`` reads of this image made again, but the EXIF
    /// tags (from its properties and profile): the properties of a worker's answer its host has no
    /// room to make into a wand (``Image/Storage``).
    var propertiesWithoutEXIF: ImageProperties {
        let format = ImageFormat(rawValue: format)
        var properties = ImageProperties(format: format, width: width, height: height)
        properties.orientation = format.hasOrientationTag && (1...8).contains(orientation) ? Orientation(exifValue: orientation) : .up
        properties.hasAlpha = map.hasSuffix("A")
        properties.colorSpace = ImageProperties.colorSpaceName(ColorspaceType(rawValue: UInt32(colorspace)))
        properties.bitDepth = depth
        if resolution.x > 0, resolution.y > 0, resolution.units != Int(UndefinedResolution.rawValue) {
            let scale = resolution.units == Int(PixelsPerCentimeterResolution.rawValue) ? 2.54 : 1
            properties.resolution = .init(x: resolution.x * scale, y: resolution.y * scale)
        }
        return properties
    }
}
