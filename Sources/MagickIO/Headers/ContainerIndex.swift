/// What the one walk of a container found, for the formats whose structure several readers need:
/// a TIFF's directory chain (``TIFFIndex``), a HEIF file's items (``HEIFItems``), a JPEG's
/// segments to its frame header (``JPEGIndex``), a PNG's chunks (``PNGIndex``), a WebP's
/// (``RIFFIndex``). An
/// ``ImageSource`` walks its file once, at open, and keeps this: the header, the frames'
/// properties, the metadata census and the embedded thumbnail's choice read it.
enum ContainerIndex: Sendable {
    case tiff(TIFFIndex)
    case heif(HEIFItems)
    case jpeg(JPEGIndex)
    case png(PNGIndex)
    case webp(RIFFIndex)

    /// The index of `bytes` as `format`; nil for a format without one, or a TIFF without a valid
    /// header. A TIFF's chain is walked as far as `maxPages` pages when that is more than
    /// ``TIFFIndex/maxDirectories``.
    init?(_ bytes: SourceBytes, format: ImageFormat, maxPages: Int) {
        switch format {
        case .tiff:
            guard let index = TIFFIndex(bytes, maxDirectories: max(TIFFIndex.maxDirectories, maxPages)) else { return nil }
            self = .tiff(index)
        case .heic, .avif:
            var reader = ByteReader(bytes)
            self = .heif(HEIFItems.read(&reader))
        case .jpeg:
            self = .jpeg(JPEGIndex(bytes))
        case .png:
            self = .png(PNGIndex(bytes))
        case .webp:
            self = .webp(RIFFIndex(bytes))
        default:
            return nil
        }
    }

    /// The most entries (segments, chunks) an index of a file of `fileBytes` holds: 256, or one
    /// for every 256 bytes of the file, so that what an index holds (24-32 bytes an entry) is at
    /// most an eighth of the file it describes. A file of more (of nothing but tiny chunks) is
    /// walked again on each visit instead.
    static func maxEntries(fileBytes: Int) -> Int {
        max(256, fileBytes / 256)
    }

    /// The entries an index keeps as its walk finds them, up to `most` (``maxEntries(fileBytes:)``):
    /// nil once the walk found more, and the index then walks again on each visit.
    struct Capped<Entry: Sendable> {
        private(set) var entries: [Entry]? = []
        let most: Int

        init(most: Int) {
            self.most = max(most, 0)
        }

        mutating func append(_ entry: Entry) {
            if entries?.count == most { entries = nil } else { entries?.append(entry) }
        }
    }

    var tiff: TIFFIndex? {
        if case .tiff(let index) = self { index } else { nil }
    }

    var heif: HEIFItems? {
        if case .heif(let items) = self { items } else { nil }
    }

    var jpeg: JPEGIndex? {
        if case .jpeg(let index) = self { index } else { nil }
    }

    var png: PNGIndex? {
        if case .png(let index) = self { index } else { nil }
    }

    var webp: RIFFIndex? {
        if case .webp(let index) = self { index } else { nil }
    }
}
