/// The bits of a VP8L bitstream (RFC 9649), least significant bit of each byte first, read from a
/// source's bytes up to `end`; a read past it answers nil.
struct VP8LBits {
    private var reader: ByteReader
    private let end: Int
    private var next: Int
    private var buffer: UInt64 = 0
    private var available = 0

    init(_ reader: ByteReader, from offset: Int, to end: Int) {
        self.reader = reader
        self.next = offset
        self.end = min(end, reader.count)
    }

    private mutating func refill() {
        while available <= 56, next < end, let byte = reader.u8(at: next) {
            buffer |= UInt64(byte) << available
            available += 8
            next += 1
        }
    }

    /// The next `count` bits (at most 24) as a number, the first bit read its lowest.
    mutating func read(_ count: Int) -> Int? {
        if available < count { refill() }
        guard available >= count else { return nil }
        let value = Int(buffer & ((1 << count) - 1))
        buffer >>= count
        available -= count
        return value
    }

    /// The next `count` bits without taking them; zeros past the end.
    mutating func peek(_ count: Int) -> Int {
        if available < count { refill() }
        return Int(buffer & ((1 << count) - 1))
    }

    /// Takes `count` bits already peeked; false past the end.
    mutating func skip(_ count: Int) -> Bool {
        guard available >= count else { return false }
        buffer >>= count
        available -= count
        return true
    }
}

/// One canonical prefix code of a VP8L stream, read as libwebp's `ReadHuffmanCode` reads it and
/// accepted where it accepts it: a code of one symbol (0 bits), or a complete code of lengths up
/// to 15. Decoded through a table of the longest code's bits.
struct VP8LPrefixCode {
    private var single: Int?
    private var table: [UInt32] = []
    private var longest = 0

    /// The order the code length code's lengths are stored in.
    private static let lengthOrder = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]

    /// Reads a code over `alphabet` symbols; nil where libwebp refuses it or the bits end.
    static func read(_ bits: inout VP8LBits, alphabet: Int) -> VP8LPrefixCode? {
        var lengths = [Int](repeating: 0, count: alphabet)
        guard let simple = bits.read(1) else { return nil }
        if simple == 1 {
            // One or two symbols: the first of 1 or 8 bits, the second of 8; a symbol past the
            // alphabet is dropped (libwebp writes it where the code does not look).
            guard let two = bits.read(1), let wide = bits.read(1), let first = bits.read(wide == 1 ? 8 : 1) else { return nil }
            if first < alphabet { lengths[first] = 1 }
            if two == 1 {
                guard let second = bits.read(8) else { return nil }
                if second < alphabet { lengths[second] = 1 }
            }
        } else {
            guard let stored = bits.read(4) else { return nil }
            var codeLengthLengths = [Int](repeating: 0, count: 19)
            for index in 0..<(stored + 4) {
                guard let length = bits.read(3) else { return nil }
                codeLengthLengths[lengthOrder[index]] = length
            }
            guard let lengthCode = build(codeLengthLengths), lengthCode.readLengths(&bits, into: &lengths) else { return nil }
        }
        return build(lengths)
    }

    /// The code lengths of a normal code, coded by this code length code: literals 0-15, 16
    /// repeating the last non-zero length (8 before any), 17 and 18 runs of zeros; an optional
    /// count of the lengths stored first.
    private func readLengths(_ bits: inout VP8LBits, into lengths: inout [Int]) -> Bool {
        guard let counted = bits.read(1) else { return false }
        var left = lengths.count
        if counted == 1 {
            guard let width = bits.read(3), let stored = bits.read(2 + 2 * width) else { return false }
            left = stored + 2
            guard left <= lengths.count else { return false }
        }
        var symbol = 0, previous = 8
        while symbol < lengths.count, left > 0 {
            left -= 1
            guard let code = decode(&bits) else { return false }
            if code < 16 {
                lengths[symbol] = code
                symbol += 1
                if code != 0 { previous = code }
                continue
            }
            let (extra, offset) = [(2, 3), (3, 3), (7, 11)][code - 16]
            guard let more = bits.read(extra), symbol + more + offset <= lengths.count else { return false }
            for _ in 0..<(more + offset) {
                lengths[symbol] = code == 16 ? previous : 0
                symbol += 1
            }
        }
        return true
    }

    /// The code of these lengths, or nil when none is non-zero or more than one is and they do
    /// not make a complete code.
    private static func build(_ lengths: [Int]) -> VP8LPrefixCode? {
        var counts = [Int](repeating: 0, count: 16)
        for length in lengths where length > 0 { counts[length] += 1 }
        let used = counts.reduce(0, +)
        guard used > 0 else { return nil }
        if used == 1 { return VP8LPrefixCode(single: lengths.firstIndex { $0 > 0 }) }
        // Complete: the lengths fill the code space exactly (Kraft's sum is 1).
        let space = (1...15).reduce(0) { $0 + counts[$1] << (15 - $1) }
        guard space == 1 << 15 else { return nil }
        let longest = counts.lastIndex { $0 > 0 } ?? 0
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1...15 {
            code = (code + counts[length - 1]) << 1
            next[length] = code
        }
        next[0] = 0
        var table = [UInt32](repeating: 0, count: 1 << longest)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            // Codes are stored first bit first; the table is indexed by the bits as read.
            var reversed = 0, value = next[length]
            next[length] += 1
            for _ in 0..<length {
                reversed = reversed << 1 | value & 1
                value >>= 1
            }
            var index = reversed
            while index < table.count {
                table[index] = UInt32(symbol << 4 | length)
                index += 1 << length
            }
        }
        return VP8LPrefixCode(single: nil, table: table, longest: longest)
    }

    /// The symbol of one code in the bits; a one-symbol code takes none.
    func decode(_ bits: inout VP8LBits) -> Int? {
        if let single { return single }
        let entry = Int(table[bits.peek(longest)])
        guard bits.skip(entry & 15) else { return nil }
        return entry >> 4
    }

    /// The one symbol of a code that takes no bits.
    var onlySymbol: Int? { single }
}
