/// The `exif:*` properties ImageMagick's TIFF coder sets from a page's EXIF directory
/// (`TIFFGetEXIFProperties` in coders/tiff.c, 6.9.11, through libtiff): only the tags of its table,
/// each formatted as it formats libtiff's value: ASCII up to its NUL, SHORT and LONG with `%d`
/// (the first value of a list), RATIONAL and SRATIONAL as a float with `%g`. An entry stored with
/// a type other than the table's is left out, as libtiff leaves it (a PixelYDimension stored as a
/// SHORT, an ImageUniqueID of other than 33 characters).
enum TIFFEXIFProperties {
    enum Kind { case ascii, short, long, rational, srational }

    /// ImageMagick's table: tag, kind, whether the SHORT is a list (1: count and array, 2: array),
    /// and the property name without `exif:`.
    static let table: [(tag: Int, kind: Kind, list: Int, name: String)] = [
        (34855, .short, 1, "ISOSpeedRatings"),
        (33434, .rational, 0, "ExposureTime"), (33437, .rational, 0, "FNumber"), (34850, .short, 0, "ExposureProgram"),
        (34852, .ascii, 0, "SpectralSensitivity"), (36867, .ascii, 0, "DateTimeOriginal"), (36868, .ascii, 0, "DateTimeDigitized"),
        (37122, .rational, 0, "CompressedBitsPerPixel"), (37377, .srational, 0, "ShutterSpeedValue"), (37378, .rational, 0, "ApertureValue"),
        (37379, .srational, 0, "BrightnessValue"), (37380, .srational, 0, "ExposureBiasValue"), (37381, .rational, 0, "MaxApertureValue"),
        (37382, .rational, 0, "SubjectDistance"), (37383, .short, 0, "MeteringMode"), (37384, .short, 0, "LightSource"),
        (37385, .short, 0, "Flash"), (37386, .rational, 0, "FocalLength"), (37520, .ascii, 0, "SubSecTime"),
        (37521, .ascii, 0, "SubSecTimeOriginal"), (37522, .ascii, 0, "SubSecTimeDigitized"), (40962, .long, 0, "PixelXDimension"),
        (40963, .long, 0, "PixelYDimension"), (40964, .ascii, 0, "RelatedSoundFile"), (37387, .rational, 0, "FlashEnergy"),
        (41486, .rational, 0, "FocalPlaneXResolution"), (41487, .rational, 0, "FocalPlaneYResolution"),
        (41488, .short, 0, "FocalPlaneResolutionUnit"), (41492, .short, 2, "SubjectLocation"), (37397, .rational, 0, "ExposureIndex"),
        (41495, .short, 0, "SensingMethod"), (41985, .short, 0, "CustomRendered"), (41986, .short, 0, "ExposureMode"),
        (41987, .short, 0, "WhiteBalance"), (41988, .rational, 0, "DigitalZoomRatio"), (41989, .short, 0, "FocalLengthIn35mmFilm"),
        (41990, .short, 0, "SceneCaptureType"), (41991, .rational, 0, "GainControl"), (41992, .short, 0, "Contrast"),
        (41993, .short, 0, "Saturation"), (41994, .short, 0, "Sharpness"), (41996, .short, 0, "SubjectDistanceRange"),
        (42016, .ascii, 0, "ImageUniqueID"),
    ]

    /// The properties of an EXIF directory's `entries` (the first of each tag, as
    /// ``TIFFDirectories/entries(at:limit:keepingDuplicates:)`` reads them).
    static func read(_ directory: [TIFFDirectories.Entry], _ tiff: inout TIFFDirectories) -> [String: String] {
        let entries = Dictionary(directory.map { ($0.tag, $0) }, uniquingKeysWith: { first, _ in first })
        var properties: [String: String] = [:]
        for item in table {
            guard let entry = entries[item.tag], let value = value(of: entry, as: item.kind, list: item.list, &tiff),
                  !value.isEmpty else { continue }
            properties[item.name] = value
        }
        return properties
    }

    private static func value(of entry: TIFFDirectories.Entry, as kind: Kind, list: Int, _ tiff: inout TIFFDirectories) -> String? {
        let at = entry.isInline ? entry.valueField : tiff.value(at: entry.valueField, size: tiff.offsetSize)
        guard let at else { return nil }
        switch kind {
        case .ascii:
            // libtiff holds ImageUniqueID to its fixed 33 characters.
            guard entry.type == 2, entry.count > 0, entry.tag != TIFFTag.imageUniqueID || entry.count == 33 else { return nil }
            var text: [UInt8] = []
            for index in 0..<min(entry.count, 1 << 16) {
                guard let byte = tiff.value(at: at + index, size: 1), byte != 0 else { break }
                text.append(UInt8(byte))
            }
            return String(decoding: text, as: UTF8.self)
        case .short:
            guard entry.type == 3 else { return nil }
            if list == 1, entry.count == 0 { return "0" }
            return tiff.value(at: at, size: 2).map { String($0) }
        case .long:
            guard entry.type == 4, entry.count > 0 else { return nil }
            return tiff.value(at: at, size: 4).map { String(Int32(truncatingIfNeeded: $0)) }
        case .rational, .srational:
            guard entry.type == (kind == .rational ? 5 : 10), entry.count > 0,
                  let numerator = tiff.value(at: at, size: 4), let denominator = tiff.value(at: at + 4, size: 4) else { return nil }
            let signed = kind == .srational
            let n = signed ? Double(Int32(truncatingIfNeeded: numerator)) : Double(numerator)
            let d = signed ? Double(Int32(truncatingIfNeeded: denominator)) : Double(denominator)
            return String(format: "%g", Double(Float(d == 0 ? 0 : n / d)))
        }
    }
}
