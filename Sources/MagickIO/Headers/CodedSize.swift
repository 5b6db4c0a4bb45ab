/// The picture size a HEIF item's bitstream codes, read from its parameter sets before any codec
/// sees them: what libde265 or dav1d will allocate, whatever the item's `ispe` declares (libheif
/// 1.15 compares the two nowhere; a 96x64 item coding 4096x4096 decoded in 272 MB).
enum CodedSize {
    /// HEVC (`hvcC`, ISO/IEC 14496-15): the luma sizes of the sequence parameter sets among the
    /// configuration's NAL units (none when it holds none), or nil when one cannot be read or the
    /// arrays run past the box. `config` is the box's body.
    static func hevc(_ config: [UInt8]) -> [(width: Int, height: Int)]? {
        guard config.count >= 23 else { return config.isEmpty ? [] : nil }
        var at = 23, sizes: [(width: Int, height: Int)] = []
        for _ in 0..<Int(config[22]) {
            guard at + 3 <= config.count else { return nil }
            let count = config.u16be(at: at + 1)
            at += 3
            for _ in 0..<count {
                guard at + 2 <= config.count else { return nil }
                let length = config.u16be(at: at)
                at += 2
                guard at + length <= config.count else { return nil }
                // libde265 takes a unit by its own header, whatever array it is listed in.
                if length > 2, config[at] >> 1 & 0x3F == 33 {
                    guard let size = hevcSequenceParameterSet(Array(config[at..<at + length])) else { return nil }
                    sizes.append(size)
                }
                at += length
            }
        }
        return sizes
    }

    /// How many NAL units an `hvcC` body lists, counted up to `limit` (its arrays' counts, the
    /// units' lengths walked to find the next array; a count past the box counts as listed).
    static func hevcUnitCount(_ config: [UInt8], upTo limit: Int) -> Int {
        guard config.count >= 23 else { return 0 }
        var at = 23, units = 0
        for _ in 0..<Int(config[22]) where at + 3 <= config.count && units < limit {
            let count = config.u16be(at: at + 1)
            units += count
            at += 3
            for _ in 0..<min(count, limit) where at + 2 <= config.count {
                at += 2 + config.u16be(at: at)
            }
        }
        return units
    }

    /// An HEVC sequence parameter set's luma size (ITU-T H.265 7.3.2.2), from its NAL unit (its
    /// two-byte header first).
    static func hevcSequenceParameterSet(_ nal: [UInt8]) -> (width: Int, height: Int)? {
        guard nal.count > 2 else { return nil }
        var bits = BitReader(rbsp: nal.dropFirst(2))
        guard bits.skip(4), let subLayers = bits.read(3), bits.skip(1),
              bits.skip(88 + 8) else { return nil }  // general profile, tier and level
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<subLayers {
            guard let profile = bits.read(1), let level = bits.read(1) else { return nil }
            profilePresent.append(profile == 1)
            levelPresent.append(level == 1)
        }
        if subLayers > 0, !bits.skip(2 * (8 - subLayers)) { return nil }
        for layer in 0..<subLayers {
            guard bits.skip(profilePresent[layer] ? 88 : 0), bits.skip(levelPresent[layer] ? 8 : 0) else { return nil }
        }
        guard bits.exponentialGolomb() != nil, let chroma = bits.exponentialGolomb(),
              chroma != 3 || bits.skip(1),
              let width = bits.exponentialGolomb(), let height = bits.exponentialGolomb(), width > 0, height > 0 else { return nil }
        return (width, height)
    }

    /// An AV1 OBU header (AV1 5.3.1): its type, its length with the extension byte and the size
    /// field, and the size of its payload when it has that field (else it runs to the end).
    static func obuHeader(_ bytes: [UInt8]) -> (type: Int, headerSize: Int, size: Int?)? {
        guard let first = bytes.first else { return nil }
        let type = Int(first >> 3) & 15, hasExtension = first & 4 != 0, hasSize = first & 2 != 0
        let fixed = hasExtension ? 2 : 1
        guard bytes.count >= fixed else { return nil }
        guard hasSize else { return (type, fixed, nil) }
        guard let (size, used) = leb128(bytes, fixed) else { return nil }
        return (type, fixed + used, size)
    }

    /// The sizes of the sequence headers among `obus` (an `av1C` box's configOBUs), or nil when
    /// one cannot be read or an OBU runs past the end.
    static func av1SequenceHeaders(_ obus: [UInt8]) -> [(width: Int, height: Int)]? {
        var at = 0, sizes: [(width: Int, height: Int)] = []
        while at < obus.count {
            guard let header = obuHeader(Array(obus[at..<min(at + 10, obus.count)])) else { return nil }
            let start = at + header.headerSize, length = header.size ?? (obus.count - start)
            guard length >= 0, length <= obus.count - start else { return nil }
            if header.type == 1 {
                guard let size = av1SequenceHeader(obus[start..<start + length]) else { return nil }
                sizes.append(size)
            }
            at = start + length
        }
        return sizes
    }

    private static func leb128(_ bytes: [UInt8], _ start: Int) -> (Int, Int)? {
        var value = 0
        for index in 0..<8 {
            guard start + index < bytes.count else { return nil }
            let byte = bytes[start + index]
            value |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        return nil
    }

    /// AV1 5.5.1 `sequence_header_obu`: `max_frame_width/height_minus_1 + 1`, from its payload
    /// (its start is enough).
    static func av1SequenceHeader(_ body: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        var bits = BitReader(body)
        guard bits.skip(4), let reduced = bits.read(1) else { return nil }
        if reduced == 1 {
            guard bits.skip(5) else { return nil }
        } else {
            guard let timing = bits.read(1) else { return nil }
            var decoderModel = 0, bufferDelayBits = 0
            if timing == 1 {
                guard bits.skip(64), let equal = bits.read(1), equal == 0 || bits.uvlc() != nil,
                      let model = bits.read(1) else { return nil }
                decoderModel = model
                if model == 1 {
                    guard let delay = bits.read(5), bits.skip(32 + 5 + 5) else { return nil }
                    bufferDelayBits = delay + 1
                }
            }
            guard let displayDelay = bits.read(1), let points = bits.read(5) else { return nil }
            for _ in 0...points {
                guard bits.skip(12), let level = bits.read(5), level <= 7 || bits.skip(1) else { return nil }
                if decoderModel == 1 {
                    guard let present = bits.read(1), present == 0 || bits.skip(2 * bufferDelayBits + 1) else { return nil }
                }
                if displayDelay == 1 {
                    guard let present = bits.read(1), present == 0 || bits.skip(4) else { return nil }
                }
            }
        }
        guard let widthBits = bits.read(4), let heightBits = bits.read(4),
              let width = bits.read(widthBits + 1), let height = bits.read(heightBits + 1) else { return nil }
        return (width + 1, height + 1)
    }
}

/// Bits read most significant first; nil once they run out.
private struct BitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = Array(bytes)
    }

    /// An HEVC RBSP: the NAL unit's payload with its emulation prevention bytes (00 00 03) removed.
    init(rbsp payload: ArraySlice<UInt8>) {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count)
        var zeros = 0
        for byte in payload {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        bytes = out
    }

    mutating func read(_ count: Int) -> Int? {
        guard count >= 0, count <= 32, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - position & 7) & 1)
            position += 1
        }
        return value
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, position + count <= bytes.count * 8 else { return false }
        position += count
        return true
    }

    /// ue(v) of H.265; nil past 32 leading zeros.
    mutating func exponentialGolomb() -> Int? {
        var zeros = 0
        while true {
            guard let bit = read(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            guard zeros <= 31 else { return nil }
        }
        guard let rest = read(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    /// uvlc() of AV1; nil past 32 leading zeros.
    mutating func uvlc() -> Int? {
        exponentialGolomb()
    }
}
