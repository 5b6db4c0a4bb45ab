/// A TIFF's pages from its ``TIFFIndex`` (classic or BigTIFF), each from its own directory, as
/// ImageMagick's coder (coders/tiff.c, 6.9.11, through libtiff) sets them: size, BitsPerSample,
/// Orientation (1 when absent), `gray` for min-is-white/black, `cmyk` for separated, `cielab` for
/// CIELab, else `srgb`; alpha from ExtraSamples (``TIFFIndex/Directory/hasAlpha(photometricWhenAbsent:)``);
/// X/YResolution (libtiff's floats) with ResolutionUnit (inch when absent, none gives no resolution).
///
/// At most `maxPages` pages, up to the first directory without a size (the chain stops at a loop,
/// as libtiff does); EXIF properties come from the page's EXIF directory (``TIFFEXIFProperties``).
enum TIFFProperties {
    static func read(_ index: TIFFIndex?, maxPages: Int) throws(MagickIOError) -> [ImageProperties] {
        guard let index else { throw MagickIOError(.corruptImage, "the TIFF header is not valid") }
        var pages: [ImageProperties] = []
        for directory in index.directories.prefix(maxPages) {
            let tags = directory.values
            guard let width = tags[TIFFTag.imageWidth], let height = tags[TIFFTag.imageLength] else {
                if pages.isEmpty { throw MagickIOError(.corruptImage, "the first TIFF directory has no ImageWidth or ImageLength") }
                break
            }
            var page = ImageProperties(format: .tiff, width: width, height: height)
            page.bitDepth = tags[TIFFTag.bitsPerSample] ?? 1
            page.orientation = Orientation(exifValue: tags[TIFFTag.orientation] ?? 1)
            let photometric = tags[TIFFTag.photometric] ?? 2
            page.colorSpace = [0: "gray", 1: "gray", 5: "cmyk", 8: "cielab"][photometric] ?? "srgb"
            if photometric == 6, tags[TIFFTag.compression] != 7 {
                // ImageMagick's TIFF coder keeps YCbCr but where libjpeg converts it (JPEGCOLORMODE_RGB).
                page.colorSpace = "ycbcr"
            }
            page.hasAlpha = directory.hasAlpha(photometricWhenAbsent: 2)
            if let x = directory.resolution[TIFFTag.xResolution], let y = directory.resolution[TIFFTag.yResolution] {
                let unit = [2: 1, 3: 2][tags[TIFFTag.resolutionUnit] ?? 2] ?? 0
                page.resolution = Density(x: x, y: y, unit: unit).resolution
            }
            if let exif = tags[TIFFTag.exifIFD] {
                page.exif = index.subDirectories[exif]?.exif ?? [:]
            }
            pages.append(page)
        }
        guard !pages.isEmpty else { throw MagickIOError(.corruptImage, "the TIFF has no image directory") }
        return pages
    }
}
