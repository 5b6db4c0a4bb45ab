// The primary image of a HEIF file whose `meta` box names none (no `pitm`): libavif's
// Chimera-AV1-10bit-480x270.avif, an AVIF image sequence whose `meta` box lists one av01 item,
// with its properties and data, beside its track. libavif and libheif 1.19 and later show that
// item; libheif 1.15 refuses a file without `pitm`, so MagickIO shows it one (``HEIFFile``).

extension HEIFItems {
    /// The item types an implied primary image may have: what libheif decodes by itself.
    private static let impliedTypes: Set<String> = ["av01", "hvc1", "grid"]

    /// Reads the primary image implied when there is no `pitm` box: the one image item that is
    /// no other image's part (a grid's tile, an alpha or depth image, a thumbnail), not hidden,
    /// with its size (`ispe`), its codec configuration and its data. Fails closed: with none, or
    /// with two or more, `primary` stays nil and ``missingPrimary`` says why.
    mutating func choosePrimary(_ reader: inout ByteReader) {
        var candidates: [Int] = [], hidden: [Int] = []
        for (id, item) in items where Self.impliedTypes.contains(item.type) {
            // A part of another image: libheif shows it with that image, never alone.
            guard referenced("auxl", from: id).isEmpty, referenced("thmb", from: id).isEmpty,
                  referring("dimg", to: id).isEmpty else { continue }
            guard item.dataLength > 0, declaredSize(of: id, &reader) != nil,
                  item.type == "grid" || property(item.type == "av01" ? "av1C" : "hvcC", of: id) != nil else { continue }
            guard let flags = item.flagsByte.flatMap({ reader.u8(at: $0) }) else { continue }
            if flags & 1 == 1 {
                hidden.append(id)
            } else {
                candidates.append(id)
            }
        }
        candidates.sort()
        hidden.sort()
        switch candidates.count {
        case 1:
            if let problem = pitmProblem(for: candidates[0], &reader) {
                missingPrimary = problem
            } else if unreadable == nil {
                primary = candidates[0]
                impliedPrimary = true
            }
        case 0 where !hidden.isEmpty:
            missingPrimary = "the HEIF file names no primary image (no pitm box), and its only image \(hidden.count == 1 ? "item is" : "items are") hidden (\(Self.list(hidden)))"
        case 0:
            missingPrimary = "the HEIF file names no primary image (no pitm box) and has no image item libheif could show"
        default:
            missingPrimary = "the HEIF file names no primary image (no pitm box) and has \(candidates.count) image items that could be it (\(Self.list(candidates)))"
        }
    }

    /// "item 1", "items 1 and 3", "items 1, 2, 3, 4, ..." (at most four named).
    private static func list(_ ids: [Int]) -> String {
        guard ids.count > 1 else { return "item \(ids[0])" }
        if ids.count > 4 { return "items " + ids.prefix(4).map(String.init).joined(separator: ", ") + ", ..." }
        return "items " + ids.dropLast().map(String.init).joined(separator: ", ") + " and \(ids.last!)"
    }

    /// The largest `meta` box MagickIO copies to show libheif a `pitm` (``shownWithPrimary(_:shown:)``).
    static let maxCopiedMeta = 16 << 20

    /// Why libheif cannot be shown a `pitm` naming `item` as ``shownWithPrimary(_:shown:)`` shows it, or nil.
    /// A file that ends past its last whole box is ``unreadable`` instead (damaged, not unsupported).
    private mutating func pitmProblem(for item: Int, _ reader: inout ByteReader) -> String? {
        let why = "the HEIF file names no primary image (no pitm box), and MagickIO cannot name item \(item) to libheif"
        guard let meta, let lastBox, lastBox.offset + lastBox.size == reader.count else {
            // Cut short, most likely: damaged rather than unsupported.
            refuse("no pitm box, and bytes past its last whole box (is it cut short?)")
            return nil
        }
        guard meta.size <= Self.maxCopiedMeta else { return why + ": its meta box of \(meta.size) bytes is over \(Self.maxCopiedMeta)" }
        guard reader.u32be(at: lastBox.offset) != 0 || lastBox.size <= Int(UInt32.max) else {
            return why + ": its last box runs to the end of the file, over 4 GiB"
        }
        // Only the meta box's type is shown changed: no item's data may lie there.
        let renamed = (meta.offset + 4)..<(meta.offset + 8)
        for (id, entry) in items {
            for extent in entry.extents ?? [] where extent.method == 0 && extent.length > 0 {
                if extent.offset < renamed.upperBound, extent.offset.saturatingPlus(extent.length) > renamed.lowerBound {
                    return why + ": item \(id)'s data overlaps its meta box's header"
                }
            }
        }
        return nil
    }

    /// What libheif is shown so that it reads the implied primary image as the file's primary
    /// image, every byte it reads data from left where it is: the `meta` box renamed `free` (its
    /// size written out when it was 0), the last top-level box's size written out when it was 0
    /// ("to the end of the file", which would now run past it), and, appended past the end of
    /// the file, a `meta` box holding the old one's children (as `shown` shows them) and a `pitm`
    /// naming the item. Item locations are file offsets, or offsets in `idat`, whose copy holds the
    /// same bytes: libheif finds every item's data as before. Nil when there is no implied primary.
    func shownWithPrimary(_ reader: inout ByteReader, shown: [(offset: Int, bytes: [UInt8])])
        -> (replaced: [(offset: Int, bytes: [UInt8])], appended: [UInt8])? {
        guard impliedPrimary, let primary, let meta, let lastBox, meta.size <= Self.maxCopiedMeta,
              var children = reader.bytes(at: meta.body.lowerBound, meta.body.count) else { return nil }
        for (offset, bytes) in shown {
            for (index, byte) in bytes.enumerated() where meta.body.contains(offset + index) {
                children[offset + index - meta.body.lowerBound] = byte
            }
        }
        func u32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).bigEndian, Array.init) }
        let pitm = primary <= 0xFFFF ? u32(14) + Array("pitm".utf8) + [0, 0, 0, 0, UInt8(primary >> 8), UInt8(primary & 0xFF)]
            : u32(16) + Array("pitm".utf8) + [1, 0, 0, 0] + u32(primary)
        let appended = u32(8 + children.count + pitm.count) + Array("meta".utf8) + children + pitm
        var replaced: [(offset: Int, bytes: [UInt8])] = [(meta.offset + 4, Array("free".utf8))]
        for box in [meta, lastBox] where box.headerSize == 8 && reader.u32be(at: box.offset) == 0 {
            guard box.size <= Int(UInt32.max) else { return nil }
            replaced.append((box.offset, u32(box.size)))
        }
        return (replaced, appended)
    }
}
