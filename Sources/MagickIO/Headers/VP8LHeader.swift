/// What libwebp allocates for the prefix codes of one VP8L stream (a lossless WebP's image or a
/// lossy one's losslessly compressed alpha plane), read from the stream's header up to its
/// entropy image (RFC 9649, "meta prefix codes").
///
/// libwebp (1.2.4 in Debian 12, 1.5 in Debian 13, `ReadHuffmanCodes`) allocates, before it reads
/// a single code, the lookup tables of every prefix code group the entropy image names: `kTableSize`
/// 4-byte entries a group (2,954 without a colour cache, up to 5,004 with 11 cache bits) and a
/// 568-byte `HTreeGroup`. A 1024x1024 stream of 295 KB can name 65,536 groups: 812 MB allocated,
/// 393 MiB of it touched. The groups are the largest index named plus one, or, when that is over
/// 1,000 or over the image's pixels, the distinct indices named.
struct VP8LPrefixCodes: Sendable, Hashable {
    /// The prefix code groups libwebp builds.
    var groups: Int
    /// The colour cache's bits (0 without one): the green code's alphabet and so each table's size.
    var colorCacheBits: Int
    /// The entropy image's pixels, which libwebp keeps while it decodes (0 without one).
    var entropyPixels = 0

    /// No VP8L stream: a lossy picture without a compressed alpha plane.
    static let none = VP8LPrefixCodes(groups: 0, colorCacheBits: 0)

    /// What libwebp allocates for these codes.
    var bytes: Int {
        let table = (Self.fixedTableEntries + Self.greenTableEntries[colorCacheBits]) * 4 + Self.groupStructBytes
        return groups.saturatingTimes(table).saturatingPlus(entropyPixels.saturatingTimes(4))
    }

    /// `kTableSize`: the lookup table entries of a group's red, blue, alpha and distance codes at
    /// their worst (630 three times, 410), and of its green code by the colour cache's bits.
    private static let fixedTableEntries = 630 * 3 + 410
    private static let greenTableEntries = [654, 656, 658, 662, 670, 686, 718, 782, 912, 1168, 1680, 2704]
    /// `sizeof(HTreeGroup)` on a 64-bit build: five table pointers, four ints, 64 packed entries of 8 bytes.
    private static let groupStructBytes = 568

    /// The most a stream of this size can cost (fail closed): an entropy image at its finest (a
    /// group a 4x4 block, at most 65,536; or up to 1,000 named by fewer pixels) and an 11-bit cache.
    static func worstCase(width: Int, height: Int) -> VP8LPrefixCodes {
        let blocks = subsampled(width, 2).saturatingTimes(subsampled(height, 2))
        let groups = max(min(blocks, 1 << 16), min(1000, width.saturatingTimes(height)))
        return VP8LPrefixCodes(groups: groups, colorCacheBits: 11, entropyPixels: blocks)
    }

    /// The codes of the VP8L stream at `offset` of `reader` (after the 5-byte header of a `VP8L`
    /// chunk, or after an `ALPH` chunk's first byte) up to `end`, of a `width` x `height` image;
    /// nil when the stream is damaged, cut short or not as libwebp would accept it.
    static func read(_ reader: ByteReader, from offset: Int, to end: Int, width: Int, height: Int) -> VP8LPrefixCodes? {
        guard width > 0, height > 0 else { return nil }
        var stream = VP8LStreamReader(bits: VP8LBits(reader, from: offset, to: end))
        return stream.level0(width: width, height: height)
    }

    /// `size` divided by 2^`bits`, rounded up (VP8L's sub-image sides).
    static func subsampled(_ size: Int, _ bits: Int) -> Int {
        (size + (1 << bits) - 1) >> bits
    }
}

/// Reads a VP8L stream's transforms and sub-images (RFC 9649, 4 to 6) as libwebp's
/// `DecodeImageStream` does, decoding every sub-image to reach past it; the image's own pixels
/// are never read. Bounded: each sub-image has at most the pixels of its image over 16 (the
/// colour table 256), one decoded with values kept (the entropy image, or one with a colour
/// cache) at most ``maxKeptPixels``.
struct VP8LStreamReader {
    var bits: VP8LBits

    /// The most pixels of a sub-image whose values are kept (16 MiB): past it the reader gives up.
    static let maxKeptPixels = 1 << 22

    mutating func level0(width: Int, height: Int) -> VP8LPrefixCodes? {
        var xsize = width
        var seen = Set<Int>()
        while true {
            guard let more = bits.read(1) else { return nil }
            if more == 0 { break }
            guard let type = bits.read(2), seen.insert(type).inserted else { return nil }
            switch type {
            case 0, 1:  // predictor, cross-colour: a sub-image of a block each
                guard let stored = bits.read(3) else { return nil }
                let block = stored + 2
                guard subImage(width: VP8LPrefixCodes.subsampled(xsize, block),
                               height: VP8LPrefixCodes.subsampled(height, block), keep: false) != nil else { return nil }
            case 3:  // colour indexing: the palette, then pixels packed 2, 4 or 8 to a byte
                guard let stored = bits.read(8) else { return nil }
                let colours = stored + 1
                guard subImage(width: colours, height: 1, keep: false) != nil else { return nil }
                xsize = VP8LPrefixCodes.subsampled(xsize, colours > 16 ? 0 : colours > 4 ? 1 : colours > 2 ? 2 : 3)
            default:  // subtract green
                break
            }
        }
        guard let cacheBits = colorCacheBits(), let meta = bits.read(1) else { return nil }
        guard meta == 1 else { return VP8LPrefixCodes(groups: 1, colorCacheBits: cacheBits) }
        guard let stored = bits.read(3) else { return nil }
        let entropyWidth = VP8LPrefixCodes.subsampled(xsize, stored + 2)
        let entropyHeight = VP8LPrefixCodes.subsampled(height, stored + 2)
        guard let entropy = subImage(width: entropyWidth, height: entropyHeight, keep: true) else { return nil }
        // The group of a block is its pixel's red and green.
        var named = [Bool](repeating: false, count: 1 << 16)
        var largest = 0, distinct = 0
        for pixel in entropy {
            let group = Int(pixel >> 8) & 0xFFFF
            largest = max(largest, group)
            if !named[group] { named[group] = true; distinct += 1 }
        }
        let groups = largest + 1 > 1000 || largest + 1 > xsize.saturatingTimes(height) ? distinct : largest + 1
        return VP8LPrefixCodes(groups: groups, colorCacheBits: cacheBits, entropyPixels: entropy.count)
    }

    /// The colour cache's bits: 0, or 1 to 11.
    private mutating func colorCacheBits() -> Int? {
        guard let used = bits.read(1) else { return nil }
        guard used == 1 else { return 0 }
        guard let cacheBits = bits.read(4), (1...11).contains(cacheBits) else { return nil }
        return cacheBits
    }

    /// Decodes a `width` x `height` sub-image (one group of five codes, no transforms): its pixels
    /// when `keep` (or when a colour cache needs them), else an empty array; nil when it cannot.
    mutating func subImage(width: Int, height: Int, keep: Bool) -> [UInt32]? {
        guard let cacheBits = colorCacheBits() else { return nil }
        let count = width.saturatingTimes(height)
        let keep = keep || cacheBits > 0
        guard !keep || count <= Self.maxKeptPixels else { return nil }
        var codes: [VP8LPrefixCode] = []
        for alphabet in [280 + (cacheBits > 0 ? 1 << cacheBits : 0), 256, 256, 256, 40] {
            guard let code = VP8LPrefixCode.read(&bits, alphabet: alphabet) else { return nil }
            codes.append(code)
        }
        var pixels = [UInt32](repeating: 0, count: keep ? count : 0)
        // Every pixel the same literal in no bits: the rest of the image.
        if let green = codes[0].onlySymbol, green < 256, let red = codes[1].onlySymbol, let blue = codes[2].onlySymbol,
           let alpha = codes[3].onlySymbol {
            let pixel = UInt32(alpha << 24 | red << 16 | green << 8 | blue)
            if keep { pixels = [UInt32](repeating: pixel, count: count) }
            return pixels
        }
        var cache = [UInt32](repeating: 0, count: cacheBits > 0 ? 1 << cacheBits : 0)
        func remember(_ pixel: UInt32) {
            guard cacheBits > 0 else { return }
            cache[Int((pixel &* 0x1E35_A7BD) >> (32 - cacheBits))] = pixel
        }
        var position = 0
        while position < count {
            guard let green = codes[0].decode(&bits) else { return nil }
            if green < 256 {
                guard let red = codes[1].decode(&bits), let blue = codes[2].decode(&bits),
                      let alpha = codes[3].decode(&bits) else { return nil }
                let pixel = UInt32(alpha << 24 | red << 16 | green << 8 | blue)
                if keep { pixels[position] = pixel; remember(pixel) }
                position += 1
            } else if green < 280 {
                guard let length = prefixedValue(green - 256), let symbol = codes[4].decode(&bits),
                      let code = prefixedValue(symbol) else { return nil }
                let distance = Self.distance(code, width: width)
                guard distance <= position, length <= count - position else { return nil }
                if keep {
                    for index in position..<(position + length) {
                        pixels[index] = pixels[index - distance]
                        remember(pixels[index])
                    }
                }
                position += length
            } else {
                let pixel = cache[green - 280]
                pixels[position] = pixel
                remember(pixel)
                position += 1
            }
        }
        return pixels
    }

    /// A backward reference's length or distance code from its prefix symbol and extra bits.
    private mutating func prefixedValue(_ symbol: Int) -> Int? {
        guard symbol >= 4 else { return symbol + 1 }
        let extra = (symbol - 2) >> 1
        guard let more = bits.read(extra) else { return nil }
        return (2 + symbol & 1) << extra + more + 1
    }

    /// The distance a distance code names: codes 1 to 120 are the neighbourhood of the pixel
    /// (RFC 9649, 4.2.2), the rest a distance in pixels, 120 less.
    private static func distance(_ code: Int, width: Int) -> Int {
        guard code <= 120 else { return code - 120 }
        let offset = neighbourhood[code - 1]
        return max(offset.y * width + offset.x, 1)
    }

    private static let neighbourhood: [(x: Int, y: Int)] = [
        (0, 1), (1, 0), (1, 1), (-1, 1), (0, 2), (2, 0), (1, 2), (-1, 2), (2, 1), (-2, 1),
        (2, 2), (-2, 2), (0, 3), (3, 0), (1, 3), (-1, 3), (3, 1), (-3, 1), (2, 3), (-2, 3),
        (3, 2), (-3, 2), (0, 4), (4, 0), (1, 4), (-1, 4), (4, 1), (-4, 1), (3, 3), (-3, 3),
        (2, 4), (-2, 4), (4, 2), (-4, 2), (0, 5), (3, 4), (-3, 4), (4, 3), (-4, 3), (5, 0),
        (1, 5), (-1, 5), (5, 1), (-5, 1), (2, 5), (-2, 5), (5, 2), (-5, 2), (4, 4), (-4, 4),
        (3, 5), (-3, 5), (5, 3), (-5, 3), (0, 6), (6, 0), (1, 6), (-1, 6), (6, 1), (-6, 1),
        (2, 6), (-2, 6), (6, 2), (-6, 2), (4, 5), (-4, 5), (5, 4), (-5, 4), (3, 6), (-3, 6),
        (6, 3), (-6, 3), (0, 7), (7, 0), (1, 7), (-1, 7), (5, 5), (-5, 5), (7, 1), (-7, 1),
        (4, 6), (-4, 6), (6, 4), (-6, 4), (2, 7), (-2, 7), (7, 2), (-7, 2), (3, 7), (-3, 7),
        (7, 3), (-7, 3), (5, 6), (-5, 6), (6, 5), (-6, 5), (8, 0), (4, 7), (-4, 7), (7, 4),
        (-7, 4), (8, 1), (8, 2), (6, 6), (-6, 6), (8, 3), (5, 7), (-5, 7), (7, 5), (-7, 5),
        (8, 4), (6, 7), (-6, 7), (7, 6), (-7, 6), (8, 5), (7, 7), (-7, 7), (8, 6), (8, 7),
    ]
}
