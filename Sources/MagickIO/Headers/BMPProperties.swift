import Foundation

/// A BMP's properties from its file and info headers, as ImageMagick's coder (coders/bmp.c, 6.9.11)
/// sets them: the height's absolute value; depth the bits per pixel up to 8, else 8; alpha only from
/// an alpha mask under BI_BITFIELDS or BI_ALPHABITFIELDS; the density in pixels per metre, kept per
/// centimetre; always `srgb`.
enum BMPProperties {
    static func read(_ bytes: SourceBytes) throws(MagickIOError) -> ImageProperties {
        var reader = ByteReader(bytes)
        guard let size = reader.u32le(at: 14) else { throw MagickIOError(.corruptImage, "the BMP ends inside its file header") }
        let width: Int, height: Int, bits: Int
        var compression = 0, alphaMask = 0
        var density = Density(unit: 2)
        if size == 12 {
            // OS/2 1.x: 16-bit sizes.
            guard let info = reader.bytes(at: 18, 8) else { throw MagickIOError(.corruptImage, "the BMP ends inside its info header") }
            width = info.u16le(at: 0)
            height = info.u16le(at: 2)
            bits = info.u16le(at: 6)
        } else {
            // OS/2 2.x headers may stop after any field from the bit count on (bmpsuite's
            // pal8os2v2-16 has 16 bytes); ImageMagick reads the Windows fields all the same, from
            // whatever follows.
            guard size >= 16, let info = reader.bytes(at: 18, 36) else {
                throw MagickIOError(.corruptImage, "the BMP's info header is too short or cut short")
            }
            func le32(_ i: Int) -> Int32 { Int32(truncatingIfNeeded: info.u32le(at: i)) }
            width = Int(le32(0))
            height = abs(Int(le32(4)))
            bits = info.u16le(at: 10)
            compression = Int(le32(12))
            density.x = Double(le32(20)) / 100
            density.y = Double(le32(24)) / 100
            if size >= 56, let mask = reader.u32le(at: 14 + 52) { alphaMask = mask }
        }
        guard width > 0, height > 0 else { throw MagickIOError(.corruptImage, "the BMP has no pixels (\(width)x\(height))") }
        var properties = ImageProperties(format: .bmp, width: width, height: height)
        properties.bitDepth = bits <= 8 && bits > 0 ? bits : 8
        properties.hasAlpha = alphaMask != 0 && (compression == 3 || compression == 6)
        properties.resolution = density.resolution
        return properties
    }

    /// The file as ImageMagick 6.9.11's coder reads an OS/2 2.x info header of 16 to 39 bytes
    /// (`read` above: the Windows fields from whatever follows the header, the palette from just
    /// after it), in the 40-byte layout ImageMagick 7.1's coder requires (it refuses the shorter
    /// header as an improper image header): the 24 bytes that follow the header repeated as its
    /// missing fields, and the pixel offset and file size moved by as many. Nil for any other
    /// file. A copy of the whole file: such headers are rare, and their files small.
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

    /// Whether the file holds every byte of its pixel array: uncompressed rows (BI_RGB, or
    /// BI_BITFIELDS and BI_ALPHABITFIELDS in a Windows header; in OS/2 2.x's, 3 is Huffman), each padded to 4
    /// bytes, from the file header's pixel offset. What makes a wrong file-size field harmless
    /// (``DecoderWarning/isContainerOddity(_:format:bytes:)``); false whenever it cannot tell.
    static func pixelsAreWhole(_ bytes: SourceBytes) -> Bool {
        var reader = ByteReader(bytes)
        guard let offset = reader.u32le(at: 10), let size = reader.u32le(at: 14) else { return false }
        let width: Int, height: Int, bits: Int
        if size == 12 {
            guard let w = reader.u16le(at: 18), let h = reader.u16le(at: 20), let b = reader.u16le(at: 24) else { return false }
            (width, height, bits) = (w, h, b)
        } else {
            let windows = [40, 52, 56, 108, 124].contains(size)
            guard size >= 16, let w = reader.u32le(at: 18), let h = reader.u32le(at: 22), let b = reader.u16le(at: 28),
                  let compression = reader.u32le(at: 30),
                  compression == 0 || (windows && (compression == 3 || compression == 6)) else { return false }
            (width, height, bits) = (Int(Int32(truncatingIfNeeded: w)), abs(Int(Int32(truncatingIfNeeded: h))), b)
        }
        guard [1, 4, 8, 16, 24, 32].contains(bits), width > 0, height > 0, width <= 1 << 24, height <= 1 << 24 else { return false }
        let stride = (width * bits + 31) / 32 * 4
        return offset.saturatingPlus(stride.saturatingTimes(height)) <= bytes.count
    }
}
