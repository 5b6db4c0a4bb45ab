/// The TIFF and EXIF tags MagickIO's readers look at, named once (TIFF 6.0, EXIF 2.3, and the
/// profile tags ImageMagick's TIFF coder reads).
enum TIFFTag {
    static let imageWidth = 256
    static let imageLength = 257
    static let bitsPerSample = 258
    static let compression = 259
    static let photometric = 262
    static let orientation = 274
    static let samplesPerPixel = 277
    static let rowsPerStrip = 278
    static let xResolution = 282
    static let yResolution = 283
    static let planarConfiguration = 284
    static let resolutionUnit = 296
    static let predictor = 317
    static let tileWidth = 322
    static let tileLength = 323
    static let extraSamples = 338
    static let sampleFormat = 339
    /// IFD1's embedded JPEG thumbnail (EXIF): its offset and length.
    static let jpegInterchangeFormat = 513
    static let jpegInterchangeFormatLength = 514
    static let xmp = 700
    static let iptc = 33723
    static let photoshop = 34377
    static let exifIFD = 34665
    static let icc = 34675
    static let gpsIFD = 34853
    static let interoperabilityIFD = 40965
    static let imageUniqueID = 42016
}
