internal import CCodecs
internal import CMagickCompat
internal import CMagickWand
import Foundation

/// MagickIO's own JPEG writer: libjpeg-turbo, called as ImageMagick's JPEG coder calls it
/// (`mio_jpeg_write`), for the thumbnails a decode worker answers with (``ImageSnapshot/directJPEG(pixels:quality:)``).
/// The host then writes their JPEG without making an ImageMagick image of them first; ImageMagick
/// stays the writer of every other image and format. Tests hold both writers to the same bytes
/// (`JPEGWriterTests`).
enum JPEGWriter {
    /// Whether the ImageMagick this process runs writes a JPEG as this writer does: a Q16 build
    /// (16-bit integer quanta, not HDRI) of 6.9, or of 7.1.1 from 7.1.1-29 (earlier 7.1.1 wrote a
    /// 0:0 density for an image without a resolution). The tests hold both writers to the same
    /// bytes on 6.9.11-60 and 7.1.1-43, Debian 12's and 13's, both Q16; any other line, quantum
    /// depth or HDRI build is left to ImageMagick's coder.
    static let reproducesImageMagick = reproduces(version: ImageMagick.version)

    static func reproduces(version: String) -> Bool {
        // "ImageMagick 7.1.1-43 Q16 x86_64 22550 https://imagemagick.org"
        let words = version.split(separator: " ")
        guard words.count > 2, words[0] == "ImageMagick", words[2] == "Q16" else { return false }
        let numbers = words[1].split(whereSeparator: { $0 == "." || $0 == "-" }).map { Int($0) }
        guard numbers.count == 4, let major = numbers[0], let minor = numbers[1], let patch = numbers[2],
              let build = numbers[3] else { return false }
        return major == 6 && minor == 9 || major == 7 && minor == 1 && patch == 1 && build >= 29
    }

    /// Whether ImageMagick moves an image's quanta to the levels of its depth when the depth is set
    /// (7.1's `SetImageDepth` does, by its own rule; 6.9's keeps the 16-bit quanta): then only an
    /// image already on them is written here (``ImageSnapshot/directJPEG(pixels:quality:)``).
    static let movesQuantaToDepth = cmc_is_imagemagick_7() != MagickFalse
    /// The JPEG of `height` rows of `width` 8-bit pixels at `rows`, `components` a pixel (3, RGB, or
    /// 1, grey), at `quality` (1...100), with the `sampling` factors (horizontal and vertical, of
    /// the first three components) or ImageMagick's default ones, with a JFIF density when
    /// `density` has one.
    static func encode(rows: UnsafePointer<UInt8>, width: Int, height: Int, components: Int, quality: Int,
                       sampling: [Int32]?, density: (x: UInt16, y: UInt16, unit: Int)) throws(MagickIOError) -> Data {
        precondition(components == 1 || components == 3)
        guard (1...Int(UInt32.max)).contains(width), (1...Int(UInt32.max)).contains(height) else {
            throw MagickIOError(.encodingFailed, "a JPEG cannot be \(width)x\(height) pixels")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let message = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
        defer { message.deallocate() }
        precondition(sampling.map { $0.count == 6 } ?? true)
        let status = (sampling ?? []).withUnsafeBufferPointer { factors in
            mio_jpeg_write(rows, UInt32(width), UInt32(height), Int32(components), Int32(min(max(quality, 1), 100)),
                           sampling == nil ? nil : factors.baseAddress, density.x, density.y, Int32(density.unit), &output,
                           &length, message, 256)
        }
        guard status == 0, let output else {
            throw MagickIOError(.encodingFailed, "libjpeg-turbo could not write the JPEG: \(String(cString: message))")
        }
        return Data(bytesNoCopy: output, count: length, deallocator: .free)
    }
}
