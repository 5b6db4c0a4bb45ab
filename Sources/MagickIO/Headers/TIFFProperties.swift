/// A TIFF's pages from its directory chain (classic or BigTIFF), each from its own directory, as
/// ImageMagick's coder (coders/tiff.c, 6.9.11, through libtiff) sets them: size, BitsPerSample,
/// Orientation (1 when absent), `gray` for min-is-white/black, `cmyk` for separated, `cielab` for
/// CIELab, else `srgb`; alpha from ExtraSamples as ``TIFFHeader`` decides; X/YResolution (libtiff's
/// floats) with ResolutionUnit (inch when absent, none gives no resolution).
///
/// The chain is walked up to `maxPages` directories and stops at a loop (libtiff stops there too);
/// EXIF properties come from the page's EXIF directory (``TIFFEXIFProperties``).
enum TIFFProperties {
    static func read(_ bytes: SourceBytes, maxPages: Int) throws(MagickIOError) -> [ImageProperties] {
        guard var tiff = TIFFDirectories(bytes) else { throw MagickIOError(.corruptImage, "the TIFF header is not valid") }
        var pages: [ImageProperties] = []
        for directory in tiff.chain(limit: maxPages) {
            var tags: [Int: Int] = [:]
            var extraSamples = 0
            var resolution: [Int: Double] = [:]
            var exifDirectory: Int?
            // At most 4,096 entries a directory: libtiff reads no more that matter here.
            for entry in tiff.entries(at: directory) {
                switch entry.tag {
                case 338: extraSamples = entry.count
                case 34665: exifDirectory = tiff.firstValue(of: entry)
                case 282, 283:
                    if entry.type == 5 || entry.type == 10, entry.count >= 1,
                       let at = entry.isInline ? entry.valueField : tiff.value(at: entry.valueField, size: tiff.offsetSize),
                       let numerator = tiff.value(at: at, size: 4), let denominator = tiff.value(at: at + 4, size: 4), denominator != 0 {
                        resolution[entry.tag] = Double(Float(Double(numerator) / Double(denominator)))
                    }
                case 256, 257, 258, 259, 262, 274, 277, 296:
                    if tags[entry.tag] == nil { tags[entry.tag] = tiff.firstValue(of: entry) }
                default: break
                }
            }
            guard let width = tags[256], let height = tags[257] else {
                if pages.isEmpty { throw MagickIOError(.corruptImage, "the first TIFF directory has no ImageWidth or ImageLength") }
                break
            }
            var page = ImageProperties(format: .tiff, width: width, height: height)
            page.bitDepth = tags[258] ?? 1
            page.orientation = Orientation(exifValue: tags[274] ?? 1)
            let photometric = tags[262] ?? 2
            page.colorSpace = [0: "gray", 1: "gray", 5: "cmyk", 8: "cielab"][photometric] ?? "srgb"
            if photometric == 6, tags[259] != 7 {
                // ImageMagick's TIFF coder keeps YCbCr but where libjpeg converts it (JPEGCOLORMODE_RGB).
                page.colorSpace = "ycbcr"
            }
            page.hasAlpha = extraSamples > 0 || (tags[277] ?? 1 == 4 && photometric == 2)
            if let x = resolution[282], let y = resolution[283] {
                let unit = [2: 1, 3: 2][tags[296] ?? 2] ?? 0
                page.resolution = Density(x: x, y: y, unit: unit).resolution
            }
            if let exifDirectory {
                page.exif = TIFFEXIFProperties.read(&tiff, directory: exifDirectory)
            }
            pages.append(page)
        }
        guard !pages.isEmpty else { throw MagickIOError(.corruptImage, "the TIFF has no image directory") }
        return pages
    }
}
