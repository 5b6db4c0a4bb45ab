import Foundation

/// A BMP's file and info headers, read once (`BMPHeader.read`) for its properties, for the check
/// that makes a wrong file-size field harmless, and for the copy of an OS/2 2.x file ImageMagick
/// is given (``BMPHeader/windowsHeaders(_:)``).
///
/// The info header's size says its kind: 12 is OS/2 1.x (16-bit sizes, 3-byte palette entries);
/// 40, 52, 56, 108 and 124 are Windows'; any other size from 16 to 64 is OS/2 2.x, whose header
/// may stop after any field from the bit count on and whose fields are Windows 3's, then 24 bytes
/// of its own (bmpsuite's pal8os2v2 has 64 bytes, pal8os2v2-16 has 16). A field past the header's
/// end reads as 0.
struct BMPHeader {
    var pixelOffset: Int
    var fileSizeField: Int
    var infoSize: Int
    var width: Int
    var height: Int
    var bitCount: Int
    var compression = 0
    var density = Density(unit: 2)
    var colorsUsed = 0
    var alphaMask = 0

    var isOS2v1: Bool { infoSize == 12 }
    var isOS2v2: Bool { (16...64).contains(infoSize) && ![40, 52, 56].contains(infoSize) }

    static func read(_ bytes: SourceBytes) throws(MagickIOError) -> BMPHeader {
        var reader = ByteReader(bytes)
        guard let fileSize = reader.u32le(at: 2), let offset = reader.u32le(at: 10), let size = reader.u32le(at: 14) else {
            throw MagickIOError(.corruptImage, "the BMP ends inside its file header")
        }
        if size == 12 {
            guard let info = reader.bytes(at: 18, 8) else { throw MagickIOError(.corruptImage, "the BMP ends inside its info header") }
            return BMPHeader(pixelOffset: offset, fileSizeField: fileSize, infoSize: size, width: info.u16le(at: 0),
                             height: info.u16le(at: 2), bitCount: info.u16le(at: 6))
        }
        guard size >= 16, size <= 1 << 16, let present = reader.bytes(at: 18, min(size, 56) - 4) else {
            throw MagickIOError(.corruptImage, "the BMP's info header is too short or cut short")
        }
        let info = present + [UInt8](repeating: 0, count: 52 - present.count)
        func le32(_ i: Int) -> Int { Int(Int32(truncatingIfNeeded: info.u32le(at: i))) }
        var header = BMPHeader(pixelOffset: offset, fileSizeField: fileSize, infoSize: size, width: le32(0),
                               height: abs(le32(4)), bitCount: info.u16le(at: 10))
        header.compression = le32(12)
        header.density.x = Double(le32(20)) / 100
        header.density.y = Double(le32(24)) / 100
        header.colorsUsed = info.u32le(at: 28)
        if size >= 56 { header.alphaMask = info.u32le(at: 48) }
        return header
    }

    /// Whether ImageMagick's coder (coders/bmp.c, 6.9.11) gives the image an alpha channel: an alpha
    /// mask under BI_BITFIELDS or BI_ALPHABITFIELDS; or, in a 40-byte header's 32-bit BI_RGB
    /// picture, any pixel whose fourth byte is not 0. Browsers take that byte the same way: a
    /// picture whose fourth bytes are all 0 is opaque (the byte is "reserved"), any other has alpha.
    /// The pixels are scanned only in that last case, up to the first byte that is not 0.
    func hasAlpha(_ bytes: SourceBytes) -> Bool {
        if alphaMask != 0 && (compression == 3 || compression == 6) { return true }
        guard (infoSize == 40 || isOS2v2), bitCount == 32, compression == 0 else { return false }
        let end = min(bytes.count, pixelOffset.saturatingPlus(width.saturatingTimes(height).saturatingTimes(4)))
        var at = pixelOffset
        while at < end {
            let chunk = bytes.read(at: at, length: min(end - at, 1 << 16))
            guard !chunk.isEmpty else { break }
            // Pixels start at `pixelOffset` and take 4 bytes each; the fourth is at 3 mod 4.
            var i = 3
            while i < chunk.count {
                if chunk[i] != 0 { return true }
                i += 4
            }
            at += chunk.count - chunk.count % 4
            if chunk.count % 4 != 0 { break }
        }
        return false
    }

    /// Whether the file holds every byte of its pixel array: uncompressed rows (BI_RGB, or
    /// BI_BITFIELDS and BI_ALPHABITFIELDS in a Windows header; in OS/2 2.x's, 3 is Huffman), each
    /// padded to 4 bytes, from the file header's pixel offset. What makes a wrong file-size field
    /// harmless (``DecoderWarning/isContainerOddity(_:format:bytes:)``); false whenever it cannot tell.
    func pixelsAreWhole(_ count: Int) -> Bool {
        guard compression == 0 || ([40, 52, 56, 108, 124].contains(infoSize) && (compression == 3 || compression == 6)),
              [1, 4, 8, 16, 24, 32].contains(bitCount), width > 0, height > 0, width <= 1 << 24, height <= 1 << 24 else { return false }
        let stride = (width * bitCount + 31) / 32 * 4
        return pixelOffset.saturatingPlus(stride.saturatingTimes(height)) <= count
    }
}

extension BMPHeader {
    /// For an OS/2 2.x file, the file and info headers ImageMagick's coder reads right, and where
    /// the rest of the file (the palette on) starts: its info header as a 40-byte Windows 3 one
    /// (the fields it has, then 0s), the pixel offset and a right file-size field moved by the
    /// difference (a wrong one is left wrong, so that the coder still says so), and, when the
    /// header has no colour count, the palette's entries counted. ImageMagick 6.9.11 reads the
    /// palette of a header longer than 40 bytes from byte 54 on, 24 bytes early for a 64-byte
    /// one, and shows the picture in the wrong colours. nil for any other BMP (read as it is).
    ///
    /// The rest is copied up to `end`, the end of the largest pixel array the header allows
    /// (``copyEnd(_:)``), not of the file: a tail of any length after a small picture is not copied.
    ///
    /// Throws ``MagickIOError/Kind/unsupportedFormat`` for OS/2 2.x's own codings, Huffman 1D (3)
    /// and RLE24 (4), which no decoder MagickIO uses reads.
    func windowsHeaders(_ bytes: SourceBytes) throws(MagickIOError) -> (head: [UInt8], restAt: Int, end: Int)? {
        guard isOS2v2 else { return nil }
        switch compression {
        case 0, 1, 2: break
        case 3: throw MagickIOError(.unsupportedFormat, "the BMP is OS/2 2.x Huffman 1D coded, which MagickIO does not decode")
        case 4: throw MagickIOError(.unsupportedFormat, "the BMP is OS/2 2.x RLE24 coded, which MagickIO does not decode")
        default: throw MagickIOError(.corruptImage, "the OS/2 2.x BMP names compression \(compression), which does not exist")
        }
        let restAt = 14 + infoSize, kept = 14 + min(infoSize, 40)
        var head = bytes.read(at: 0, length: kept)
        guard pixelOffset >= restAt, head.count == kept else { return nil }
        head += [UInt8](repeating: 0, count: 54 - head.count)
        let moved = 40 - infoSize
        func put(_ value: Int, at offset: Int) {
            for i in 0..<4 { head[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
        }
        // A right file-size field, or one that counts a tail after the pixels, says the copy's size.
        let end = copyEnd(bytes.count)
        if (end...bytes.count).contains(fileSizeField) { put(end + moved, at: 2) }
        put(pixelOffset + moved, at: 10)
        put(40, at: 14)
        if infoSize < 36, bitCount <= 8 {
            put(min(1 << bitCount, (pixelOffset - restAt) / 4), at: 46)
        }
        return (head, restAt, end)
    }

    /// Where the copy of an OS/2 2.x file (``windowsHeaders(_:)``) ends in a file of `count` bytes:
    /// after the pixel array at its largest, rows padded to 4 bytes uncompressed, and for RLE4 and
    /// RLE8 two bytes a pixel (each a run of one) and an end-of-line code a row, then the end of
    /// the picture; or the file's end, if that comes first.
    func copyEnd(_ count: Int) -> Int {
        let rows = height.saturatingTimes(compression == 0 ? (width.saturatingTimes(bitCount).saturatingPlus(31) / 32 * 4)
                                                               : width.saturatingTimes(2).saturatingPlus(2))
        return min(count, pixelOffset.saturatingPlus(rows).saturatingPlus(compression == 0 ? 0 : 2))
    }

    /// The bytes of the copy of an OS/2 2.x file of `count` bytes ImageMagick reads
    /// (``windowsHeaders(_:)``), which its decode holds besides the coder's own buffers; 0 for any
    /// other BMP, read as it is.
    func copiedBytes(_ count: Int) -> Int {
        guard isOS2v2, [0, 1, 2].contains(compression) else { return 0 }
        return max(copyEnd(count) - (14 + infoSize), 0).saturatingPlus(54)
    }
}

/// A BMP's properties as ImageMagick's coder (coders/bmp.c, 6.9.11) sets them: the height's
/// absolute value; depth the bits per pixel up to 8, else 8; alpha as ``BMPHeader/hasAlpha(_:)``
/// says; the density in pixels per metre, kept per centimetre; always `srgb`.
enum BMPProperties {
    static func read(_ bytes: SourceBytes) throws(MagickIOError) -> ImageProperties {
        let header = try BMPHeader.read(bytes)
        guard header.width > 0, header.height > 0 else {
            throw MagickIOError(.corruptImage, "the BMP has no pixels (\(header.width)x\(header.height))")
        }
        var properties = ImageProperties(format: .bmp, width: header.width, height: header.height)
        properties.bitDepth = header.bitCount <= 8 && header.bitCount > 0 ? header.bitCount : 8
        properties.hasAlpha = header.hasAlpha(bytes)
        properties.resolution = header.density.resolution
        return properties
    }

    /// Whether the file holds every byte of its pixel array (``BMPHeader/pixelsAreWhole(_:)``).
    static func pixelsAreWhole(_ bytes: SourceBytes) -> Bool {
        guard let header = try? BMPHeader.read(bytes) else { return false }
        return header.pixelsAreWhole(bytes.count)
    }
}

extension BMPProperties {
    /// The file as ImageMagick 6.9.11's coder reads an OS/2 2.x info header of 16 to 39 bytes
    /// (the Windows fields from whatever follows the header, the palette from just after it), in
    /// the 40-byte layout ImageMagick 7.1's coder requires (it refuses the shorter header as an
    /// improper image header): the 24 bytes that follow the header repeated as its missing fields,
    /// and the pixel offset and file size moved by as many. Nil for any other file. For the tests'
    /// ping on ImageMagick 7 (`Wand.read`);
    /// a decode is given ``BMPHeader/windowsHeaders(_:)``'s copy, whose header is 40 bytes already.
    static func widenedInfoHeader(_ bytes: SourceBytes) -> Data? {
        var reader = ByteReader(bytes)
        guard reader.bytes(at: 0, 2) == Array("BM".utf8), let size = reader.u32le(at: 14), (16..<40).contains(size),
              let offset = reader.u32le(at: 10), let fileSize = reader.u32le(at: 2), bytes.count >= 14 + 40 else { return nil }
        let added = 40 - size
        let all = bytes.read(at: 0, length: bytes.count)
        var widened = Data(all[0..<(14 + size)])
        widened.append(contentsOf: all[(14 + size)..<(14 + size + added)])
        widened.append(contentsOf: all[(14 + size)...])
        func put32(_ value: Int, at index: Int) {
            for byte in 0..<4 { widened[index + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        }
        put32(40, at: 14)
        put32(offset + added, at: 10)
        if fileSize != 0 { put32(fileSize + added, at: 2) }
        return widened
    }
}
