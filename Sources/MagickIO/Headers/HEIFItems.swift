/// The items of a HEIF file (HEIC, AVIF), read from its `meta` box in Swift: each item's type
/// (`iinf`), where its data lies (`iloc`, `idat`), how items refer to each other (`iref`: a grid's
/// tiles, an alpha image, a thumbnail) and their properties (`ipco`, `ipma`). Enough to find the
/// primary image's declared size and to see, before libheif decodes anything, what libheif 1.15
/// does not check itself (``inspect(decoding:_:)``):
///
/// - an image item with no coded data: libheif hands dav1d an empty buffer, which dav1d refuses
///   and leaks (40 bytes a file; found by the fuzzer). Refused.
/// - the pictures it makes: libde265 and dav1d decode the size the bitstream codes
///   (``CodedSize``), and libheif allocates the canvas a grid's or an overlay's data gives,
///   whatever size the item declares (`ispe`): a file declaring 96x64 that codes 4096x4096
///   decoded in 272 MB. The guard counts the largest (fail closed); an HEVC or AV1 item whose
///   size cannot be read from its parameter sets is refused (no codec decodes it without them).
///
/// Bounded by the bytes it reads: the `meta` box in the first MiB, at most 4096 entries per table.
struct HEIFItems {
    struct Extent {
        /// 0: at a file offset; 1: in the `idat` box; 2: from other items (which libheif refuses).
        var method: Int
        var offset: Int
        var length: Int
    }

    struct Item {
        var type = ""
        /// Where its data lies; nil when `iloc` has no entry for it.
        var extents: [Extent]?
        /// Its properties' 1-based indices in `ipco`.
        var properties: [Int] = []

        /// The number of bytes of data it has.
        var dataLength: Int { (extents ?? []).reduce(0) { $0.saturatingPlus($1.length) } }
    }

    struct Property {
        var type: String
        var body: Range<Int>
    }

    var primary: Int?
    var items: [Int: Item] = [:]
    /// `iref`'s references, in file order: `from` refers to each of `to` (`dimg`: a derived image
    /// to its inputs; `auxl`, `thmb`: an alpha image or a thumbnail to its master image).
    var references: [(type: String, from: Int, to: [Int])] = []
    var properties: [Property] = []
    var idat: Range<Int>?

    private static let maxEntries = 4096

    /// The items of the file in `reader`; empty when it has no `meta` box in its first MiB.
    static func read(_ reader: inout ByteReader) -> HEIFItems {
        var found = HEIFItems()
        found.walk(&reader, 0..<min(reader.count, 1 << 20), depth: 0)
        return found
    }

    private mutating func walk(_ reader: inout ByteReader, _ range: Range<Int>, depth: Int) {
        guard depth < 6 else { return }
        ISOBMFFBoxes.walk(&reader, in: range) { reader, box in
            let body = box.body
            switch box.type {
            case "meta":  // a full box: version and flags first
                guard body.count >= 4 else { return }
                walk(&reader, (body.lowerBound + 4)..<body.upperBound, depth: depth + 1)
            case "iprp":
                walk(&reader, body, depth: depth + 1)
            case "ipco":
                ISOBMFFBoxes.walk(&reader, in: body) { _, property in
                    properties.append(Property(type: property.type, body: property.body))
                }
            case "idat":
                idat = body
            case "pitm":
                var fields = Fields(reader.bytes(at: body.lowerBound, min(body.count, 8)) ?? [])
                guard let version = fields.take(1), fields.skip(3) else { return }
                primary = fields.take(version == 0 ? 2 : 4)
            case "iinf":
                readInfo(&reader, body)
            case "iloc":
                readLocations(reader.bytes(at: body.lowerBound, min(body.count, 1 << 18)) ?? [])
            case "iref":
                readReferences(&reader, body)
            case "ipma":
                readAssociations(reader.bytes(at: body.lowerBound, min(body.count, 1 << 16)) ?? [])
            default: break
            }
        }
    }

    /// `iinf`: a full box, an entry count, then one `infe` box per item (versions 2 and 3 name
    /// the item's type; older ones describe files, not images).
    private mutating func readInfo(_ reader: inout ByteReader, _ body: Range<Int>) {
        guard let version = reader.u8(at: body.lowerBound) else { return }
        let entries = (body.lowerBound + (version == 0 ? 6 : 8))..<body.upperBound
        var count = 0
        ISOBMFFBoxes.walk(&reader, in: entries) { reader, box in
            count += 1
            guard box.type == "infe", count <= Self.maxEntries,
                  var fields = reader.bytes(at: box.body.lowerBound, min(box.body.count, 14)).map(Fields.init),
                  let version = fields.take(1), version >= 2, fields.skip(3),
                  let id = fields.take(version == 2 ? 2 : 4), fields.skip(2), let type = fields.bytes(4) else { return }
            items[id, default: Item()].type = String(decoding: type, as: UTF8.self)
        }
    }

    /// `iloc`: for each item, how its data is built (file offset or `idat`) and its extents.
    private mutating func readLocations(_ box: [UInt8]) {
        var fields = Fields(box)
        guard let version = fields.take(1), version <= 2, fields.skip(3),
              let sizes = fields.take(1), let more = fields.take(1),
              let count = fields.take(version < 2 ? 2 : 4) else { return }
        let (offsetSize, lengthSize, baseSize) = (sizes >> 4, sizes & 15, more >> 4)
        let indexSize = version == 0 ? 0 : more & 15
        for _ in 0..<min(count, Self.maxEntries) {
            guard let id = fields.take(version < 2 ? 2 : 4) else { return }
            var method = 0
            if version > 0 {
                guard let value = fields.take(2) else { return }
                method = value & 15
            }
            guard fields.skip(2), let base = fields.take(baseSize), let extentCount = fields.take(2) else { return }
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                guard fields.skip(indexSize), let offset = fields.take(offsetSize), let length = fields.take(lengthSize) else { return }
                extents.append(Extent(method: method, offset: base.saturatingPlus(offset), length: length))
            }
            items[id, default: Item()].extents = extents
        }
    }

    /// `iref`: a full box (version 0: 16-bit item ids, 1: 32-bit), then one box per reference.
    private mutating func readReferences(_ reader: inout ByteReader, _ body: Range<Int>) {
        guard let version = reader.u8(at: body.lowerBound) else { return }
        let idSize = version == 0 ? 2 : 4
        ISOBMFFBoxes.walk(&reader, in: (body.lowerBound + 4)..<body.upperBound) { reader, box in
            guard references.count < Self.maxEntries,
                  var fields = reader.bytes(at: box.body.lowerBound, min(box.body.count, 1 << 16)).map(Fields.init),
                  let from = fields.take(idSize), let count = fields.take(2) else { return }
            var to: [Int] = []
            for _ in 0..<count {
                guard let id = fields.take(idSize) else { break }
                to.append(id)
            }
            references.append((box.type, from, to))
        }
    }

    /// `ipma`: for each item, the 1-based indices of its properties in `ipco`.
    private mutating func readAssociations(_ box: [UInt8]) {
        var fields = Fields(box)
        guard let version = fields.take(1), fields.skip(2), let flags = fields.take(1), let count = fields.take(4) else { return }
        let wide = flags & 1 == 1
        for _ in 0..<min(count, Self.maxEntries) {
            guard let id = fields.take(version < 1 ? 2 : 4), let associations = fields.take(1) else { return }
            var indices: [Int] = []
            for _ in 0..<associations {
                guard let value = fields.take(wide ? 2 : 1) else { return }
                indices.append(value & (wide ? 0x7FFF : 0x7F))
            }
            items[id, default: Item()].properties = indices
        }
    }

    // MARK: - What the items say

    /// The first property of type `type` associated with `item`.
    func property(_ type: String, of item: Int) -> Property? {
        items[item]?.properties.lazy.compactMap { index in
            index >= 1 && index <= properties.count ? properties[index - 1] : nil
        }.first { $0.type == type }
    }

    /// An item's declared size (`ispe`), as stored (before `irot`).
    func declaredSize(of item: Int, _ reader: inout ByteReader) -> (width: Int, height: Int)? {
        guard let ispe = property("ispe", of: item), ispe.body.count >= 12,
              let size = reader.bytes(at: ispe.body.lowerBound + 4, 8) else { return nil }
        return (u32be(size, 0), u32be(size, 4))
    }

    /// The items `from` refers to with references of `type`.
    func referenced(_ type: String, from: Int) -> [Int] {
        references.filter { $0.type == type && $0.from == from }.flatMap(\.to)
    }

    /// The items that refer to `to` with references of `type`.
    func referring(_ type: String, to: Int) -> [Int] {
        references.filter { $0.type == type && $0.to.contains(to) }.map(\.from)
    }

    /// The first `count` bytes of an item's data (its extents in order), or nil when they are not
    /// all there.
    func data(of item: Int, _ count: Int, _ reader: inout ByteReader) -> [UInt8]? {
        var bytes: [UInt8] = []
        for extent in items[item]?.extents ?? [] where bytes.count < count {
            let base: Int
            switch extent.method {
            case 0: base = 0
            case 1:
                guard let idat, extent.offset.saturatingPlus(extent.length) <= idat.count else { return nil }
                base = idat.lowerBound
            default: return nil
            }
            guard let got = reader.bytes(at: base.saturatingPlus(extent.offset), min(extent.length, count - bytes.count)) else { return nil }
            bytes += got
        }
        return bytes.count == count ? bytes : nil
    }

    /// The item types libheif decodes with a codec: each needs coded data.
    private static let codedTypes: Set<String> = ["hvc1", "av01", "jpeg"]

    /// What libheif does to decode an item with its alpha image and, for a grid or an overlay,
    /// its tiles (see the type's notes).
    struct Inspection: Equatable {
        /// Why libheif must not be asked at all: an image item with no coded data, or an HEVC or
        /// AV1 item whose picture size cannot be read from its parameter sets.
        var problem: String?
        /// The most pixels one picture of the decode takes: each codec's picture as its bitstream
        /// codes it, each grid's or overlay's canvas as its data gives it, whatever the items
        /// declare.
        var largestPicture = 0
    }

    func inspect(decoding item: Int, _ reader: inout ByteReader) -> Inspection {
        var inspection = Inspection()
        var pending = [item] + referring("auxl", to: item)
        var seen: Set<Int> = []
        var codedSizes: [Int: (width: Int, height: Int)] = [:]  // by configuration property: tiles share one
        while let id = pending.popLast() {
            guard seen.insert(id).inserted, seen.count <= Self.maxEntries else { continue }
            let type = items[id]?.type ?? ""
            if Self.codedTypes.contains(type), items[id]?.dataLength ?? 0 == 0 {
                inspection.problem = "the HEIF item \(id) (\(type)) has no coded data"
                return inspection
            }
            var picture: (width: Int, height: Int)?
            if type == "hvc1" || type == "av01" {
                let key = items[id]?.properties.first { index in
                    index >= 1 && index <= properties.count && ["hvcC", "av1C"].contains(properties[index - 1].type)
                }
                // An AV1 item whose av1C holds no sequence header has its own in its data.
                picture = key.flatMap { codedSizes[$0] } ?? codedSize(of: id, type: type, &reader)
                guard let picture else {
                    inspection.problem = "the HEIF item \(id) (\(type)) has no \(type == "hvc1" ? "sequence parameter set" : "sequence header") MagickIO can read"
                    return inspection
                }
                if let key, type == "hvc1" { codedSizes[key] = picture }
            } else if type == "grid" || type == "iovl" {
                picture = canvasSize(of: id, type: type, &reader)
            }
            if let picture {
                inspection.largestPicture = max(inspection.largestPicture, picture.width.saturatingTimes(picture.height))
            }
            pending += referenced("dimg", from: id)
        }
        return inspection
    }

    /// The picture size an `hvc1` or `av01` item's bitstream codes (``CodedSize``): from its
    /// `hvcC`, or its `av1C`'s configOBUs and else the start of its data.
    func codedSize(of item: Int, type: String, _ reader: inout ByteReader) -> (width: Int, height: Int)? {
        let config = property(type == "hvc1" ? "hvcC" : "av1C", of: item)
        let body = config.flatMap { reader.bytes(at: $0.body.lowerBound, min($0.body.count, 1 << 16)) }
        if type == "hvc1" { return body.flatMap(CodedSize.hevc) }
        if let body, body.count > 4, let size = CodedSize.av1(Array(body[4...])) { return size }
        return data(of: item, min(items[item]?.dataLength ?? 0, 256), &reader).flatMap(CodedSize.av1)
    }

    /// The output size a grid (`ImageGrid`) or an overlay (`ImageOverlay`) item's data declares:
    /// version, flags (bit 0: 32-bit sizes), then the rows and columns (grid) or four 16-bit fill
    /// values (overlay), then the width and height.
    func canvasSize(of item: Int, type: String, _ reader: inout ByteReader) -> (width: Int, height: Int)? {
        let skip = type == "grid" ? 2 : 8
        guard let head = data(of: item, 2, &reader) else { return nil }
        let size = head[1] & 1 == 1 ? 4 : 2
        guard var fields = data(of: item, 2 + skip + 2 * size, &reader).map(Fields.init), fields.skip(2 + skip),
              let width = fields.take(size), let height = fields.take(size) else { return nil }
        return (width, height)
    }
}

/// Big-endian fields read in order from a box's bytes; nil once they run out.
private struct Fields {
    let bytes: [UInt8]
    var at = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next `count` bytes (0, 1, 2, 4 or 8) as a big-endian number; 0 for a 0-byte field.
    mutating func take(_ count: Int) -> Int? {
        guard count >= 0, count <= 8, at + count <= bytes.count else { return nil }
        defer { at += count }
        // An 8-byte field over Int.max is as far past any file's end as Int.max is.
        return bytes[at..<at + count].reduce(0) { $0 > Int.max >> 8 ? Int.max : $0 << 8 | Int($1) }
    }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard at + count <= bytes.count else { return nil }
        defer { at += count }
        return bytes[at..<at + count]
    }

    mutating func skip(_ count: Int) -> Bool {
        guard at + count <= bytes.count else { return false }
        at += count
        return true
    }
}
