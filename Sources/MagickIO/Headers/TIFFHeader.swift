/// A TIFF file's header for the cost model, from its ``TIFFIndex``: the first page's size, samples,
/// bit depth and alpha, and each page's ``TIFFLayout``.
///
/// ImageMagick 6's ping of a TIFF leaves alpha unset (its coder decides it while reading pixels),
/// so MagickIO applies the coder's rule to ExtraSamples itself
/// (``TIFFIndex/Directory/hasAlpha(photometricWhenAbsent:)``). The cost model has read a page
/// without a Photometric tag as min-is-black (1), where the properties read it as RGB (2).
enum TIFFHeader {
    static func parse(_ index: TIFFIndex) -> ImageHeader? {
        guard let first = index.directories.first, let width = first.values[TIFFTag.imageWidth],
              let height = first.values[TIFFTag.imageLength] else { return nil }
        var header = ImageHeader(width: width, height: height, components: first.values[TIFFTag.samplesPerPixel] ?? 1,
                                 hasAlpha: first.hasAlpha(photometricWhenAbsent: 1),
                                 bitDepth: first.values[TIFFTag.bitsPerSample] ?? 1)
        header.tiffPages = TIFFLayout.pages(in: index)
        return header
    }
}
