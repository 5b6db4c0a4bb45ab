import CTestCodecs
import Foundation

/// A TIFF whose pixels are wide while the image is small: RGB plus `extraSamples` unspecified
/// extra samples, every one a 64-bit float, in one deflate strip of zeros. ImageMagick's TIFF
/// coder reads a strip into a buffer of twice the strip's size (`ReadStripMethod`: 1 GiB for the
/// default 2000x2000 with 13 extra samples, 128 bytes a pixel), which a header-only cost model
/// that counts a few bytes a pixel does not see; the file is about 500 KB.
enum WideSampleTIFF {
    static func cached(width: Int = 2000, height: Int = 2000, extraSamples: Int = 13) throws -> URL {
        try LargeImages.cached("wide-samples-\(width)x\(height)+\(extraSamples).tif") { url in
            try write(to: url, width: width, height: height, extraSamples: extraSamples)
        }
    }

    static func write(to url: URL, width: Int, height: Int, extraSamples: Int) throws {
        let samples = 3 + extraSamples
        let strip = try deflatedZeros(rows: height, rowBytes: width * samples * 8)
        var file = [UInt8]()
        func u16(_ v: Int) { file += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16 & 0xFFFF) }
        // Header, then the strip, then the arrays the IFD points at, then the IFD.
        file += Array("II".utf8); u16(42); u32(0)
        let stripOffset = file.count
        file += strip
        if file.count % 2 == 1 { file.append(0) }
        let bitsOffset = file.count
        for _ in 0..<samples { u16(64) }
        let extraOffset = file.count
        for _ in 0..<extraSamples { u16(0) }  // unspecified data
        let formatOffset = file.count
        for _ in 0..<samples { u16(3) }  // IEEE floating point
        let ifdOffset = file.count
        file.replaceSubrange(4..<8, with: [UInt8(ifdOffset & 0xFF), UInt8(ifdOffset >> 8 & 0xFF),
                                           UInt8(ifdOffset >> 16 & 0xFF), UInt8(ifdOffset >> 24 & 0xFF)])
        let short = 3, long = 4
        let entries: [(tag: Int, type: Int, count: Int, value: Int)] = [
            (256, long, 1, width), (257, long, 1, height), (258, short, samples, bitsOffset),
            (259, short, 1, 8),  // Adobe deflate
            (262, short, 1, 2),  // RGB
            (273, long, 1, stripOffset), (277, short, 1, samples), (278, long, 1, height),
            (279, long, 1, strip.count), (284, short, 1, 1),  // contiguous
            (338, short, extraSamples, extraOffset), (339, short, samples, formatOffset),
        ]
        u16(entries.count)
        for entry in entries {
            u16(entry.tag); u16(entry.type); u32(entry.count)
            // A lone SHORT sits in the first two bytes of the value field; arrays are at offsets.
            if entry.type == short && entry.count == 1 { u16(entry.value); u16(0) } else { u32(entry.value) }
        }
        u32(0)
        try Data(file).write(to: url)
    }

    /// `rows` rows of `rowBytes` zero bytes, deflated (zlib stream) a row at a time.
    private static func deflatedZeros(rows: Int, rowBytes: Int) throws -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard deflateInit_(stream, Z_BEST_COMPRESSION, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw LargeImages.GenerationError(description: "deflateInit failed")
        }
        defer { deflateEnd(stream) }
        var row = [UInt8](repeating: 0, count: rowBytes)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var output = [UInt8]()
        for y in 0...rows {
            let flush = y == rows ? Z_FINISH : Z_NO_FLUSH
            let status = try row.withUnsafeMutableBufferPointer { input in
                try chunk.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_in = input.baseAddress
                    stream.pointee.avail_in = uInt(y == rows ? 0 : rowBytes)
                    var status = Z_OK
                    repeat {
                        stream.pointee.next_out = out.baseAddress
                        stream.pointee.avail_out = uInt(out.count)
                        status = CTestCodecs.deflate(stream, flush)
                        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                            throw LargeImages.GenerationError(description: "deflate failed (\(status))")
                        }
                        output += out[0..<(out.count - Int(stream.pointee.avail_out))]
                    } while stream.pointee.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END)
                    return status
                }
            }
            if y == rows && status != Z_STREAM_END {
                throw LargeImages.GenerationError(description: "deflate did not finish")
            }
        }
        return output
    }
}
