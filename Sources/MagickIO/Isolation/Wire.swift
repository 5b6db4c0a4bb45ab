/// The byte format of what crosses between MagickIO and its decode workers: little-endian 64-bit
/// integers, doubles by their bits, strings and byte runs after their length. The reader checks
/// every length against what is left, so a message from a worker that misbehaves (the worker
/// decodes untrusted bytes, so the host trusts nothing it says) fails to read; it never reads
/// past its buffer or allocates more than the buffer holds.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func put(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes += $0 }
    }

    mutating func put(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    mutating func put(_ value: Double) {
        put(Int(Int64(bitPattern: value.bitPattern)))
    }

    mutating func put(_ value: [UInt8]) {
        put(value.count)
        bytes += value
    }

    mutating func put(_ value: String) {
        put(Array(value.utf8))
    }

    /// An optional, as a presence byte and the value.
    mutating func put<T>(_ value: T?, _ write: (inout WireWriter, T) -> Void) {
        put(value != nil)
        if let value { write(&self, value) }
    }
}

struct WireReader {
    struct Malformed: Error {}

    private let buffer: UnsafeRawBufferPointer
    private var at = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var remaining: Int { buffer.count - at }

    mutating func int() throws(Malformed) -> Int {
        guard remaining >= 8 else { throw Malformed() }
        var value: Int64 = 0
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[at..<at + 8])) }
        at += 8
        return Int(Int64(littleEndian: value))
    }

    /// An integer in `range`.
    mutating func int(in range: ClosedRange<Int>) throws(Malformed) -> Int {
        let value = try int()
        guard range.contains(value) else { throw Malformed() }
        return value
    }

    mutating func bool() throws(Malformed) -> Bool {
        guard remaining >= 1 else { throw Malformed() }
        defer { at += 1 }
        return buffer[at] != 0
    }

    mutating func double() throws(Malformed) -> Double {
        Double(bitPattern: UInt64(bitPattern: Int64(try int())))
    }

    mutating func bytes() throws(Malformed) -> [UInt8] {
        let count = try int(in: 0...remaining)
        defer { at += count }
        return Array(buffer[at..<at + count])
    }

    mutating func string() throws(Malformed) -> String {
        String(decoding: try bytes(), as: UTF8.self)
    }

    /// One of `cases`, by its index.
    mutating func oneOf<T>(_ cases: [T]) throws(Malformed) -> T {
        cases[try int(in: 0...(cases.count - 1))]
    }

    mutating func optional<T>(_ read: (inout WireReader) throws(Malformed) -> T) throws(Malformed) -> T? {
        try bool() ? try read(&self) : nil
    }
}
