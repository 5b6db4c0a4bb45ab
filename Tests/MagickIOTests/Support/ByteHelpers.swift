import Dispatch
import Foundation
import Synchronization
import Testing
@testable import MagickIO
import Glibc

// MARK: - Small helpers

/// SplitMix64: a tiny, fixed PRNG, so that the corpus is the same on every run and machine.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// FNV-1a of a string: a stable seed per fixture (Swift's `hashValue` changes between runs).
func fnv1a(_ text: String) -> UInt64 {
    text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
}

/// The CRC-32 of PNG chunks (and zlib).
func crc32<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

func be32(_ value: Int) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}

func put16be(_ bytes: inout [UInt8], _ at: Int, _ value: Int) {
    bytes[at] = UInt8(truncatingIfNeeded: value >> 8)
    bytes[at + 1] = UInt8(truncatingIfNeeded: value)
}

func put16le(_ bytes: inout [UInt8], _ at: Int, _ value: Int) {
    bytes[at] = UInt8(truncatingIfNeeded: value)
    bytes[at + 1] = UInt8(truncatingIfNeeded: value >> 8)
}

func put32be(_ bytes: inout [UInt8], _ at: Int, _ value: Int) {
    bytes.replaceSubrange(at..<at + 4, with: be32(value))
}

func put32le(_ bytes: inout [UInt8], _ at: Int, _ value: Int) {
    bytes.replaceSubrange(at..<at + 4, with: be32(value).reversed())
}
