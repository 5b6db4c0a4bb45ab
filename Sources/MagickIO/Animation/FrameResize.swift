import Foundation

/// One composited canvas (8-bit straight RGBA) to thumbnail size: streamed through
/// ``Resampler`` a row at a time (Lanczos-3, colour weighted by alpha), the rows inside `crop`
/// kept as 8-bit RGBA. What an animation's frames go through one after the other.
enum FrameResize {
    /// Resamples `canvas` (`size`) to `output`, and writes the region `crop` of it (all of it when
    /// nil) into `target`, `crop.width * crop.height * 4` bytes. Stops between rows when
    /// `interrupt` says so.
    static func resample(_ canvas: UnsafePointer<UInt8>, size: (width: Int, height: Int), to output: (width: Int, height: Int),
                         crop: ThumbnailGeometry.Crop?, into target: UnsafeMutablePointer<UInt8>,
                         interrupt: Interrupt?) throws(MagickIOError) {
        let region = crop ?? ThumbnailGeometry.Crop(x: 0, y: 0, width: output.width, height: output.height)
        try Resampler.stream(
            input: size, output: output, channels: 4,
            read: { (y, row) throws(MagickIOError) in
                SampleConversion.convert(canvas + y * size.width * 4, count: size.width * 4, into: row)
            },
            write: { (y, row) throws(MagickIOError) in
                guard y >= region.y, y < region.y + region.height else { return }
                let out = target + (y - region.y) * region.width * 4
                let from = row + region.x * 4
                for i in 0..<(region.width * 4) {
                    out[i] = UInt8(min(max(from[i], 0), 1) * 255 + 0.5)
                }
            },
            progress: { (_, _) throws(MagickIOError) in
                guard let interrupt, !interrupt.progressPoint() else { return }
                try interrupt.check()
                throw MagickIOError(.cancelled, "the operation was cancelled")
            })
    }
}

extension Wand {
    /// Replaces the wand's image with `width` x `height` pixels of 8-bit straight RGBA, with an
    /// alpha channel when `alpha` (the header says the frame has one, as ImageMagick's coder then
    /// gives it) or when a pixel is not opaque.
    func place(rgba: UnsafePointer<UInt8>, width: Int, height: Int, alpha: Bool) throws(MagickIOError) {
        var opaque = !alpha
        for i in 0..<(width * height) where opaque && rgba[i * 4 + 3] != 255 {
            opaque = false
            break
        }
        try newImage(width: width, height: height, alpha: !opaque)
        let channels = opaque ? 3 : 4
        let row = UnsafeMutablePointer<Float>.allocate(capacity: width * channels)
        defer { row.deallocate() }
        for y in 0..<height {
            let line = rgba + y * width * 4
            if opaque {
                for x in 0..<width {
                    SampleConversion.convert(line + x * 4, count: 3, into: row + x * 3)
                }
            } else {
                SampleConversion.convert(line, count: width * 4, into: row)
            }
            try importRow(y, row, map: opaque ? "RGB" : "RGBA")
        }
    }
}
