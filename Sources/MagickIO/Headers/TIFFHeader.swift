/// A TIFF file's header for what the cost model and the properties need: the first page's size,
/// samples and bit depth, and which pages carry alpha, through ``TIFFDirectories``.
///
/// ImageMagick 6's ping of a TIFF leaves alpha unset (its coder decides it while reading pixels),
/// so MagickIO reads the ExtraSamples tag itself, as the coder does: a page has alpha when it has
/// any extra sample (associated, unassociated or unspecified), or four samples in RGB.
enum TIFFHeader {
    static func parse(_ source: SourceBytes) -> ImageHeader? {
        guard var tiff = TIFFDirectories(source) else { return nil }
        var first: ImageHeader?
        var pageAlpha: [Bool] = []
        for directory in tiff.chain() {
            var tags: [Int: Int] = [:]
            var extraSamples = 0
            for entry in tiff.entries(at: directory) {
                if entry.tag == 338 { extraSamples = entry.count }
                if [256, 257, 258, 262, 277].contains(entry.tag) { tags[entry.tag] = tiff.firstValue(of: entry) }
            }
            let samples = tags[277] ?? 1
            let alpha = extraSamples > 0 || (samples == 4 && tags[262] ?? 1 == 2)
            pageAlpha.append(alpha)
            if first == nil {
                guard let width = tags[256], let height = tags[257] else { return nil }
                first = ImageHeader(width: width, height: height, components: samples, hasAlpha: alpha, bitDepth: tags[258] ?? 1)
            }
        }
        first?.pageAlpha = pageAlpha
        return first
    }
}
