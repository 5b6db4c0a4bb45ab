/// The metadata of a JPEG, from its segments before the frame header, named as ImageMagick's JPEG
/// coder (coders/jpeg.c, 6.9.11) names its profiles: `exif` (APP1 starting with "exif"), `xmp`
/// (APP1 in Adobe's XMP namespace, without it), `8bim` (APP13 Photoshop resources), `APP<n>` for
/// every other APP1 to APP15 but ICC's APP2 and APP14, each repeated segment appended to the first;
/// and the `COM` text. Bounded: at most `maxSegments` segments and `maxBytes` bytes are kept.
struct JPEGProfiles {
    /// Profiles by ImageMagick's name, in the order first seen.
    private(set) var profiles: [(name: String, bytes: [UInt8])] = []
    private(set) var comment: String?

    private static let xmpNamespace = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// `index`: the walk of `bytes` their source took (walked here when there is none).
    init(_ bytes: SourceBytes, index: JPEGIndex? = nil, maxSegments: Int, maxBytes: Int) {
        var segments = 0, kept = 0
        (index ?? JPEGIndex(bytes)).visit(bytes) { reader, segment in
            segments += 1
            guard segments <= maxSegments, kept < maxBytes, segment.payload.count > 0,
                  segment.code == 0xFE || (0xE1...0xEF).contains(segment.code), segment.code != 0xE2, segment.code != 0xEE,
                  let payload = reader.bytes(at: segment.payload.lowerBound, min(segment.payload.count, maxBytes - kept)) else { return }
            kept += payload.count
            switch segment.code {
            case 0xFE:
                comment = (comment ?? "") + String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self)
            case 0xED:
                // "Photoshop " and a four-byte version, as ImageMagick's ReadIPTCProfile skips them.
                if payload.count > 25, String(decoding: payload.prefix(10), as: UTF8.self).lowercased() == "photoshop " {
                    add("8bim", Array(payload.dropFirst(14)))
                }
            case 0xE1 where payload.count > 4 && String(decoding: payload.prefix(4), as: UTF8.self).lowercased() == "exif":
                add("exif", payload)
            case 0xE1 where payload.count > Self.xmpNamespace.count && payload.starts(with: Self.xmpNamespace):
                add("xmp", Array(payload.dropFirst(Self.xmpNamespace.count)))
            default:
                add("APP\(segment.code - 0xE0)", payload)
            }
        }
    }

    private mutating func add(_ name: String, _ bytes: [UInt8]) {
        if let index = profiles.firstIndex(where: { $0.name == name }) {
            if profiles[index].bytes != bytes { profiles[index].bytes += bytes }
        } else {
            profiles.append((name, bytes))
        }
    }
}
