internal import CMagickWand
import Foundation

extension Wand {
    /// Turns the current image's pixels upright for `orientation` and marks it ``Orientation/up``.
    ///
    /// Stands on `MagickFlopImage`, `MagickFlipImage`, `MagickTransposeImage`,
    /// `MagickTransverseImage` and `MagickRotateImage`, as `MagickAutoOrientImage` does, but from the
    /// orientation MagickIO decided on rather than ImageMagick's field.
    func applyOrientation(_ orientation: Orientation) throws(MagickIOError) {
        let status: MagickBooleanType
        switch orientation {
        case .up: status = MagickTrue
        case .upMirrored: status = MagickFlopImage(pointer)
        case .down: status = rotate(180)
        case .downMirrored: status = MagickFlipImage(pointer)
        case .leftMirrored: status = MagickTransposeImage(pointer)
        case .right: status = rotate(90)
        case .rightMirrored: status = MagickTransverseImage(pointer)
        case .left: status = rotate(270)
        }
        try check(status, fallback: .corruptImage)
        try check(MagickSetImageOrientation(pointer, TopLeftOrientation), fallback: .corruptImage)
        // Keep the EXIF block, if kept at all, in step with the pixels.
        if property("exif:Orientation") != nil {
            try setProperty("exif:Orientation", "1")
        }
    }

    private func rotate(_ degrees: Double) -> MagickBooleanType {
        let background = NewPixelWand()
        defer { DestroyPixelWand(background) }
        return MagickRotateImage(pointer, background, degrees)
    }
}
