/// A TIFF file's directory chain, walked once through ``TIFFDirectories``: each page's directory
/// with the fields MagickIO's readers use, and each EXIF or GPS directory a page points to. The
/// cost model's header and layouts (``TIFFHeader``, ``TIFFLayout``), the frames' properties
/// (``TIFFProperties``), the metadata census (``ContainerMetadata``) and the incremental source's
/// header point (``HeaderPoint``) all read this one value; an ``ImageSource`` walks its file once,
/// at open, and keeps the index (``ContainerIndex``).
///
/// The walk reads the chain's directories in order, then each EXIF or GPS directory once however
/// many entries point at it, all within one ``TIFFDirectories/entryBudget``.
struct TIFFIndex: Sendable {
    /// The most directories of the chain walked (10,000), unless the pages a source offers
    /// (``DecodingOptions/maxFrameCount``) are more: then that many. A walk stops earlier at a loop.
    static let maxDirectories = 10_000

    /// One directory, from the first entry of each tag (as libtiff reads it).
    struct Directory: Sendable {
        /// The first value of each tag of ``TIFFIndex/valueTags`` the directory has.
        var values: [Int: Int] = [:]
        /// The tags of ``TIFFIndex/valueTags`` whose value cannot be read.
        var unreadable: Set<Int> = []
        /// ExtraSamples' count.
        var extraSamples = 0
        /// X/YResolution, as libtiff's floats.
        var resolution: [Int: Double] = [:]
        /// The sizes of its ICC, XMP, IPTC and Photoshop profiles (each at most the file's size).
        var profileSizes: [Int] = []
        var iccBytes = 0
        /// Where its link to the next directory lies; nil when its entry count cannot be read.
        var link: Int?
        /// Where its bytes end: its link, and every value it points to; nil when the link or a
        /// pointer cannot be read (the data ends first).
        var end: Int?
        /// Its entries and the values they point to (each at most the file's size), as counted for
        /// an EXIF or GPS directory's metadata.
        var storedBytes = 0
        /// The `exif:*` properties ImageMagick's TIFF coder sets from it as a page's EXIF
        /// directory (``TIFFEXIFProperties``); empty for a page's own directory.
        var exif: [String: String] = [:]

        /// ImageMagick's alpha rule (coders/tiff.c): any extra sample (associated, unassociated or
        /// unspecified), or four samples in RGB; `photometric` when the directory has none.
        func hasAlpha(photometricWhenAbsent photometric: Int) -> Bool {
            extraSamples > 0 || (values[TIFFTag.samplesPerPixel] ?? 1 == 4 && values[TIFFTag.photometric] ?? photometric == 2)
        }

        /// The EXIF and GPS directories it points to.
        var subDirectories: [Int] {
            [values[TIFFTag.exifIFD], values[TIFFTag.gpsIFD]].compactMap { $0 }
        }
    }

    /// The tags whose first value a directory keeps.
    static let valueTags: Set<Int> = [
        TIFFTag.imageWidth, TIFFTag.imageLength, TIFFTag.bitsPerSample, TIFFTag.compression, TIFFTag.photometric,
        TIFFTag.orientation, TIFFTag.samplesPerPixel, TIFFTag.rowsPerStrip, TIFFTag.planarConfiguration,
        TIFFTag.resolutionUnit, TIFFTag.predictor, TIFFTag.tileWidth, TIFFTag.tileLength, TIFFTag.sampleFormat,
        TIFFTag.exifIFD, TIFFTag.gpsIFD,
    ]
    /// The tags ImageMagick turns into profiles: ICC, XMP, IPTC, Photoshop.
    static let profileTags: Set<Int> = [TIFFTag.icc, TIFFTag.xmp, TIFFTag.iptc, TIFFTag.photoshop]

    /// The chain's directories, in order.
    var directories: [Directory] = []
    /// The EXIF and GPS directories the chain's point to, by offset.
    var subDirectories: [Int: Directory] = [:]
    /// The walk stopped reading entries at ``TIFFDirectories/entryBudget``: what it found is not all.
    var isExhausted = false
    /// The size of an offset (4, or 8 in BigTIFF).
    var offsetSize = 4

    /// The index of `source`, its chain walked up to `maxDirectories`; nil without a valid TIFF header.
    init?(_ source: SourceBytes, maxDirectories: Int = Self.maxDirectories) {
        guard var tiff = TIFFDirectories(source) else { return nil }
        let fileSize = source.count
        directories = tiff.chain(limit: maxDirectories).map { Self.read($0, &tiff, fileSize: fileSize).directory }
        for offset in directories.flatMap(\.subDirectories) where subDirectories[offset] == nil {
            var (directory, entries) = Self.read(offset, &tiff, fileSize: fileSize)
            directory.exif = TIFFEXIFProperties.read(entries, &tiff)
            subDirectories[offset] = directory
        }
        isExhausted = tiff.isExhausted
        offsetSize = tiff.offsetSize
    }

    private static func read(_ offset: Int, _ tiff: inout TIFFDirectories,
                             fileSize: Int) -> (directory: Directory, entries: [TIFFDirectories.Entry]) {
        var directory = Directory()
        directory.link = tiff.linkField(ofDirectoryAt: offset)
        var end = directory.link.map { $0.saturatingPlus(tiff.offsetSize) }
        var stored = 2 + 4
        let entries = tiff.entries(at: offset)
        for entry in entries {
            stored = stored.saturatingPlus(12)
            if !entry.isInline {
                let pointer = tiff.value(at: entry.valueField, size: tiff.offsetSize)
                end = pointer.flatMap { at in end.map { max($0, at.saturatingPlus(entry.valueSize)) } }
                stored = stored.saturatingPlus(min(entry.valueSize, fileSize))
            }
            switch entry.tag {
            case TIFFTag.extraSamples:
                directory.extraSamples = entry.count
            case TIFFTag.xResolution, TIFFTag.yResolution:
                if entry.type == 5 || entry.type == 10, entry.count >= 1,
                   let at = entry.isInline ? entry.valueField : tiff.value(at: entry.valueField, size: tiff.offsetSize),
                   let numerator = tiff.value(at: at, size: 4), let denominator = tiff.value(at: at + 4, size: 4), denominator != 0 {
                    directory.resolution[entry.tag] = Double(Float(Double(numerator) / Double(denominator)))
                }
            case _ where profileTags.contains(entry.tag):
                let size = min(entry.valueSize, fileSize)
                directory.profileSizes.append(size)
                if entry.tag == TIFFTag.icc { directory.iccBytes = directory.iccBytes.saturatingPlus(size) }
            case _ where valueTags.contains(entry.tag):
                if let value = tiff.firstValue(of: entry) {
                    directory.values[entry.tag] = value
                } else {
                    directory.unreadable.insert(entry.tag)
                }
            default:
                break
            }
        }
        directory.end = end
        directory.storedBytes = min(stored, fileSize)
        return (directory, entries)
    }
}
