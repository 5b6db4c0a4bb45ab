/// ISO base media file format boxes (HEIC, AVIF): size, type, and a 64-bit size when the size is
/// 1, or the rest of the enclosing range when it is 0. Each box must fit in its parent.
enum ISOBMFFBoxes {
    struct Box {
        var type: String
        var offset: Int
        /// Size and type, and the 64-bit size when there is one.
        var headerSize: Int
        var size: Int

        /// Where the box's body lies.
        var body: Range<Int> { (offset + headerSize)..<(offset + size) }
    }

    /// Hands each box in `range` to `visit`, at most `limit` of them; stops at a box that does not
    /// fit. Returns how many it handed over.
    @discardableResult
    static func walk(_ reader: inout ByteReader, in range: Range<Int>, limit: Int = .max, visit: (inout ByteReader, Box) -> Void) -> Int {
        var offset = range.lowerBound, visited = 0
        while visited < limit, offset + 8 <= range.upperBound, let size32 = reader.u32be(at: offset), let type = reader.bytes(at: offset + 4, 4) {
            var size = size32, headerSize = 8
            if size == 1 {
                guard let high = reader.u32be(at: offset + 8), let low = reader.u32be(at: offset + 12) else { return visited }
                size = high << 32 | low
                headerSize = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= headerSize, size <= range.upperBound - offset else { return visited }
            visit(&reader, Box(type: String(decoding: type, as: UTF8.self), offset: offset, headerSize: headerSize, size: size))
            visited += 1
            offset += size
        }
        return visited
    }

    /// The brands of the `ftyp` box that opens the file: its major brand, then the compatible ones
    /// that lie wholly in the box, as far as the reader reaches (at most 63); none when the file
    /// does not open with `ftyp`. ``ImageFormat/sniff(_:)`` and the HEIF readers read them here.
    static func brands(_ reader: inout ByteReader) -> [String] {
        guard reader.bytes(at: 4, 4) == Array("ftyp".utf8), let size = reader.u32be(at: 0),
              let major = reader.bytes(at: 8, 4) else { return [] }
        var brands = [String(decoding: major, as: UTF8.self)]
        // The minor version lies at 12.
        for offset in stride(from: 16, through: min(size, 8 + 4 * 64) - 4, by: 4) {
            guard let brand = reader.bytes(at: offset, 4) else { break }
            brands.append(String(decoding: brand, as: UTF8.self))
        }
        return brands
    }

    /// The brands that make a file AVIF for ``ImageFormat/sniff(_:)``: AVIF's still and sequence brands.
    static let avifBrands: Set<String> = ["avif", "avis"]
    /// The brands that make a file HEIC for ``ImageFormat/sniff(_:)`` (when none is AVIF's): HEVC's
    /// image and sequence brands, and the MIAF structural brands.
    static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
    /// The brands that make a file an image sequence (ISO/IEC 23008-12 `msf1`, HEVC's `hevs`,
    /// AVIF's `avis`), which libheif 1.15 does not read.
    static let sequenceBrands: Set<String> = ["avis", "msf1", "hevs"]
    /// The compatible brands libheif 1.15 opens a file for.
    static let stillBrands: Set<String> = ["heic", "heix", "mif1", "avif", "jpeg"]
}
