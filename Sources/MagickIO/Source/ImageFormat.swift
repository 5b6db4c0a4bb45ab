import Foundation

/// An image file format, told from the content (never from the file name).
///
/// ```swift
/// let source = try ImageSource(url: url)
/// if source.format == .heic { ... }
/// print(source.format)   // "jpeg"
/// ```
///
/// Formats without a static member keep ImageMagick's name, lowercased (`"tga"`, `"psd"`).
public struct ImageFormat: RawRepresentable, Sendable, Hashable, CustomStringConvertible, Codable {
    /// The lowercase name, e.g. `"jpeg"`.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue.lowercased()
    }

    public var description: String { rawValue }

    public static let jpeg = ImageFormat(rawValue: "jpeg")
    public static let png = ImageFormat(rawValue: "png")
    public static let gif = ImageFormat(rawValue: "gif")
    public static let webp = ImageFormat(rawValue: "webp")
    public static let tiff = ImageFormat(rawValue: "tiff")
    public static let heic = ImageFormat(rawValue: "heic")
    public static let avif = ImageFormat(rawValue: "avif")
    public static let bmp = ImageFormat(rawValue: "bmp")

    /// The ImageMagick coder for this format.
    var magickName: String {
        rawValue.uppercased()
    }

    /// Whether ImageMagick carries the orientation of this format in its EXIF/TIFF tag.
    var hasOrientationTag: Bool {
        self == .jpeg || self == .tiff || self == .heic || self == .avif
    }

    /// Whether this is a HEIF file (HEIC or AVIF), whose thumbnail items and colour profile
    /// MagickIO reads through libheif.
    var isHEIF: Bool {
        self == .heic || self == .avif
    }

    /// Whether the frames are an animation, drawn one over the other on a canvas.
    var isAnimation: Bool {
        self == .gif || self == .webp
    }

    /// Whether the orientation comes from MagickIO's own header parse: PNG's `eXIf` and WebP's
    /// `EXIF` chunks, which ImageMagick 6 does not read.
    var orientationFromHeader: Bool {
        self == .png || self == .webp
    }
}

extension ImageFormat {
    /// The formats ``sniff(_:)`` recognises; any other is named by ImageMagick's magic table.
    static let sniffable: Set<ImageFormat> = [.jpeg, .png, .gif, .webp, .tiff, .bmp, .heic, .avif]

    /// Recognises a format from its first bytes, or nil.
    static func sniff(_ bytes: Data) -> ImageFormat? {
        let head = [UInt8](bytes.prefix(32))
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        // BigTIFF (version 43): libtiff reads it through the same TIFF coder.
        if starts(with: [0x49, 0x49, 0x2B, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }
        if starts(with: Array("BM".utf8)) && head.count >= 18 { return .bmp }
        if starts(with: Array("ftyp".utf8), at: 4) { return sniffISOBrand(bytes) }
        return nil
    }

    /// HEIC or AVIF from the `ftyp` box's major and compatible brands in the first 64 bytes.
    private static func sniffISOBrand(_ bytes: Data) -> ImageFormat? {
        var reader = ByteReader(.memory(Data(bytes.prefix(64))))
        let brands = ISOBMFFBoxes.brands(&reader)
        if brands.contains(where: ISOBMFFBoxes.avifBrands.contains) { return .avif }
        if brands.contains(where: ISOBMFFBoxes.heicBrands.contains) { return .heic }
        return nil
    }

    /// ImageMagick's name for content MagickIO does not decode, from its magic table only (no coder
    /// runs), so that the error can say what the content is.
    static func magickGuess(_ bytes: Data) -> ImageFormat? {
        MagickFormats.magicName(of: bytes.prefix(8192)).map(ImageFormat.init(rawValue:)).flatMap { $0.rawValue.isEmpty ? nil : $0 }
    }
}
