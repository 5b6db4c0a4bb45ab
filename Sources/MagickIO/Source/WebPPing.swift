import Foundation

/// ImageMagick 6's WebP coder ignores ping: it decodes the whole picture (libwebp's RGBA, 4 bytes
/// a pixel: 96 MB for 24 MP) just to report the size, before any limit is checked. For a still
/// WebP whose headers libwebp accepts, MagickIO pings a stand-in instead: the file's own metadata
/// chunks (VP8X's flags, ICCP, EXIF, XMP) around a 1x1 lossless picture with the same alpha, so
/// that ImageMagick reports everything but the size as it would for the file; the size is the
/// header's (which libwebp's features confirmed). Anything else (an animation, a file shorter
/// than its RIFF header says, headers libwebp refuses) is pinged as it is, and ImageMagick says
/// what is wrong with it.
enum WebPPing {
    /// The stand-in for `bytes`, or nil when the file must be pinged itself.
    static func standIn(_ bytes: SourceBytes, header: ImageHeader, maxMetadataBytes: Int) -> SourceBytes? {
        var reader = ByteReader(bytes)
        guard let declared = RIFFChunks.declaredLength(&reader), declared.saturatingPlus(8) <= bytes.count,
              WebPRows.isStill(bytes, width: header.width, height: header.height) else { return nil }
        var flags: UInt8?
        var before: [UInt8] = [], after: [UInt8] = []
        var metadata = 0
        var readable = true
        RIFFChunks.walk(&reader) { reader, chunk in
            guard chunk.end <= declared.saturatingPlus(8) else { return false }
            switch chunk.id {
            case "VP8X":
                flags = reader.bytes(at: chunk.data.lowerBound, 1)?.first
            case "ICCP", "EXIF", "XMP ":
                metadata = metadata.saturatingPlus(chunk.length)
                guard metadata <= maxMetadataBytes, let whole = reader.bytes(at: chunk.offset, chunk.end - chunk.offset) else {
                    readable = false
                    return false
                }
                if chunk.id == "ICCP" { before += whole } else { after += whole }
            default:
                break
            }
            return true
        }
        guard readable else { return nil }
        var body = Array("WEBP".utf8)
        if let flags {
            // Alpha, ICC, EXIF and XMP flags kept; a 1x1 canvas (stored minus one, 24 bits each).
            body += Array("VP8X".utf8) + [10, 0, 0, 0, flags & 0x3C, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        }
        body += before + (header.hasAlpha ? onePixelWithAlpha : onePixel) + after
        let length = UInt32(body.count)
        let riff = Array("RIFF".utf8) + [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)]
        return .memory(Data(riff + body))
    }

    /// A 1x1 white VP8L chunk (cwebp -lossless), padded to an even length.
    private static let onePixel: [UInt8] = Array("VP8L".utf8) + [17, 0, 0, 0,
        0x2F, 0, 0, 0, 0x00, 0x07, 0xD0, 0xFF, 0xFE, 0xF7, 0xBF, 0xFF, 0x81, 0x88, 0xE8, 0x7F, 0x00, 0x00]
    /// The same with its alpha-is-used bit set (half-transparent white, cwebp -lossless -exact).
    private static let onePixelWithAlpha: [UInt8] = Array("VP8L".utf8) + [17, 0, 0, 0,
        0x2F, 0, 0, 0, 0x10, 0x07, 0xD0, 0xFF, 0xFE, 0xF7, 0xBF, 0x7F, 0x81, 0x88, 0xE8, 0x7F, 0x00, 0x00]
}
