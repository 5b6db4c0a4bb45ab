internal import CCodecs
import Foundation

/// MagickIO's own JPEG writer: libjpeg-turbo, called as ImageMagick's JPEG coder calls it
/// (`mio_jpeg_write`), for the thumbnails a decode worker answers with (``ImageSnapshot/directJPEG(pixels:quality:)``).
/// The host then writes their JPEG without making an ImageMagick image of them first; ImageMagick
/// stays the writer of every other image and format. Tests hold both writers to the same bytes
/// (`JPEGWriterTests`).
enum JPEGWriter {
    /// The JPEG of `height` rows of `width` 8-bit pixels at `rows`, `components` a pixel (3, RGB, or
    /// 1, grey), at `quality` (1...100), with the `sampling` factors (horizontal and vertical, of
    /// the first three components) or ImageMagick's default ones, with a JFIF density when
    /// `density` has one.
    static func encode(rows: UnsafePointer<UInt8>, width: Int, height: Int, components: Int, quality: Int,
                       sampling: [Int32]?, density: (x: UInt16, y: UInt16, unit: Int)) throws(MagickIOError) -> Data {
        precondition(components == 1 || components == 3)
        guard (1...65500).contains(width), (1...65500).contains(height) else {
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
