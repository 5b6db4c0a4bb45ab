import CTestCodecs
import Foundation
@testable import MagickIO

/// Files whose metadata costs a decoder far more than their size: PNG text and ICC chunks that
/// inflate to a gigabyte, JPEGs of hundreds of thousands of tiny APPn segments, and the like, made
/// at test time around a small picture of known colours (64x64, four quadrants).
enum MetadataBombs {
    static let side = 64
    /// The quadrants' colours: top left, top right, bottom left, bottom right.
    static let colours: [(UInt8, UInt8, UInt8)] = [(220, 30, 30), (30, 200, 40), (40, 50, 210), (250, 250, 250)]

    // MARK: - PNG

    /// The 64x64 RGB PNG with `extra` chunks (whole, from ``chunk(_:_:)``) before its IDAT, and
    /// `trailing` after it.
    static func png(_ extra: [[UInt8]] = [], trailing: [[UInt8]] = []) -> Data {
        var raw: [UInt8] = []
        for y in 0..<side {
            raw.append(0)
            for x in 0..<side {
                let c = colours[(y < side / 2 ? 0 : 2) + (x < side / 2 ? 0 : 1)]
                raw += [c.0, c.1, c.2]
            }
        }
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data += chunk("IHDR", be32(side) + be32(side) + [8, 2, 0, 0, 0])
        for piece in extra { data += piece }
        data += chunk("IDAT", deflate(raw))
        for piece in trailing { data += piece }
        data += chunk("IEND", [])
        return data
    }

    /// A PNG chunk: length, type, data, CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { CTestCodecs.crc32(0, $0.baseAddress, uInt($0.count)) }
        return be32(data.count) + body + be32(Int(crc))
    }

    /// `zTXt`: a comment whose text inflates to `size` zero bytes.
    static func zTXt(inflatingTo size: Int, keyword: String = "Comment") -> [UInt8] {
        chunk("zTXt", Array(keyword.utf8) + [0, 0] + deflatedZeros(size))
    }

    /// `iTXt`, compressed: `size` zero bytes once inflated.
    static func compressedITXt(inflatingTo size: Int) -> [UInt8] {
        chunk("iTXt", Array("Description".utf8) + [0, 1, 0] + [0] + [0] + deflatedZeros(size))
    }

    /// `iCCP`: a profile of `size` bytes, a valid header (an RGB display profile declaring that
    /// size, no tags) then zeros, which libpng checks and then allocates whole before inflating.
    static func iCCP(inflatingTo size: Int) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 132)
        put32be(&header, 0, size)
        header.replaceSubrange(8..<12, with: [2, 0x10, 0, 0])
        header.replaceSubrange(12..<24, with: Array("mntrRGB XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        header.replaceSubrange(68..<80, with: [0, 0, 0xF6, 0xD6, 0, 1, 0, 0, 0, 0, 0xD3, 0x2D])  // D50
        return chunk("iCCP", Array("ICC".utf8) + [0, 0] + deflatedZeros(size - header.count, after: header))
    }

    /// `tEXt`.
    static func tEXt(_ keyword: String, _ text: String) -> [UInt8] {
        chunk("tEXt", Array(keyword.utf8) + [0] + Array(text.utf8))
    }

    /// zlib's stream of `prefix` then `count` zero bytes, deflated a MiB at a time at the best compression
    /// (about 1000:1): a gigabyte is a 1 MB stream.
    static func deflatedZeros(_ count: Int, after prefix: [UInt8] = []) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        precondition(deflateInit_(stream, Z_BEST_COMPRESSION, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(stream) }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var result: [UInt8] = []
        var left = count
        var prefix = prefix
        prefix.withUnsafeMutableBufferPointer { head in
            stream.pointee.next_in = head.baseAddress
            stream.pointee.avail_in = uInt(head.count)
            repeat {
                output.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(out.count)
                    _ = CTestCodecs.deflate(stream, Z_NO_FLUSH)
                    result += out[0..<(out.count - Int(stream.pointee.avail_out))]
                }
            } while stream.pointee.avail_in > 0
        }
        zeros.withUnsafeBufferPointer { input in
            repeat {
                let piece = min(left, input.count)
                left -= piece
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = uInt(piece)
                let flush = left == 0 ? Z_FINISH : Z_NO_FLUSH
                repeat {
                    output.withUnsafeMutableBufferPointer { out in
                        stream.pointee.next_out = out.baseAddress
                        stream.pointee.avail_out = uInt(out.count)
                        _ = CTestCodecs.deflate(stream, flush)
                        result += out[0..<(out.count - Int(stream.pointee.avail_out))]
                    }
                } while stream.pointee.avail_out == 0
            } while left > 0
        }
        return result
    }

    private static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        _ = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { compress2(out.baseAddress, &length, $0.baseAddress, uLong($0.count), 9) }
        }
        return Array(output[0..<Int(length)])
    }

    // MARK: - JPEG

    /// The same picture as a JPEG (quality 95, through ImageMagick), with `segments` (whole, from
    /// ``segment(_:_:)``) right after SOI.
    static func jpeg(after segments: [[UInt8]] = []) throws -> Data {
        let base = try ImageSource(data: png()).image(at: 0).encoded(as: .jpeg(quality: 95), metadata: .stripAll)
        var data = Data(base.prefix(2))
        for segment in segments { data += segment }
        data += base.dropFirst(2)
        return data
    }

    /// A marker segment: 0xFF, `code`, the length, `payload`.
    static func segment(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, code, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    /// `count` APP15 segments of four bytes each (eight with the marker), as one byte string.
    static func app15(_ count: Int) -> [UInt8] {
        Array([[UInt8]](repeating: [0xFF, 0xEF, 0x00, 0x06, 0, 0, 0, 0], count: count).joined())
    }

    // MARK: - GIF

    /// A 1x1 GIF (a two-colour table, the pixel red) with a comment of `blocks` full sub-blocks.
    static func gif(commentBlocks blocks: Int) -> Data {
        var bytes = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [255, 0, 0, 0, 0, 0]
        bytes += [0x21, 0xFE]
        for _ in 0..<blocks { bytes += [255] + [UInt8](repeating: 0x41, count: 255) }
        bytes += [0]
        bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B]
        return Data(bytes)
    }

    /// The file at `name` in the tests' cache folder, written from `make` once.
    static func cached(_ name: String, _ make: () throws -> Data) throws -> URL {
        try LargeImages.cached(name) { url in try make().write(to: url) }
    }
}
