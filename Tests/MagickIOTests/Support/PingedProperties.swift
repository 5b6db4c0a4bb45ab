import Foundation
@testable import MagickIO

/// Every frame's properties as MagickIO read them before its own walkers: ImageMagick's ping
/// (`MagickPingImage`, `ImageProperties(wand:format:)`) with the corrections the ping needed (PNG's
/// eXIf and raw-profile orientation, WebP's EXIF orientation, TIFF's ExtraSamples, HEIF's alpha
/// item, a frame off its canvas composited with alpha). The reference the walkers are held to.
enum PingedProperties {
    static func frames(of data: Data, file: URL? = nil) throws -> [ImageProperties] {
        // A file is pinged by name, as MagickIO opened files (ImageMagick's policy refuses a
        // BigTIFF blob's TIFF64 coder).
        let bytes = try file.map { url throws(MagickIOError) in SourceBytes.file(try OpenFile(path: url.path)) } ?? .memory(data)
        let format = try requireFormat(data)
        let index = ContainerIndex(bytes, format: format, maxPages: 0)
        let header = ImageHeader.parse(bytes, format: format, index: index)
        if let reason = header?.corrupt { throw MagickIOError(.corruptImage, reason) }
        var frames = try Wand.withThreadWand { wand throws(MagickIOError) in
            try wand.read(bytes, format: format, ping: true, strictness: .acceptPartial)
            return wand.eachImage { ImageProperties(wand: wand, format: format) }
        }
        if format.orientationFromHeader, let orientation = header?.orientation {
            for index in frames.indices { frames[index].orientation = orientation }
        }
        for index in frames.indices where frames[index].isOffsetOnCanvas {
            frames[index].hasAlpha = true
        }
        if format == .png, header?.orientation == nil, let chunk = header?.rawEXIFChunk,
           let orientation = rawProfileOrientation(bytes, chunk: chunk) {
            for index in frames.indices { frames[index].orientation = orientation }
        }
        if let pageAlpha = index?.tiff?.directories.map({ $0.hasAlpha(photometricWhenAbsent: 1) }) {
            for index in frames.indices where index < pageAlpha.count && pageAlpha[index] {
                frames[index].hasAlpha = true
            }
        }
        if format.isHEIF, HEIFPrimary.hasAlpha(in: bytes, options: DecodingOptions(maxPixelCount: 1 << 40)) == true {
            for index in frames.indices { frames[index].hasAlpha = true }
        }
        guard runningImageMagick7 else { return frames }
        var reader = ByteReader(bytes)
        var sRGBChunk = false
        if format == .png {
            PNGChunks.walk(&reader) { _, chunk in
                sRGBChunk = sRGBChunk || chunk.type == "sRGB"
                return chunk.type != "IDAT"
            }
        }
        frames = frames.map { asImageMagick6(format: format, sRGBChunk: sRGBChunk, $0) }
        // TIFF: 7.1 calls an old-style JPEG page (compression 6) in YCbCr `srgb`, 6.9.11 `ycbcr`.
        for (page, directory) in (index?.tiff?.directories ?? []).enumerated() where page < frames.count {
            if directory.values[TIFFTag.compression] == 6, directory.values[TIFFTag.photometric] == 6,
               frames[page].colorSpace == "srgb" {
                frames[page].colorSpace = "ycbcr"
            }
        }
        return frames
    }

    /// An ImageMagick 7.1 ping as 6.9.11's read the same file, where the two differ by ImageMagick's
    /// choice and MagickIO answers as it always has (its walkers answer the same on both lines):
    /// - HEIC and AVIF: 7.1's coder says `srgb` where 6.9.11's said `ycbcr`, and reads the Exif
    ///   block into properties, which 6.9.11's did not in a ping;
    /// - PNG: 7.1 reads an `eXIf` chunk or a raw EXIF profile into properties and a resolution
    ///   (where no pHYs chunk gives one), which 6.9.11 did not in a ping; and it calls a file with
    ///   gamma 1.0 and an sRGB chunk `rgb` (linear), where 6.9.11 let the sRGB chunk say `srgb`;
    /// - TIFF: 7.1 prints the EXIF directory's floating-point tags with `%f` ("2.800000") where
    ///   6.9.11 printed the shortest form ("2.8"), and adds the compression as an EXIF property;
    /// - EXIF rational lists: 7.1 separates them with "," where 6.9.11 used ", ".
    /// (EXIF byte strings: see ``comparable(_:)``.)
    static func asImageMagick6(format: ImageFormat, sRGBChunk: Bool, _ pinged: ImageProperties) -> ImageProperties {
        var frame = pinged
        if format.isHEIF {
            if frame.colorSpace == "srgb" { frame.colorSpace = "ycbcr" }
            frame.exif = [:]
        }
        if format == .png {
            if !frame.exif.isEmpty { frame.resolution = nil }  // 7.1's from the EXIF (a pHYs chunk's is both lines')
            frame.exif = [:]
            if sRGBChunk, frame.colorSpace == "rgb" { frame.colorSpace = "srgb" }
        }
        if format == .tiff {
            frame.exif["Compression Scheme"] = nil
            frame.exif = frame.exif.mapValues { value in
                guard value.wholeMatch(of: /-?[0-9]+\.[0-9]{6}/) != nil, let number = Double(value) else { return value }
                return number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
            }
        }
        frame.exif = frame.exif.mapValues { value in
            value.wholeMatch(of: /-?[0-9]+\/[0-9]+(,-?[0-9]+\/[0-9]+)+/) != nil ? value.replacingOccurrences(of: ",", with: ", ") : value
        }
        return frame
    }

    /// `properties` as both lines can be compared under ImageMagick 7.1, which prints an EXIF byte
    /// string (`ExifVersion`, `ComponentsConfiguration`, `GPSVersionID`) as its characters,
    /// unprintable ones as ".", where 6.9.11 and MagickIO print the numbers ("48, 50, 51, 50" for
    /// "0232"): both become the characters, their trailing "."s (a NUL, a control byte) dropped.
    /// Unchanged under 6.9.11.
    static func comparable(_ properties: ImageProperties?) -> ImageProperties? {
        guard runningImageMagick7, var properties else { return properties }
        properties.exif = properties.exif.mapValues { value in
            var text = value
            if value.wholeMatch(of: /[0-9]+(, [0-9]+)+/) != nil {
                let bytes = value.split(separator: ", ").compactMap { UInt8($0) }
                text = String(bytes.map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "." })
            }
            while text.hasSuffix(".") { text.removeLast() }
            return text
        }
        return properties
    }

    /// The orientation in ImageMagick's raw-profile text chunk, as MagickIO read it before: the
    /// chunk alone in a 1x1 PNG of its own, decoded by ImageMagick, its `exif` profile read.
    static func rawProfileOrientation(_ bytes: SourceBytes, chunk: Range<Int>) -> Orientation? {
        let text = bytes.read(at: chunk.lowerBound, length: chunk.count)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += PropertyImages.chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]) + text
        png += PropertyImages.chunk("IDAT", PropertyImages.zlib([0, 0])) + PropertyImages.chunk("IEND", [])
        return try? Wand.withThreadWand { wand throws(MagickIOError) -> Orientation? in
            try wand.read(.memory(Data(png)), format: .png, ping: false, strictness: .acceptPartial)
            return wand.profile("exif").flatMap(EXIF.orientation)
        }
    }

    private static func requireFormat(_ data: Data) throws -> ImageFormat {
        guard let format = ImageFormat.sniff(data) else { throw MagickIOError(.unsupportedFormat, "no format") }
        return format
    }
}
