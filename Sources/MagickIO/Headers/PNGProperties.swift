/// A PNG's properties from the chunks before its first `IDAT`, which are all ImageMagick's ping
/// reads (libpng's `png_read_info` stops there), decided as its coder (coders/png.c, 6.9.11) decides:
/// depth at least 8; `gray` for grey colour types, `srgb` otherwise, linear (`lineargray`, `rgb`)
/// under a gAMA of 1.0 without an sRGB chunk; alpha from the colour type or a tRNS chunk libpng
/// accepts; resolution from pHYs per metre. The orientation is MagickIO's own reading of `eXIf` or
/// of ImageMagick's raw-profile text chunk (``ImageHeader``), which ImageMagick's ping ignores; its
/// EXIF properties stay empty, as the ping's do.
enum PNGProperties {
    static func read(_ bytes: SourceBytes, header: ImageHeader?, index: PNGIndex) throws(MagickIOError) -> ImageProperties {
        var reader = ByteReader(bytes)
        guard let ihdr = reader.bytes(at: 8, 25), ihdr[4...7].elementsEqual("IHDR".utf8) else {
            throw MagickIOError(.corruptImage, "the PNG does not start with an IHDR chunk")
        }
        let colourType = Int(ihdr[17])
        var properties = ImageProperties(format: .png, width: ihdr.u32be(at: 8), height: ihdr.u32be(at: 12))
        properties.bitDepth = max(Int(ihdr[16]), 8)
        var paletteEntries: Int?
        var transparency = false, linear = false, sRGB = false, sawImageData = false
        var density = Density()
        let end = index.visit(bytes) { reader, chunk in
            switch chunk.type {
            case "IDAT":
                sawImageData = true
                return false
            case "PLTE":
                paletteEntries = chunk.length / 3
            case "tRNS":
                switch colourType {
                case 0: transparency = chunk.length == 2
                case 2: transparency = chunk.length == 6
                case 3: transparency = chunk.length > 0 && chunk.length <= (paletteEntries ?? 0)
                default: break
                }
            case "gAMA":
                linear = chunk.length == 4 && reader.u32be(at: chunk.data.lowerBound) == 100_000
            case "sRGB":
                sRGB = true
            case "pHYs" where chunk.length == 9:
                if let x = reader.u32be(at: chunk.data.lowerBound), let y = reader.u32be(at: chunk.data.lowerBound + 4),
                   let unit = reader.u8(at: chunk.data.lowerBound + 8), unit == 1 {
                    density = Density(x: Double(x) / 100, y: Double(y) / 100, unit: 2)
                }
            default: break
            }
            return true
        }
        guard sawImageData || end == .imageEnd || end == .stopped else {
            throw MagickIOError(.corruptImage, "the PNG ends before its image data")
        }
        let grey = colourType == 0 || colourType == 4
        let isLinear = linear && !sRGB
        properties.colorSpace = grey ? (isLinear ? "lineargray" : "gray") : (isLinear ? "rgb" : "srgb")
        properties.hasAlpha = colourType == 4 || colourType == 6 || transparency
        properties.resolution = density.resolution
        if let orientation = header?.orientation {
            properties.orientation = orientation
        } else if let chunk = header?.rawEXIFChunk, let orientation = PNGRawProfile.orientation(bytes, chunk: chunk) {
            properties.orientation = orientation
        }
        return properties
    }
}
