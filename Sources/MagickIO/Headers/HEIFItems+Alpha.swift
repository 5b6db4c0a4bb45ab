// The alpha image of a HEIF item as the files' writers mean it, where libheif 1.15 leaves it out.
//
// libheif 1.15 attaches an alpha image to its master only when the two sizes it reads before
// decoding (each `ispe` with the transforms listed after it) are the same. So it drops the alpha
// of an image whose alpha item has no `ispe` (cavif-rs before its fix: libavif's
// alpha_noispe.avif) and of a turned image whose alpha item does not repeat the `irot` (libavif
// before 1.3.1: abc_color_irot_alpha_NOirot.avif, a translucent background shown opaque). libavif
// decodes both with their alpha: an alpha item without transforms of its own lies as the colour
// image is stored, and the colour image's transforms turn both.

extension HEIFItems {
    /// The `auxC` types libheif 1.15 takes for an alpha image.
    private static let alphaTypes: Set<String> = [
        "urn:mpeg:avc:2015:auxid:1", "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha",
    ]

    /// An alpha image MagickIO decodes itself: its item, and the transforms that line it up with
    /// its master image as shown (the master's, when it lists none of its own; else none, as
    /// libheif applies its own).
    struct DetachedAlpha {
        var item: Int
        var transforms: [Property]
    }

    /// The alpha image of `item` when libheif 1.15 leaves it out (see the file's notes) and its
    /// picture, lined up, is the size of `item`'s as shown; nil otherwise. The decode's cost is
    /// counted already: ``inspect(decoding:_:)`` counts every `auxl` image of an item.
    func detachedAlpha(of item: Int, _ reader: inout ByteReader) -> DetachedAlpha? {
        guard let alpha = referring("auxl", to: item).first(where: { isAlpha($0, &reader) }),
              let shown = shownSize(of: item, &reader) else { return nil }
        let type = items[alpha]?.type ?? ""
        let picture = type == "grid" || type == "iovl" ? canvasSize(of: alpha, type: type, &reader)
            : codedSize(of: alpha, type: type, &reader)
        guard let stored = declaredSize(of: alpha, &reader) ?? picture else { return nil }
        let own = transforms(of: alpha)
        let lining = own.isEmpty ? transforms(of: item) : []
        guard transformed(ImageSize(width: stored.width, height: stored.height), by: own.isEmpty ? lining : own, &reader) == shown
        else { return nil }
        return DetachedAlpha(item: alpha, transforms: lining)
    }

    /// Whether `item` is an auxiliary image whose `auxC` says alpha.
    func isAlpha(_ item: Int, _ reader: inout ByteReader) -> Bool {
        guard let auxC = property("auxC", of: item), auxC.body.count > 4,
              let urn = reader.bytes(at: auxC.body.lowerBound + 4, min(auxC.body.count - 4, 64)) else { return false }
        return Self.alphaTypes.contains(String(decoding: urn.prefix { $0 != 0 }, as: UTF8.self))
    }
}
