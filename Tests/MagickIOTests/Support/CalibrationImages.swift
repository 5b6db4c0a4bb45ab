import CTestCodecs
import Foundation
import MagickIO

/// Inputs for the cost model's calibration: the same smooth picture in every allowed format, at
/// a given size, written by small writers of its own (BMP, TIFF, GIF, interlaced PNG), libjpeg
/// and zlib (`LargeImages`), or MagickIO's own encoders (WebP, HEIC, AVIF). Deterministic, cached
/// in `LargeImages.cacheFolder`.
enum CalibrationImages {
    /// The kinds of decode the cost model tells apart.
    enum Kind: String, CaseIterable, Sendable {
        case jpegBaseline = "jpeg-baseline", jpegProgressive = "jpeg-progressive"
        case png, pngInterlaced = "png-interlaced", gif, webp, tiff, bmp, heic, avif

        var fileExtension: String {
            switch self {
            case .jpegBaseline, .jpegProgressive: "jpg"
            case .png, .pngInterlaced: "png"
            case .gif: "gif"
            case .webp: "webp"
            case .tiff: "tif"
            case .bmp: "bmp"
            case .heic: "heic"
            case .avif: "avif"
            }
        }
    }

    /// The file of `kind` at `width` x `height`, made once.
    static func file(_ kind: Kind, width: Int, height: Int) throws -> URL {
        try LargeImages.cached("calibration-\(kind.rawValue)-\(width)x\(height).\(kind.fileExtension)") { url in
            switch kind {
            case .jpegBaseline, .jpegProgressive:
                try LargeImages.writeJPEG(to: url, width: width, height: height, progressive: kind == .jpegProgressive)
            case .png:
                try LargeImages.writePNG(to: url, width: width, height: height)
            case .pngInterlaced:
                try Data(interlacedPNG(width: width, height: height)).write(to: url)
            case .gif:
                try Data(gif(width: width, height: height)).write(to: url)
            case .tiff:
                try Data(tiff(width: width, height: height)).write(to: url)
            case .bmp:
                try Data(bmp(width: width, height: height)).write(to: url)
            case .webp, .heic, .avif:
                let master = try file(.png, width: width, height: height)
                let format: EncodingFormat = kind == .webp ? .webp(quality: 80) : kind == .heic ? .heic(quality: 50) : .avif(quality: 50)
                try ImageSource(url: master).image(at: 0).write(to: url, as: format)
            }
        }
    }

    /// The picture: red across, green down, blue against red.
    static func pixel(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> (UInt8, UInt8, UInt8) {
        let across = width > 1 ? x * 255 / (width - 1) : 0
        let down = height > 1 ? y * 255 / (height - 1) : 0
        return (UInt8(across), UInt8(down), UInt8(255 - across))
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }
    private static func be32(_ value: Int) -> [UInt8] { le32(value).reversed() }

    /// 24-bit uncompressed BMP, rows bottom-up, padded to 4 bytes.
    static func bmp(width: Int, height: Int) -> [UInt8] {
        let rowBytes = (width * 3 + 3) / 4 * 4
        var bytes = Array("BM".utf8) + le32(54 + rowBytes * height) + le32(0) + le32(54)
        bytes += le32(40) + le32(width) + le32(height) + le16(1) + le16(24) + le32(0) + le32(rowBytes * height)
        bytes += le32(2835) + le32(2835) + le32(0) + le32(0)
        bytes.reserveCapacity(54 + rowBytes * height)
        for y in (0..<height).reversed() {
            for x in 0..<width {
                let (r, g, b) = pixel(x, y, width, height)
                bytes += [b, g, r]
            }
            bytes += [UInt8](repeating: 0, count: rowBytes - width * 3)
        }
        return bytes
    }

    /// Uncompressed RGB TIFF, one strip per 16 rows.
    static func tiff(width: Int, height: Int) -> [UInt8] {
        let rowsPerStrip = 16
        let strips = (height + rowsPerStrip - 1) / rowsPerStrip
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = pixel(x, y, width, height)
                pixels += [r, g, b]
            }
        }
        let pixelStart = 8
        let offsetsAt = pixelStart + pixels.count, countsAt = offsetsAt + 4 * strips, bitsAt = countsAt + 4 * strips
        let ifdAt = bitsAt + 6
        var bytes = Array("II".utf8) + le16(42) + le32(ifdAt) + pixels
        for strip in 0..<strips { bytes += le32(pixelStart + strip * rowsPerStrip * width * 3) }
        for strip in 0..<strips { bytes += le32(min(rowsPerStrip, height - strip * rowsPerStrip) * width * 3) }
        bytes += le16(8) + le16(8) + le16(8)
        let entries: [(Int, Int, Int, Int)] = [
            (256, 4, 1, width), (257, 4, 1, height), (258, 3, 3, bitsAt), (259, 3, 1, 1), (262, 3, 1, 2),
            (273, 4, strips, offsetsAt), (277, 3, 1, 3), (278, 4, 1, rowsPerStrip), (279, 4, strips, countsAt),
        ]
        bytes += le16(entries.count)
        for (tag, type, count, value) in entries {
            bytes += le16(tag) + le16(type) + le32(count) + (type == 3 && count == 1 ? le16(value) + [0, 0] : le32(value))
        }
        return bytes + le32(0)
    }

    /// A GIF of the picture in a 6x6x6 colour cube, its LZW stream kept at 9-bit codes by a clear
    /// code every 254 pixels (valid, if barely compressed).
    static func gif(width: Int, height: Int) -> [UInt8] {
        var bytes = Array("GIF89a".utf8) + le16(width) + le16(height) + [0xF7, 0, 0]
        for index in 0..<256 {
            let level = { (v: Int) in UInt8(min(v, 5) * 51) }
            bytes += index < 216 ? [level(index / 36), level(index / 6 % 6), level(index % 6)] : [0, 0, 0]
        }
        bytes += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0, 8]
        var stream = [UInt8](), accumulator = 0, bits = 0
        func emit(_ code: Int) {
            accumulator |= code << bits
            bits += 9
            while bits >= 8 {
                stream.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                bits -= 8
            }
        }
        var sinceClear = 0
        emit(256)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = pixel(x, y, width, height)
                emit(Int(r) / 51 * 36 + Int(g) / 51 * 6 + Int(b) / 51)
                sinceClear += 1
                if sinceClear == 254 {
                    emit(256)
                    sinceClear = 0
                }
            }
        }
        emit(257)
        if bits > 0 { stream.append(UInt8(accumulator & 0xFF)) }
        var at = 0
        while at < stream.count {
            let size = min(255, stream.count - at)
            bytes.append(UInt8(size))
            bytes += stream[at..<at + size]
            at += size
        }
        return bytes + [0, 0x3B]
    }

    /// An Adam7-interlaced 8-bit RGB PNG.
    static func interlacedPNG(width: Int, height: Int) throws -> [UInt8] {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw = [UInt8]()
        for (x0, y0, dx, dy) in passes {
            guard x0 < width, y0 < height else { continue }
            for y in stride(from: y0, to: height, by: dy) {
                raw.append(0)
                for x in stride(from: x0, to: width, by: dx) {
                    let (r, g, b) = pixel(x, y, width, height)
                    raw += [r, g, b]
                }
            }
        }
        var length = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(length))
        guard compress2(&compressed, &length, raw, uLong(raw.count), 6) == Z_OK else {
            throw LargeImages.GenerationError(description: "compress2 failed")
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            let crc = body.withUnsafeBufferPointer { Int(crc32(0, $0.baseAddress, uInt($0.count))) }
            return be32(data.count) + body + be32(crc)
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 1])
            + chunk("IDAT", Array(compressed.prefix(Int(length))))
            + chunk("IEND", [])
    }
}
