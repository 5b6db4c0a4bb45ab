/// The picture size a HEIF item's bitstream codes, read from its parameter sets before any codec
/// sees them: what libde265 or dav1d will allocate, whatever the item's `ispe` declares (libheif
/// 1.15 compares the two nowhere; a 96x64 item coding 4096x4096 decoded in 272 MB).
enum CodedSize {
    /// HEVC (`hvcC`, ISO/IEC 14496-15): the largest `pic_width/height_in_luma_samples` of the
    /// sequence parameter sets in the configuration's NAL unit arrays, or nil when it holds none
    /// that can be read. `config` is the box's body.
    static func hevc(_ config: [UInt8]) -> (width: Int, height: Int)? {
        guard config.count >= 23 else { return nil }
        var at = 23, largest: (width: Int, height: Int)?
        for _ in 0..<Int(config[22]) {
            guard at + 3 <= config.count else { break }
            let type = config[at] & 0x3F, count = Int(config[at + 1]) << 8 | Int(config[at + 2])
            at += 3
            for _ in 0..<count {
                guard at + 2 <= config.count else { return largest }
                let length = Int(config[at]) << 8 | Int(config[at + 1])
                at += 2
                guard at + length <= config.count else { return largest }
                if type == 33, let size = spsSize(Array(config[at..<at + length])) {
                    largest = (max(largest?.width ?? 0, size.width), max(largest?.height ?? 0, size.height))
                }
                at += length
            }
        }
        return largest
    }

    /// An HEVC sequence parameter set's luma size (ITU-T H.265 7.3.2.2), from its NAL unit.
    private static func spsSize(_ nal: [UInt8]) -> (width: Int, height: Int)? {
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

    /// AV1: `max_frame_width/height_minus_1 + 1` of the first sequence header OBU in `obus` (the
    /// `av1C` box's configOBUs, or the start of the item's data), or nil when none can be read.
    static func av1(_ obus: [UInt8]) -> (width: Int, height: Int)? {
        var at = 0
        while at < obus.count {
            let header = obus[at]
            let type = Int(header >> 3) & 15, hasExtension = header & 4 != 0, hasSize = header & 2 != 0
            at += hasExtension ? 2 : 1
            var length = obus.count - at
            if hasSize {
                guard let (size, used) = leb128(obus, at) else { return nil }
                length = size
                at += used
            }
            guard at <= obus.count, length <= obus.count - at else {
                // Only the start of the item's data was read: a sequence header is short.
                return type == 1 ? sequenceHeaderSize(obus[at...]) : nil
            }
            if type == 1 { return sequenceHeaderSize(obus[at..<at + length]) }
            at += length
        }
        return nil
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

    /// AV1 5.5.1 `sequence_header_obu`, up to the maximum frame size.
    private static func sequenceHeaderSize(_ body: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
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
