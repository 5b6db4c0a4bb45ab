internal import CResample

/// Converts decoders' samples to the resampler's floats (0...1).
enum SampleConversion {
    /// 8-bit samples to floats 0...1 (`x * (1 / 255)`).
    static func convert(_ bytes: UnsafePointer<UInt8>, count: Int, into row: UnsafeMutablePointer<Float>) {
        mio_rs_unit8(bytes, row, count)
    }

    /// Native-endian 16-bit samples to floats 0...1.
    static func convert(_ samples: UnsafePointer<UInt16>, count: Int, into row: UnsafeMutablePointer<Float>) {
        mio_rs_unit16(samples, row, count)
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
