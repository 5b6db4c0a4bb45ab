/// What a HEIF file's transformative properties do to an image's size, read from its boxes.
///
/// libheif 1.15 turns (`irot`), mirrors (`imir`) and crops (`clap`) an image as it decodes it, each
/// in the order the item lists them. The size its handle reports applies them only when they are
/// listed after the item's `ispe`: libavif lists them before it (Link-U's `kimono.rotate90.avif`
/// is stored 1024x722, decodes to 722x1024, and libheif's handle says 1024x722). MagickIO takes
/// the size the decode gives, read here.
///
/// libheif 1.15's own encoder lists them before `ispe` too, but writes the size as shown there
/// (the fixtures of scripts/heif-fixture.c: a 64x96 picture turned a quarter declares 96x64); its
/// reader sizes those right. The two are told apart by the picture the codec makes: the declared
/// size is taken as stored when its shape is that picture's, and as shown when it is the other way
/// round.
extension HEIFItems {
    /// The size `item` decodes to: its declared size (`ispe`) as stored, then each `clap` and
    /// `irot` in the order the item lists them, cropped and turned as libheif 1.15 does; nil
    /// without an `ispe` or with a clean aperture libheif cannot apply (a zero denominator,
    /// nothing left).
    func shownSize(of item: Int, _ reader: inout ByteReader) -> ImageSize? {
        guard let declared = declaredSize(of: item, &reader) else { return nil }
        var size = ImageSize(width: declared.width, height: declared.height)
        let type = items[item]?.type ?? ""
        let picture = type == "grid" || type == "iovl" ? canvasSize(of: item, type: type, &reader) : codedSize(of: item, type: type, &reader)
        if let picture, picture.width != picture.height, size.width != size.height,
           (picture.width > picture.height) != (size.width > size.height) {
            size = ImageSize(width: size.height, height: size.width)  // declared as shown: back to as stored
        }
        return transformed(size, by: transforms(of: item), &reader)
    }

    /// The transformative properties (`irot`, `imir`, `clap`) of `item`, in the order it lists
    /// them: the order libheif 1.15 applies them in.
    func transforms(of item: Int) -> [Property] {
        (items[item]?.properties ?? []).compactMap { index in
            guard index >= 1, index <= properties.count, ["irot", "imir", "clap"].contains(properties[index - 1].type) else { return nil }
            return properties[index - 1]
        }
    }

    /// `size` turned and cropped by `transforms` (``transforms(of:)``) as libheif 1.15 does; nil
    /// for a clean aperture it cannot apply or a property it cannot read.
    func transformed(_ size: ImageSize, by transforms: [Property], _ reader: inout ByteReader) -> ImageSize? {
        var size = size
        for property in transforms {
            switch property.type {
            case "irot":
                guard let angle = reader.u8(at: property.body.lowerBound) else { return nil }
                if angle & 1 == 1 { size = ImageSize(width: size.height, height: size.width) }
            case "clap":
                guard property.body.count >= 32, let fields = reader.bytes(at: property.body.lowerBound, 32),
                      let cropped = Self.cleanAperture(fields, of: size) else { return nil }
                size = ImageSize(width: cropped.width, height: cropped.height)
            default:
                continue
            }
        }
        return size
    }

    /// The part of `size` a `clap` body (width, height, horizontal and vertical offsets of the
    /// centre, each a fraction of 32-bit numerator and denominator) keeps, as libheif 1.15's decode
    /// cuts it: the left and top edges rounded down, the far edges a rounded width or height
    /// beyond them, both clamped to the picture.
    static func cleanAperture(_ fields: [UInt8], of size: ImageSize) -> (x: Int, y: Int, width: Int, height: Int)? {
        func fraction(_ index: Int, signed: Bool) -> Double? {
            let numerator = fields.u32be(at: index * 8), denominator = fields.u32be(at: index * 8 + 4)
            guard denominator != 0 else { return nil }
            return Double(signed ? Int(Int32(truncatingIfNeeded: numerator)) : numerator) / Double(denominator)
        }
        guard let width = fraction(0, signed: false), let height = fraction(1, signed: false),
              let horizontal = fraction(2, signed: true), let vertical = fraction(3, signed: true) else { return nil }
        func side(_ extent: Double, centre offset: Double, of whole: Int) -> (from: Int, count: Int)? {
            let first = (offset + Double(whole - 1) / 2 - (extent - 1) / 2).rounded(.down)
            let last = first + (extent - 1).rounded()
            guard first.isFinite, last.isFinite else { return nil }
            let from = max(first, 0), to = min(last, Double(whole - 1))
            return to >= from ? (Int(from), Int(to - from) + 1) : nil
        }
        guard let columns = side(width, centre: horizontal, of: size.width),
              let rows = side(height, centre: vertical, of: size.height) else { return nil }
        return (columns.from, rows.from, columns.count, rows.count)
    }
}
