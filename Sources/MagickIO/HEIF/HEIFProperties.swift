/// A HEIC or AVIF primary image's properties through libheif's handle (no image is decoded), as
/// ImageMagick 6.9.11's HEIC coder sets them in a ping: `ycbcr`, the luma's bits, upright, EXIF
/// properties from the Exif block; and the alpha ImageMagick never reads but libheif decodes
/// (``HEIFPrimary``).
///
/// The size is the one libheif decodes to, its `irot`, `imir` and `clap` applied
/// (``ImageHeader/shown``: the handle's own size misses the transforms an item lists before its
/// `ispe`), and the orientation is ``Orientation/up``: every pixel MagickIO hands over comes from
/// libheif already turned, so ``ImageProperties/orientedWidth`` is the same size, and an EXIF
/// Orientation tag beside `irot` (as phones write it) only restates the boxes.
enum HEIFProperties {
    static func read(_ bytes: SourceBytes, format: ImageFormat, header: ImageHeader?, items: HEIFItems?,
                     options: DecodingOptions) throws(MagickIOError) -> ImageProperties {
        guard let file = HEIFFile(bytes, items: items, options: options) else {
            // An image sequence without a primary item (a track and no meta box; a meta box
            // without pitm and one item to show instead is refused by the header, or shown one
            // by HEIFFile): nothing libheif 1.15 decodes, whatever the items' sizes say.
            var reader = ByteReader(bytes)
            if !ISOBMFFBoxes.sequenceBrands.isDisjoint(with: ISOBMFFBoxes.brands(&reader)), items?.primary == nil {
                throw MagickIOError(.unsupportedFormat, "the file is an \(format.rawValue.uppercased()) image sequence with no still image: libheif 1.15 reads no sequences")
            }
            // libheif refuses an item over the pixel limit as it opens the file: the declared size
            // still opens it, and the decode's limits refuse it.
            guard let header, header.width > 0, header.height > 0 else {
                throw MagickIOError(.corruptImage, "libheif cannot open the \(format.rawValue.uppercased()) file")
            }
            var properties = ImageProperties(format: format, width: header.shown?.width ?? header.width,
                                             height: header.shown?.height ?? header.height)
            properties.colorSpace = "ycbcr"
            return properties
        }
        var properties = ImageProperties(format: format, width: header?.shown?.width ?? file.width,
                                         height: header?.shown?.height ?? file.height)
        properties.colorSpace = "ycbcr"
        properties.hasAlpha = file.hasAlpha
        let bits = Int(file.heif.image_handle_get_luma_bits_per_pixel(file.primary))
        properties.bitDepth = bits > 0 ? bits : 8
        if let block = file.rawExifBlock(limit: EXIFProperties.maximumProfile) {
            properties.exif = EXIFProperties.dictionary(block)
            var density = Density()
            density.apply(exif: properties.exif)
            properties.resolution = density.resolution
        }
        return properties
    }

    /// The primary image's Exif block as ImageMagick 6's HEIC coder keeps it as the `exif` profile.
    static func exifBlock(_ bytes: SourceBytes, options: DecodingOptions) -> [UInt8]? {
        HEIFFile(bytes, items: nil, options: options)?.rawExifBlock(limit: EXIFProperties.maximumProfile)
    }
}
