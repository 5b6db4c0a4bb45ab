// What libheif 1.15 does to decode an item, from the items HEIFItems read (see its notes): the
// pictures the decode makes and what it must not be asked to decode.

extension HEIFItems {
    /// The item types libheif 1.15 decodes: coded with a codec, or derived from other items.
    private static let codedTypes: Set<String> = ["hvc1", "av01"]
    private static let derivedTypes: Set<String> = ["grid", "iovl", "iden"]
    /// Item types of codecs libheif 1.15 has no decoder for, and the codecs' names.
    private static let otherCodecs: [String: String] = [
        "avc1": "H.264/AVC", "unci": "uncompressed (ISO/IEC 23001-17)", "j2k1": "JPEG 2000", "jpeg": "JPEG",
        "vvc1": "H.266/VVC", "evc1": "EVC", "lhv1": "layered HEVC", "mski": "mask",
    ]

    /// What libheif does to decode an item: the item, its inputs (a grid's tiles, an overlay's
    /// images, an identity's source) and every alpha image of any of them (see the type's notes).
    struct Inspection: Equatable {
        /// Why libheif must not be asked at all: an item no codec can decode (no coded data, an
        /// unknown type), or whose picture size cannot be read.
        var problem: String?
        /// Whether the problem is a valid file MagickIO cannot decode (a codec libheif 1.15 has
        /// none for, a structure it decodes wrong) rather than a damaged one.
        var unsupported = false
        /// The pixels of the largest picture the decode makes: each codec's picture as its
        /// bitstream codes it, each grid's or overlay's canvas as its data gives it. (The decode
        /// holds a canvas and a tile, or an image and its alpha image, at once: the cost model's
        /// bytes a pixel count that for pictures of the declared size.)
        var largestPicture = 0
    }

    func inspect(decoding item: Int, _ reader: inout ByteReader) -> Inspection {
        var inspection = Inspection()
        if let unreadable {
            inspection.problem = unreadable
            return inspection
        }
        var walk = Walk()
        do {
            inspection.largestPicture = try pixels(of: item, &walk, depth: 0, &reader)
        } catch {
            inspection.problem = error.reason
            inspection.unsupported = error.unsupported
        }
        return inspection
    }

    /// What one inspection has seen: the items, the sizes each configuration property gives
    /// (tiles share one), and how many NAL units or OBUs it may still walk.
    private struct Walk {
        var seen: Set<Int> = []
        var configured: [Int: [(width: Int, height: Int)]] = [:]
        var units = HEIFItems.maxUnits
    }

    private struct Refusal: Error {
        var reason: String
        var unsupported = false
    }

    /// The pixels of the largest picture decoding `item` makes (``Inspection/largestPicture``),
    /// or why it cannot be known.
    private func pixels(of item: Int, _ walk: inout Walk, depth: Int, _ reader: inout ByteReader) throws(Refusal) -> Int {
        guard depth < 16, walk.seen.count <= Limits.items else { throw Refusal(reason: "the HEIF items nest too deep") }
        guard walk.seen.insert(item).inserted else { return 0 }  // libheif refuses a cycle; an input twice costs once
        let type = items[item]?.type ?? ""
        // A predictively coded item ('pred', ISO/IEC 23008-12): its data decodes only after the
        // items it refers to, and libheif 1.15 decodes it alone, into noise.
        if let reference = referenced("pred", from: item).first {
            throw Refusal(reason: "the HEIF item \(item) is coded by prediction from item \(reference), which libheif 1.15 does not decode",
                          unsupported: true)
        }
        var own: Int
        if Self.codedTypes.contains(type) {
            guard (items[item]?.dataLength ?? 0) > 0 else {
                throw Refusal(reason: "the HEIF item \(item) (\(type)) has no coded data")
            }
            let coded = try codedSize(of: item, type: type, &walk, &reader)
            own = coded.width.saturatingTimes(coded.height)
        } else if Self.derivedTypes.contains(type) {
            var inputs = 0
            for input in referenced("dimg", from: item) {
                // A tile of two derived images (libavif's color_grid_alpha_grid_tile_shared_in_dimg.avif,
                // which libavif refuses): libheif 1.15 decodes it into the wrong one.
                if let other = referring("dimg", to: input).first(where: { $0 != item && Self.derivedTypes.contains(items[$0]?.type ?? "") }) {
                    throw Refusal(reason: "the HEIF item \(input) is an input of two derived images (\(item) and \(other)), which libavif refuses and libheif 1.15 decodes wrong",
                                  unsupported: true)
                }
                inputs = max(inputs, try pixels(of: input, &walk, depth: depth + 1, &reader))
            }
            if type == "iden" {
                own = inputs
            } else {
                guard let canvas = canvasSize(of: item, type: type, &reader) else {
                    throw Refusal(reason: "the HEIF \(type) item \(item) has no readable output size")
                }
                own = max(canvas.width.saturatingTimes(canvas.height), inputs)
            }
        } else if let codec = Self.otherCodecs[type] {
            throw Refusal(reason: "the HEIF item \(item) is coded in \(codec) (\(type)), which libheif 1.15 does not decode", unsupported: true)
        } else {
            throw Refusal(reason: "the HEIF item \(item) is of a type libheif does not decode (\(type.isEmpty ? "none" : type))")
        }
        // libheif decodes an image's alpha image with it (an auxiliary image of another kind, a
        // depth map, is counted too; one no codec decodes cannot be an alpha image).
        for alpha in referring("auxl", to: item) where Self.codedTypes.union(Self.derivedTypes).contains(items[alpha]?.type ?? "") {
            own = max(own, try pixels(of: alpha, &walk, depth: depth + 1, &reader))
        }
        return own
    }

    /// The picture size an `hvc1` or `av01` item's bitstream codes (``CodedSize``): the largest of
    /// its configuration's parameter sets (`hvcC`, `av1C`, which libheif requires) and those in
    /// its data, which the codec reads after them.
    func codedSize(of item: Int, type: String, _ reader: inout ByteReader) -> (width: Int, height: Int)? {
        var walk = Walk()
        return try? codedSize(of: item, type: type, &walk, &reader)
    }

    private func codedSize(of item: Int, type: String, _ walk: inout Walk, _ reader: inout ByteReader) throws(Refusal) -> (width: Int, height: Int) {
        let hevc = type == "hvc1", configType = hevc ? "hvcC" : "av1C"
        func unreadable(_ what: String) -> Refusal {
            Refusal(reason: "the HEIF item \(item) (\(type)) has \(what)")
        }
        guard let configIndex = propertyIndices(configType, of: item).first else { throw unreadable("no \(configType) property") }
        var sizes: [(width: Int, height: Int)]
        if let known = walk.configured[configIndex] {
            sizes = known
        } else {
            let body = properties[configIndex - 1].body
            guard let config = reader.bytes(at: body.lowerBound, body.count),
                  let configured = hevc ? CodedSize.hevc(config) : config.count <= 4 ? [] : CodedSize.av1SequenceHeaders(Array(config[4...]))
            else { throw unreadable("a \(configType) MagickIO cannot read") }
            walk.configured[configIndex] = configured
            sizes = configured
        }
        guard let inBand = hevc ? hevcParameterSets(item, &walk.units, &reader) : av1SequenceHeaders(item, &walk.units, &reader) else {
            throw unreadable(walk.units <= 0 ? "more coded units than MagickIO checks (\(Self.maxUnits) a file)"
                                             : "coded data MagickIO cannot walk")
        }
        sizes += inBand
        guard let width = sizes.map(\.width).max(), let height = sizes.map(\.height).max() else {
            throw unreadable("no \(hevc ? "sequence parameter set" : "sequence header")")
        }
        return (width, height)
    }

    /// The most NAL units or OBUs one inspection walks in the items' data (a tile has a few); a
    /// file with more is refused.
    private static let maxUnits = 1 << 16

    /// The sizes of the sequence parameter sets among an HEVC item's NAL units, or nil when the
    /// data cannot be walked or `units` runs out. libheif's libde265 plugin reads each unit after
    /// a 4-byte length, whatever the configuration's length size says.
    private func hevcParameterSets(_ item: Int, _ units: inout Int, _ reader: inout ByteReader) -> [(width: Int, height: Int)]? {
        let total = items[item]?.dataLength ?? 0
        var at = 0, sizes: [(width: Int, height: Int)] = []
        while at < total {
            units -= 1
            guard units >= 0, let prefix = data(of: item, from: at, min(5, total - at), &reader), prefix.count == 5 else { return nil }
            let length = prefix.u32be(at: 0)
            if prefix[4] >> 1 & 0x3F == 33 {
                guard let nal = data(of: item, from: at + 4, min(length, 1024), &reader),
                      let size = CodedSize.hevcSequenceParameterSet(nal) else { return nil }
                sizes.append(size)
            }
            at = at.saturatingPlus(4).saturatingPlus(length)
        }
        return sizes
    }

    /// The sizes of the sequence headers among an AV1 item's OBUs, or nil when the data cannot be
    /// walked or `units` runs out.
    private func av1SequenceHeaders(_ item: Int, _ units: inout Int, _ reader: inout ByteReader) -> [(width: Int, height: Int)]? {
        let total = items[item]?.dataLength ?? 0
        var at = 0, sizes: [(width: Int, height: Int)] = []
        while at < total {
            units -= 1
            guard units >= 0, let head = data(of: item, from: at, min(10, total - at), &reader),
                  let obu = CodedSize.obuHeader(head) else { return nil }
            let length = obu.size ?? (total - at - obu.headerSize)
            if obu.type == 1 {
                guard let body = data(of: item, from: at + obu.headerSize, min(length, 256), &reader),
                      let size = CodedSize.av1SequenceHeader(body[...]) else { return nil }
                sizes.append(size)
            }
            at = at.saturatingPlus(obu.headerSize).saturatingPlus(length)
        }
        return sizes
    }

    /// The output size a grid (`ImageGrid`) or an overlay (`ImageOverlay`) item's data declares:
    /// version, flags (bit 0: 32-bit sizes), then the rows and columns (grid) or four 16-bit fill
    /// values (overlay), then the width and height.
    func canvasSize(of item: Int, type: String, _ reader: inout ByteReader) -> (width: Int, height: Int)? {
        let skip = type == "grid" ? 2 : 8
        guard let head = data(of: item, 2, &reader) else { return nil }
        let size = head[1] & 1 == 1 ? 4 : 2
        guard var fields = data(of: item, 2 + skip + 2 * size, &reader).map(HEIFFields.init), fields.skip(2 + skip),
              let width = fields.take(size), let height = fields.take(size) else { return nil }
        return (width, height)
    }
}
