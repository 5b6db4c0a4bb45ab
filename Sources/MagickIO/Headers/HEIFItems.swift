/// The items of a HEIF file (HEIC, AVIF), read from its `meta` box in Swift: each item's type
/// (`iinf`), where its data lies (`iloc`, `idat`), how items refer to each other (`iref`: a grid's
/// tiles, an alpha image, a thumbnail) and their properties (`ipco`, `ipma`). Enough to find the
/// primary image's declared size and to see, before libheif decodes anything, what libheif 1.15
/// does not check itself (``inspect(decoding:_:)``):
///
/// - an image item with no coded data: libheif hands dav1d an empty buffer (when the `av1C` has
///   no OBUs either), which dav1d refuses and leaks (40 bytes a file; found by the fuzzer).
///   Refused, as is any item the decode reaches that no codec can decode.
/// - the pictures it makes: libde265 and dav1d decode the size the bitstream codes
///   (``CodedSize``), and libheif allocates the canvas a grid's or an overlay's data gives,
///   whatever size the item declares (`ispe`): a file declaring 96x64 that codes 4096x4096
///   decoded in 272 MB. The guard counts the largest picture (fail closed); an item whose
///   size cannot be read (an HEVC or AV1 item without readable parameter sets, a canvas without
///   readable data) is refused.
///
/// The walk reads what libheif reads: the last top-level `meta`, the first of each box in it,
/// the first entry for an item in `iinf`, `iloc` and `ipma`, `iloc` fields of 4 or 8 bytes only,
/// `iref`'s references one after another whatever their boxes' sizes. Bounded by the bytes it
/// reads and by ``Limits``: a file past them is ``unreadable`` before libheif parses it.
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
        /// Its properties' 1-based indices in `ipco`; nil when `ipma` has no entry for it.
        var properties: [Int]?
        /// Where the last byte of its `infe` box's flags lies (bit 0: hidden).
        var flagsByte: Int?

        /// The number of bytes of data it has.
        var dataLength: Int { (extents ?? []).reduce(0) { $0.saturatingPlus($1.length) } }
    }

    struct Property {
        var type: String
        var body: Range<Int>
    }

    /// Whether libheif may decode a picture of this file with something other than an AV1 decoder
    /// (dav1d, libaom): with libde265 (HEVC), which leaves the blocks a damaged slice never reaches
    /// unwritten (``HeapScrub``), or with a decoder MagickIO has not measured. False for an AVIF.
    var decodesBeyondAV1: Bool {
        items.isEmpty || items.values.contains { !["av01", "grid", "iden", "iovl", "Exif", "mime", "uri "].contains($0.type) }
    }

    /// The primary image: the one `pitm` names, or, without a `pitm` box, the one image item
    /// that can be it (``choosePrimary(_:)``, ``impliedPrimary``).
    var primary: Int?
    /// Whether `primary` is implied, the file having no `pitm` box: libheif must be shown one.
    var impliedPrimary = false
    /// Why a file with items but no `pitm` box has no primary image MagickIO would show.
    var missingPrimary: String?
    var items: [Int: Item] = [:]
    /// `iref`'s references by type, each way: `from` refers to each of `to` (`dimg`: a derived
    /// image to its inputs; `auxl`, `thmb`: an alpha image or a thumbnail to its master image).
    private var referencesFrom: [String: [Int: [Int]]] = [:]
    private var referencesTo: [String: [Int: [Int]]] = [:]
    /// Why the file's structure is not one libheif reads as MagickIO does, if it is not.
    var unreadable: String?
    var properties: [Property] = []
    var idat: Range<Int>?
    /// The top-level `meta` box, and the last top-level box that fits in the file.
    var meta: ISOBMFFBoxes.Box?
    var lastBox: ISOBMFFBoxes.Box?

    /// What MagickIO lets libheif parse. libheif 1.15 (Debian 12) reads `iinf`, `iloc`, `iref`,
    /// `ipma` and `hvcC` without limits and looks each item's references and properties up in the
    /// whole lists: 20,000 items and 500,000 references kept it busy for minutes, 6 million NAL
    /// units in an `hvcC` took 1.5 GiB, 31 extents each spanning a 16 MB file 550 MiB. The first
    /// four are libheif 1.19's security limits (Debian 13's libheif refuses the same files); the
    /// rest are MagickIO's own, far above what cameras and encoders write.
    enum Limits {
        /// Items in `iinf` and `iloc`, entries in `ipma`, and items one reference names
        /// (libheif 1.19's `max_items`): a grid has a reference per tile.
        static let items = 1000
        /// Boxes in `meta`, `iprp` and `ipco` (`max_children_per_box`).
        static let children = 100
        /// Extents of one item (`max_iloc_extents_per_item`; libheif 1.15's `MAX_ILOC_EXTENTS_PER_ITEM`).
        static let extents = 32
        /// References in `iref`, all together (ten an item).
        static let references = 10 * items
        /// NAL units in one `hvcC`, and its bytes (a parameter set each of three kinds and a few
        /// SEI messages, a few hundred bytes, is what encoders write). libheif hands the whole
        /// configuration to the decoder with every tile.
        static let configurationUnits = 64
        static let configurationBytes = 64 << 10
        /// One item's data is at most the file; all items' data together, and the data of the
        /// inputs a derived image (a grid) names, each input once per reference, at most twice it
        /// and 16 MiB: extents that overlap, or a 1 MB tile named a thousand times, make libheif
        /// read the same bytes again (a grid of one small tile repeated stays within).
        static let dataPerFileByte = 2
        static let dataBeyondFile = 16 << 20
    }

    /// The items of the file in `reader`; empty when it has no `meta` box.
    static func read(_ reader: inout ByteReader) -> HEIFItems {
        var found = HEIFItems()
        var metas: [ISOBMFFBoxes.Box] = []
        ISOBMFFBoxes.walk(&reader, in: 0..<reader.count) { _, box in
            if box.type == "meta" { metas.append(box) }
            found.lastBox = box
        }
        // libheif keeps the last meta box before the first box it cannot read, which need not be
        // the last one here.
        guard metas.count <= 1 else {
            found.refuse("\(metas.count) meta boxes")
            return found
        }
        guard let metaBox = metas.first, metaBox.body.count >= 4 else { return found }
        let meta = metaBox.body
        found.meta = metaBox
        var first: [String: Range<Int>] = [:]
        let children = ISOBMFFBoxes.walk(&reader, in: (meta.lowerBound + 4)..<meta.upperBound, limit: Limits.children + 1) { _, box in
            if first[box.type] == nil { first[box.type] = box.body }
        }
        guard children <= Limits.children else {
            found.refuse("more than \(Limits.children) boxes in its meta box")
            return found
        }
        if let pitm = first["pitm"] {
            var fields = HEIFFields(reader.bytes(at: pitm.lowerBound, min(pitm.count, 8)) ?? [])
            if let version = fields.take(1), fields.skip(3) { found.primary = fields.take(version == 0 ? 2 : 4) }
        }
        found.idat = first["idat"]
        if let iinf = first["iinf"] { found.readInfo(&reader, iinf) }
        // Whole: libheif reads every entry (at most ``Limits/items``).
        if let iloc = first["iloc"] { found.readLocations(reader.bytes(at: iloc.lowerBound, iloc.count) ?? []) }
        if let iref = first["iref"] { found.readReferences(reader.bytes(at: iref.lowerBound, iref.count) ?? []) }
        guard found.unreadable == nil else { return found }
        if let iprp = first["iprp"] {
            var ipco: Range<Int>?
            let children = ISOBMFFBoxes.walk(&reader, in: iprp, limit: Limits.children + 1) { reader, box in
                if box.type == "ipco", ipco == nil { ipco = box.body }
                // libheif merges every ipma, the first entry for an item winning.
                if box.type == "ipma" { found.readAssociations(reader.bytes(at: box.body.lowerBound, box.body.count) ?? []) }
            }
            guard children <= Limits.children else {
                found.refuse("more than \(Limits.children) boxes in its iprp box")
                return found
            }
            if let ipco {
                let properties = ISOBMFFBoxes.walk(&reader, in: ipco, limit: Limits.children + 1) { _, property in
                    found.properties.append(Property(type: property.type, body: property.body))
                }
                guard properties <= Limits.children else {
                    found.refuse("more than \(Limits.children) item properties")
                    return found
                }
            }
        }
        found.checkLimits(&reader)
        if first["pitm"] == nil, !found.items.isEmpty, found.unreadable == nil {
            found.choosePrimary(&reader)
        }
        return found
    }

    /// Sets `unreadable` to why MagickIO does not let libheif parse the file (the first reason
    /// found stays).
    mutating func refuse(_ why: String) {
        if unreadable == nil { unreadable = "the HEIF file has \(why)" }
    }

    /// The ``Limits`` only the whole walk can check: the items' data against the file's size, and
    /// each `hvcC`'s NAL units (libheif parses every property as it opens the file).
    private mutating func checkLimits(_ reader: inout ByteReader) {
        var total = 0
        for (id, item) in items {
            let length = item.dataLength
            if length > reader.count { return refuse("an item (\(id)) of \(length) bytes of data, more than the file's \(reader.count)") }
            total = total.saturatingPlus(length)
        }
        let most = reader.count.saturatingTimes(Limits.dataPerFileByte).saturatingPlus(Limits.dataBeyondFile)
        if total > most {
            return refuse("items of \(total) bytes of data together, more than the \(most) a file of \(reader.count) may hold")
        }
        for (derived, inputs) in referencesFrom["dimg"] ?? [:] {
            let read = inputs.reduce(0) { $0.saturatingPlus(items[$1]?.dataLength ?? 0) }
            if read > most {
                return refuse("an image (\(derived)) whose inputs make the decoder read \(read) bytes, more than the \(most) a file of \(reader.count) may")
            }
        }
        for property in properties where property.type == "hvcC" {
            guard property.body.count <= Limits.configurationBytes else {
                return refuse("an hvcC of \(property.body.count) bytes, more than \(Limits.configurationBytes)")
            }
            guard let config = reader.bytes(at: property.body.lowerBound, property.body.count) else { continue }
            if CodedSize.hevcUnitCount(config, upTo: Limits.configurationUnits + 1) > Limits.configurationUnits {
                return refuse("an hvcC of more than \(Limits.configurationUnits) NAL units")
            }
        }
    }

    /// `iinf`: a full box, an entry count (none: no items), then one `infe` box per item (versions
    /// 2 and 3 name the item's type; older ones describe files, not images).
    private mutating func readInfo(_ reader: inout ByteReader, _ body: Range<Int>) {
        guard let version = reader.u8(at: body.lowerBound) else { return }
        let countSize = version == 0 ? 2 : 4
        guard body.count >= 4 + countSize,
              let count = version == 0 ? reader.u16be(at: body.lowerBound + 4) : reader.u32be(at: body.lowerBound + 4),
              count > 0 else { return }
        guard count <= Limits.items else { return refuse("more than \(Limits.items) items") }
        let entries = ISOBMFFBoxes.walk(&reader, in: (body.lowerBound + 4 + countSize)..<body.upperBound,
                                        limit: Limits.items + 1) { reader, box in
            guard box.type == "infe",
                  var fields = reader.bytes(at: box.body.lowerBound, min(box.body.count, 14)).map(HEIFFields.init),
                  let version = fields.take(1), version >= 2, fields.skip(3),
                  let id = fields.take(version == 2 ? 2 : 4), fields.skip(2), let type = fields.bytes(4),
                  items[id]?.type.isEmpty ?? true else { return }
            items[id, default: Item()].type = String(decoding: type, as: UTF8.self)
            items[id]?.flagsByte = box.body.lowerBound + 3
        }
        if entries > Limits.items { refuse("more than \(Limits.items) items") }
    }

    /// `iloc`: for each item, how its data is built (file offset or `idat`) and its extents.
    /// libheif reads offsets, lengths and base offsets of 4 or 8 bytes (any other size is none,
    /// a 0), and extent indices from version 2 only.
    private mutating func readLocations(_ box: [UInt8]) {
        var fields = HEIFFields(box)
        guard let version = fields.take(1), version <= 2, fields.skip(3),
              let sizes = fields.take(1), let more = fields.take(1),
              let count = fields.take(version < 2 ? 2 : 4) else { return }
        guard count <= Limits.items else { return refuse("locations for \(count) items, more than \(Limits.items)") }
        func size(_ nibble: Int) -> Int { nibble == 4 || nibble == 8 ? nibble : 0 }
        let (offsetSize, lengthSize, baseSize) = (size(sizes >> 4), size(sizes & 15), size(more >> 4))
        let indexSize = version > 1 ? size(more & 15) : 0
        for _ in 0..<count {
            guard let id = fields.take(version < 2 ? 2 : 4) else { return }
            var method = 0
            if version > 0 {
                guard let value = fields.take(2) else { return }
                method = value & 15
            }
            guard fields.skip(2), let base = fields.take(baseSize), let extentCount = fields.take(2),
                  extentCount <= Limits.extents else { return }
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                guard fields.skip(indexSize), let offset = fields.take(offsetSize), let length = fields.take(lengthSize) else { return }
                extents.append(Extent(method: method, offset: base.saturatingPlus(offset), length: length))
            }
            if items[id]?.extents == nil { items[id, default: Item()].extents = extents }
        }
    }

    /// `iref`: a full box (version 0: 16-bit item ids, 1: 32-bit), then references read one after
    /// another as libheif reads them: a box header, the referring item, a count, the items; each
    /// box's declared size is not where the next one starts.
    private mutating func readReferences(_ box: [UInt8]) {
        var fields = HEIFFields(box)
        guard let version = fields.take(1), fields.skip(3) else { return }
        let idSize = version == 0 ? 2 : 4
        var references = 0
        while fields.remaining > 0 {
            guard let size = fields.take(4), let typeBytes = fields.bytes(4), size != 1 || fields.skip(8) else { return }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard type != "uuid" || fields.skip(16), let from = fields.take(idSize), let count = fields.take(2) else { return }
            references = references.saturatingPlus(count)
            guard count <= Limits.items, references <= Limits.references else {
                return refuse(count > Limits.items ? "a reference to \(count) items, more than \(Limits.items)"
                                                   : "more than \(Limits.references) item references")
            }
            var to: [Int] = []
            for _ in 0..<count {
                guard let id = fields.take(idSize) else { break }
                to.append(id)
            }
            referencesFrom[type, default: [:]][from, default: []] += to
            for id in to { referencesTo[type, default: [:]][id, default: []].append(from) }
        }
    }

    /// `ipma`: for each item, the 1-based indices of its properties in `ipco`.
    private mutating func readAssociations(_ box: [UInt8]) {
        var fields = HEIFFields(box)
        guard let version = fields.take(1), fields.skip(2), let flags = fields.take(1), let count = fields.take(4) else { return }
        guard count <= Limits.items else { return refuse("properties for \(count) items, more than \(Limits.items)") }
        let wide = flags & 1 == 1
        for _ in 0..<count {
            guard let id = fields.take(version < 1 ? 2 : 4), let associations = fields.take(1) else { return }
            var indices: [Int] = []
            for _ in 0..<associations {
                guard let value = fields.take(wide ? 2 : 1) else { return }
                indices.append(value & (wide ? 0x7FFF : 0x7F))
            }
            if items[id]?.properties == nil {
                items[id, default: Item()].properties = indices
            }
        }
    }

    // MARK: - What the items say

    /// The 1-based `ipco` indices of the properties of type `type` associated with `item`, in
    /// association order.
    func propertyIndices(_ type: String, of item: Int) -> [Int] {
        (items[item]?.properties ?? []).filter { index in
            index >= 1 && index <= properties.count && properties[index - 1].type == type
        }
    }

    /// The first property of type `type` associated with `item` (what libheif looks up).
    func property(_ type: String, of item: Int) -> Property? {
        propertyIndices(type, of: item).first.map { properties[$0 - 1] }
    }

    /// An item's declared size (`ispe`; libheif takes the last), as stored (before `irot`).
    func declaredSize(of item: Int, _ reader: inout ByteReader) -> (width: Int, height: Int)? {
        propertyIndices("ispe", of: item).last.flatMap { Self.extent(properties[$0 - 1], &reader) }
    }

    /// The size an `ispe` property gives (a full box: version and flags, then width and height).
    static func extent(_ ispe: Property, _ reader: inout ByteReader) -> (width: Int, height: Int)? {
        guard ispe.type == "ispe", ispe.body.count >= 12, let size = reader.bytes(at: ispe.body.lowerBound + 4, 8) else { return nil }
        return (size.u32be(at: 0), size.u32be(at: 4))
    }

    /// The items `from` refers to with references of `type`.
    func referenced(_ type: String, from: Int) -> [Int] {
        referencesFrom[type]?[from] ?? []
    }

    /// The items that refer to `to` with references of `type`.
    func referring(_ type: String, to: Int) -> [Int] {
        referencesTo[type]?[to] ?? []
    }

    /// `count` bytes of an item's data from `start` (its extents one after another), or nil when
    /// they are not all there.
    func data(of item: Int, from start: Int = 0, _ count: Int, _ reader: inout ByteReader) -> [UInt8]? {
        var bytes: [UInt8] = []
        var skipped = 0
        for extent in items[item]?.extents ?? [] where bytes.count < count {
            let base: Int
            switch extent.method {
            case 0: base = 0
            case 1:
                guard let idat, extent.offset.saturatingPlus(extent.length) <= idat.count else { return nil }
                base = idat.lowerBound
            default: return nil
            }
            let from = max(start - skipped, 0)
            skipped = skipped.saturatingPlus(extent.length)
            guard from < extent.length else { continue }
            let length = min(extent.length - from, count - bytes.count)
            guard let got = reader.bytes(at: base.saturatingPlus(extent.offset).saturatingPlus(from), length) else { return nil }
            bytes += got
        }
        return bytes.count == count ? bytes : nil
    }
}

/// Big-endian fields read in order from a box's bytes; nil once they run out.
/// A bounded reader of a box's fields, big-endian (the HEIF walkers' own).
struct HEIFFields {
    let bytes: [UInt8]
    var at = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - at }

    /// The next `count` bytes (0, 1, 2, 4 or 8) as a big-endian number; 0 for a 0-byte field.
    mutating func take(_ count: Int) -> Int? {
        guard count >= 0, count <= 8, count <= remaining else { return nil }
        defer { at += count }
        // An 8-byte field over Int.max is as far past any file's end as Int.max is.
        return bytes[at..<at + count].reduce(0) { $0 > Int.max >> 8 ? Int.max : $0 << 8 | Int($1) }
    }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { at += count }
        return bytes[at..<at + count]
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        at += count
        return true
    }
}
