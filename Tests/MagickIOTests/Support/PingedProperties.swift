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
        return frames
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
