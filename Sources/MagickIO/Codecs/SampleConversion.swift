/// Converts decoders' samples to the resampler's floats (0...1).
enum SampleConversion {
    /// 8-bit samples to floats 0...1 (a table: exact, and as fast as the arithmetic).
    static let unit8: [Float] = (0..<256).map { Float($0) / 255 }

    static func convert(_ bytes: UnsafePointer<UInt8>, count: Int, into row: UnsafeMutablePointer<Float>) {
        unit8.withUnsafeBufferPointer { table in
            var i = 0
            while i < count {
                row[i] = table[Int(bytes[i])]
                i += 1
            }
        }
    }

    /// Native-endian 16-bit samples to floats 0...1.
    static func convert(_ samples: UnsafePointer<UInt16>, count: Int, into row: UnsafeMutablePointer<Float>) {
        var i = 0
        while i < count {
            row[i] = Float(samples[i]) * (1 / 65535)
            i += 1
        }
    }

    /// A decoder's raw row of `count` samples, 8-bit or native-endian 16-bit (`bytesPerSample` 1
    /// or 2), to floats 0...1.
    static func convert(_ raw: UnsafeRawPointer, bytesPerSample: Int, count: Int, into row: UnsafeMutablePointer<Float>) {
        if bytesPerSample == 2 {
            convert(raw.assumingMemoryBound(to: UInt16.self), count: count, into: row)
        } else {
            convert(raw.assumingMemoryBound(to: UInt8.self), count: count, into: row)
        }
    }
}
