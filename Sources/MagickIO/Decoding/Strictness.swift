/// How a decode treats what its decoder warns about, like sharp's `failOn`.
///
/// Decoders warn about two different things. Some warnings mean the pixels are not all from the
/// file: a truncated JPEG ("Premature end of JPEG file": the missing rows come back grey), a broken
/// entropy-coded stream ("bad Huffman code"), a short strip in a TIFF. Others are about the
/// container and leave every pixel as the file has it: a few extraneous bytes between two JPEG
/// markers (common from cameras and editors), a PNG ancillary chunk with a bad CRC (libpng drops
/// the chunk), compressed data after a PNG's last row, an unknown TIFF tag, a BMP whose file-size
/// field is not the file's size while its whole pixel array is there (OS/2 writers store the
/// headers' size; ImageMagick reports it at error severity and reads on). Viewers (libvips,
/// Pillow, ImageIO) show the second kind, and so does MagickIO unless told otherwise.
///
/// ```swift
/// let strict = DecodingOptions(strictness: .refuseWarnings)   // any warning is corruptImage
/// let image = try ImageSource(url: url).image(at: 0)         // benign warnings accepted
/// print(image.warnings)                                       // ["iCCP: CRC error ..."]
/// ```
///
/// Which warnings mean damage is decided per decoder (see `DecoderWarning`); a warning MagickIO
/// does not recognise from a decoder whose warnings usually mean damage (JPEG, GIF, WebP, BMP,
/// HEIC/AVIF) counts as damage.
public enum Strictness: String, Sendable, Hashable, CaseIterable {
    /// A warning that means pixels are missing or wrong throws ``MagickIOError/Kind/corruptImage``;
    /// warnings about the container are accepted and listed in ``Image/warnings``. The default.
    case refuseDamage
    /// Any decoder warning throws ``MagickIOError/Kind/corruptImage``.
    case refuseWarnings
    /// Whatever the decoder produced comes back (a truncated JPEG with its missing rows grey), its
    /// warnings listed in ``Image/warnings``. A decode that fails outright still throws.
    case acceptPartial

    /// Whether a decode that gave `warnings` must be refused.
    func refuses(_ warning: DecoderWarning) -> Bool {
        switch self {
        case .refuseDamage: warning.meansDamage
        case .refuseWarnings: true
        case .acceptPartial: false
        }
    }
}

/// A warning a decoder gave, and whether it means the pixels are damaged.
struct DecoderWarning: Sendable, Hashable {
    /// The decoder's words (ImageMagick's reason and description).
    var message: String
    /// Whether the pixels are not all from the file.
    var meansDamage: Bool

    init(_ message: String, format: ImageFormat) {
        self.message = message
        meansDamage = Self.meansDamage(message.lowercased(), format: format)
    }

    /// Whether an exception ImageMagick raised at error severity, though its coder went on and
    /// read every pixel, is only a container's oddity: BMP's "length and filesize do not match"
    /// (coders/bmp.c raises it whenever the file-size field is not the file's size, which OS/2
    /// writers fill with the headers' size) when the file holds the whole pixel array
    /// (``BMPProperties/pixelsAreWhole(_:)``). It is then a warning like any other.
    static func isContainerOddity(_ message: String, format: ImageFormat, bytes: SourceBytes) -> Bool {
        format == .bmp && message.lowercased().contains("length and filesize do not match") && BMPProperties.pixelsAreWhole(bytes)
    }

    /// libjpeg's, libpng's and libtiff's warning texts (jerror.h, png.c/pngrutil.c, tif_dirread.c)
    /// sorted by what they mean for the pixels.
    private static func meansDamage(_ text: String, format: ImageFormat) -> Bool {
        // ImageMagick's own checks of a metadata profile (an XMP packet that is not XML, which its
        // XML parser, used for nothing else in these coders, reports from xml-tree.c): the profile
        // is dropped, the pixels are whole.
        if text.contains("corruptimageprofile") || text.contains("xml-tree.c") { return false }
        switch format {
        case .jpeg:
            // JWRN_EXTRANEOUS_DATA, JWRN_JFIF_MAJOR, JWRN_ADOBE_XFORM, JWRN_BOGUS_ICC,
            // JWRN_NOT_SEQUENTIAL and JWRN_TOO_MUCH_DATA (data after the last row; the image is
            // whole) leave every pixel intact; everything else (JWRN_JPEG_EOF "Premature end",
            // JWRN_HIT_MARKER, JWRN_HUFF_BAD_CODE, JWRN_MUST_RESYNC, JWRN_BOGUS_PROGRESSION, ...)
            // means missing or wrong pixels.
            let benign = ["extraneous bytes before marker", "unknown jfif revision", "unknown adobe color transform",
                          "corrupt icc", "invalid sos parameters for sequential jpeg",
                          "application transferred too many scanlines", "thumbnail image size does not match",
                          "jfif extension marker", "unrecognized component ids"]
            return !benign.contains { text.contains($0) }
        case .png:
            // libpng raises damage to the image data (a truncated or broken IDAT stream, a bad
            // critical chunk) as an error, which fails the read; its warnings concern ancillary
            // chunks (dropped) or data after the last row. Only these say otherwise.
            let damage = ["not enough image data", "incorrect data check", "invalid distance", "invalid block type",
                          "invalid stored block", "invalid code", "decompression error", "read error",
                          "unexpected end", "truncated", "corrupt image"]
            return damage.contains { text.contains($0) }
        case .tiff:
            // libtiff's warnings are about directories and tags (unknown tags, bogus counts, wrong
            // types, a looping IFD chain after the pages read); strip and tile damage is an error,
            // or one of these.
            let damage = ["read error", "premature", "end of file", "end of data", "not enough data", "decoding error",
                          "decode error", "corrupt", "truncated", "short read", "cannot read", "bad code",
                          "unexpected end"]
            return damage.contains { text.contains($0) }
        case .bmp:
            // A file-size field that disagrees with the real size is common and harmless.
            return !text.contains("length and filesize do not match") && !text.contains("lengthandfilesizedonotmatch")
        default:
            // GIF, WebP, HEIC/AVIF: their decoders' warnings mean short or broken data.
            return true
        }
    }
}
