/// An 8-bit HEVC primary image without alpha, whose planar RGB libheif 1.15 makes before it
/// interleaves (``HEIFRows``): what its decode holds at its peak.
struct HEIFPlanarImage: Sendable, Hashable {
    /// The `hvcC` chroma format: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    var chroma: Int
    /// Whether an `irot` or a `clap` makes libheif copy the RGB planes (`imir` mirrors in place).
    var copied: Bool
}

extension HEIFItems {
    /// The primary image `item` as ``HEIFPlanarImage`` when it is an HEVC image of 8-bit samples
    /// (its `hvcC`) with no alpha image; nil otherwise.
    func planarImage(of item: Int, _ reader: inout ByteReader) -> HEIFPlanarImage? {
        guard unreadable == nil, items[item]?.type == "hvc1", let hvcC = property("hvcC", of: item), hvcC.body.count >= 19,
              let format = reader.bytes(at: hvcC.body.lowerBound + 16, 3), format.count == 3,
              Array(format).dropFirst().allSatisfy({ $0 & 7 == 0 }),
              !referring("auxl", to: item).contains(where: { isAlpha($0, &reader) }) else { return nil }
        let copied = transforms(of: item).contains { $0.type == "clap" || ($0.type == "irot" && reader.u8(at: $0.body.lowerBound).map { $0 & 3 != 0 } ?? true) }
        return HEIFPlanarImage(chroma: Int(format[format.startIndex] & 3), copied: copied)
    }
}
