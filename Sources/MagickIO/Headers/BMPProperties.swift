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
            width = Int(info[0]) | Int(info[1]) << 8
            height = Int(info[2]) | Int(info[3]) << 8
            bits = Int(info[6]) | Int(info[7]) << 8
        } else {
            guard size >= 40, let info = reader.bytes(at: 18, 36) else {
                throw MagickIOError(.corruptImage, "the BMP's info header is too short or cut short")
            }
            func le32(_ i: Int) -> Int32 {
                Int32(bitPattern: UInt32(info[i]) | UInt32(info[i + 1]) << 8 | UInt32(info[i + 2]) << 16 | UInt32(info[i + 3]) << 24)
            }
            width = Int(le32(0))
            height = abs(Int(le32(4)))
            bits = Int(info[10]) | Int(info[11]) << 8
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
}
