import CTestCodecs
import Foundation

/// Small images made at test time for the property walkers: layouts the committed fixtures lack
/// (PNG colour types, gAMA, tRNS and pHYs; BMP headers; GIF transparency), many-frame GIFs and
/// TIFFs, and the two hostile files whose ImageMagick ping costs a gigabyte.
enum PropertyImages {
    // MARK: - PNG

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    static func zlib(_ data: [UInt8]) -> [UInt8] {
        var size = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        _ = compress(&out, &size, data, uLong(data.count))
        return Array(out.prefix(Int(size)))
    }

    /// A 4x4 PNG of `colourType` and `depth`, with `extra` chunks before its IDAT.
    static func png(colourType: UInt8, depth: UInt8, extra: [UInt8] = []) -> Data {
        let samples = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colourType)]!
        let rowBytes = (4 * samples * Int(depth) + 7) / 8
        let raw = [UInt8](repeating: 0, count: 4 * (rowBytes + 1))
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", be32(4) + be32(4) + [depth, colourType, 0, 0, 0])
        bytes += extra + chunk("IDAT", zlib(raw)) + chunk("IEND", [])
        return Data(bytes)
    }

    static let palette = chunk("PLTE", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])

    /// PNG layouts ImageMagick decides on differently, by name.
    static var pngVariants: [(String, Data)] {
        [
            ("grey-1", png(colourType: 0, depth: 1)), ("grey-4", png(colourType: 0, depth: 4)),
            ("grey-16", png(colourType: 0, depth: 16)), ("grey-alpha-16", png(colourType: 4, depth: 16)),
            ("rgb-16", png(colourType: 2, depth: 16)), ("palette-2", png(colourType: 3, depth: 2, extra: palette)),
            ("grey-trns", png(colourType: 0, depth: 8, extra: chunk("tRNS", [0, 5]))),
            ("grey-trns-wrong-length", png(colourType: 0, depth: 8, extra: chunk("tRNS", [0, 5, 0]))),
            ("palette-trns-too-long", png(colourType: 3, depth: 8, extra: palette + chunk("tRNS", [0, 0, 0, 0, 0]))),
            ("palette-trns", png(colourType: 3, depth: 8, extra: palette + chunk("tRNS", [0]))),
            ("phys-metre", png(colourType: 2, depth: 8, extra: chunk("pHYs", be32(3780) + be32(2835) + [1]))),
            ("phys-unknown", png(colourType: 2, depth: 8, extra: chunk("pHYs", be32(3780) + be32(2835) + [0]))),
            ("gamma-linear", png(colourType: 2, depth: 8, extra: chunk("gAMA", be32(100_000)))),
            ("gamma-linear-grey", png(colourType: 0, depth: 8, extra: chunk("gAMA", be32(100_000)))),
            ("gamma-linear-srgb", png(colourType: 2, depth: 8, extra: chunk("gAMA", be32(100_000)) + chunk("sRGB", [0]))),
        ]
    }

    // MARK: - BMP

    /// An 8x8 BMP with an info header of `headerSize` bytes.
    static func bmp(bits: Int, compression: Int = 0, headerSize: Int = 40, alphaMask: Int = 0, pixelsPerMetre: Int = 0,
                    negativeHeight: Bool = false) -> Data {
        let colours = bits <= 8 ? 1 << bits : 0
        let rowBytes = ((8 * bits + 31) / 32) * 4
        let offset = 14 + headerSize + 4 * colours
        var bytes = Array("BM".utf8) + le32(offset + rowBytes * 8) + [0, 0, 0, 0] + le32(offset)
        var info = le32(headerSize) + le32(8) + le32(negativeHeight ? -8 : 8) + [1, 0, UInt8(bits), 0] + le32(compression)
        info += le32(rowBytes * 8) + le32(pixelsPerMetre) + le32(pixelsPerMetre) + le32(colours) + le32(0)
        if headerSize >= 56 {
            info += le32(0xFF0000) + le32(0xFF00) + le32(0xFF) + le32(alphaMask)
        }
        info += [UInt8](repeating: 0, count: headerSize - info.count)
        bytes += info + [UInt8](repeating: 0, count: 4 * colours + rowBytes * 8)
        return Data(bytes)
    }

    static var bmpVariants: [(String, Data)] {
        [
            ("bmp-1", bmp(bits: 1)), ("bmp-4", bmp(bits: 4)), ("bmp-8", bmp(bits: 8)), ("bmp-24", bmp(bits: 24)),
            ("bmp-24-dpi", bmp(bits: 24, pixelsPerMetre: 11811)), ("bmp-top-down", bmp(bits: 24, negativeHeight: true)),
            ("bmp-32-v5-alpha", bmp(bits: 32, compression: 3, headerSize: 124, alphaMask: Int(0xFF00_0000))),
            ("bmp-32-v5-rgb", bmp(bits: 32, compression: 0, headerSize: 124, alphaMask: Int(0xFF00_0000))),
            ("bmp-16-bitfields", bmp(bits: 16, compression: 3, headerSize: 124)),
        ]
    }

    // MARK: - GIF

    /// A GIF of `frames` 1x1 frames (on a `screen` canvas), the first `transparent` of them naming
    /// colour `index` transparent.
    static func gif(frames: Int, screen: Int = 1, transparent: Int = 0, index: UInt8 = 0, offset: Int = 0) -> Data {
        var bytes = Array("GIF89a".utf8) + le16(screen) + le16(screen) + [0x80, 0, 0] + [UInt8](repeating: 0, count: 6)
        for frame in 0..<frames {
            if frame < transparent {
                bytes += [0x21, 0xF9, 4, 1, 0, 0, index, 0]
            }
            bytes += [0x2C] + le16(offset) + le16(offset) + le16(1) + le16(1) + [0]
            bytes += [2, 2, 0x44, 0x01, 0]  // LZW: clear, 0, end
        }
        bytes.append(0x3B)
        return Data(bytes)
    }

    static var gifVariants: [(String, Data)] {
        [
            ("gif-transparent", gif(frames: 2, transparent: 1)), ("gif-transparent-past-table", gif(frames: 1, transparent: 1, index: 5)),
            ("gif-transparent-at-table-end", gif(frames: 1, transparent: 1, index: 2)), ("gif-offset", gif(frames: 2, screen: 4, offset: 1)),
        ]
    }

    // MARK: - TIFF

    /// A little-endian TIFF of `pages` 1x1 8-bit grey directories sharing one pixel.
    static func tiff(pages: Int) -> Data {
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        let entries: [(Int, Int, Int)] = [(256, 3, 1), (257, 3, 1), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 0),
                                          (277, 3, 1), (278, 3, 1), (279, 4, 1)]
        let pixel = 8 + pages * (2 + 12 * entries.count + 4)
        for page in 0..<pages {
            bytes += le16(entries.count)
            for (tag, type, value) in entries {
                bytes += le16(tag) + le16(type) + le32(1) + le32(tag == 273 ? pixel : value)
            }
            bytes += le32(page == pages - 1 ? 0 : bytes.count + 4)
        }
        bytes.append(0x80)
        return Data(bytes)
    }

    /// A 1x1 grey TIFF whose IFD0 points to an EXIF directory of common tags, in their usual types
    /// and some in others (GainControl as EXIF's SHORT where ImageMagick asks a RATIONAL,
    /// PixelYDimension as a SHORT).
    static func tiffWithEXIF() -> Data {
        typealias Entry = (tag: Int, type: Int, count: Int, data: [UInt8])
        let exif: [Entry] = [
            (33434, 5, 1, le32(1) + le32(250)), (33437, 5, 1, le32(28) + le32(10)), (34855, 3, 1, le16(100) + [0, 0]),
            (36867, 2, 20, Array("2020:01:02 03:04:05\0".utf8)), (37380, 10, 1, le32(-7) + le32(10)),
            (37385, 3, 1, le16(16) + [0, 0]), (37386, 5, 1, le32(50) + le32(1)), (37521, 2, 3, Array("12\0".utf8) + [0]),
            (40962, 4, 1, le32(1)), (40963, 3, 1, le16(1) + [0, 0]), (41988, 5, 1, le32(0) + le32(0)), (41991, 3, 1, le16(1) + [0, 0]),
            (42016, 2, 4, Array("abc\0".utf8)),
        ]
        let base: [(Int, Int, Int)] = [(256, 3, 1), (257, 3, 1), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 0),
                                       (277, 3, 1), (278, 3, 1), (279, 4, 1), (34665, 4, 0)]
        let ifd0Size = 2 + 12 * base.count + 4
        let exifAt = 8 + ifd0Size
        var dataAt = exifAt + 2 + 12 * exif.count + 4
        var directory = le16(exif.count), data: [UInt8] = []
        for entry in exif {
            directory += le16(entry.tag) + le16(entry.type) + le32(entry.count)
            if entry.data.count <= 4 {
                directory += entry.data + [UInt8](repeating: 0, count: 4 - entry.data.count)
            } else {
                directory += le32(dataAt + data.count)
                data += entry.data
            }
        }
        directory += le32(0)
        dataAt += data.count
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + le32(8) + le16(base.count)
        for (tag, type, value) in base {
            bytes += le16(tag) + le16(type) + le32(1) + le32(tag == 273 ? dataAt : tag == 34665 ? exifAt : value)
        }
        bytes += le32(0) + directory + data + [0x80]
        return Data(bytes)
    }

    // MARK: - Hostile

    /// A lossy WebP whose VP8 header declares 16383x16383 (the bitstream is a stub: only the
    /// header is read when opening).
    static func hugeWebP() -> Data {
        var vp8: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + le16(16383) + le16(16383)
        vp8 += [UInt8](repeating: 0, count: 32)
        let chunk = Array("VP8 ".utf8) + le32(vp8.count) + vp8
        return Data(Array("RIFF".utf8) + le32(4 + chunk.count) + Array("WEBP".utf8) + chunk)
    }

    /// A 1x1 PNG whose zTXt chunk inflates to 1 GiB of text (about 1 MB in the file).
    static func pngWithHugeText() -> Data {
        var stream = z_stream()
        deflateInit_(&stream, 9, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        var input = [UInt8](repeating: 0x41, count: 1 << 20)
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var compressed: [UInt8] = []
        for round in 0..<1024 {
            input.withUnsafeMutableBufferPointer { inputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                repeat {
                    output.withUnsafeMutableBufferPointer { outputBuffer in
                        stream.next_out = outputBuffer.baseAddress
                        stream.avail_out = uInt(outputBuffer.count)
                        deflate(&stream, round == 1023 ? Z_FINISH : Z_NO_FLUSH)
                        compressed += outputBuffer.prefix(outputBuffer.count - Int(stream.avail_out))
                    }
                } while stream.avail_out == 0
            }
        }
        deflateEnd(&stream)
        let text = chunk("zTXt", Array("Comment".utf8) + [0, 0] + compressed)
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", be32(1) + be32(1) + [8, 0, 0, 0, 0]) + text
        bytes += chunk("IDAT", zlib([0, 0])) + chunk("IEND", [])
        return Data(bytes)
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func le32(_ value: Int) -> [UInt8] {
        let bits = UInt32(truncatingIfNeeded: value)
        return [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
    }
}
