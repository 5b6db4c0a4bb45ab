internal import CMagickCompat
internal import CMagickWand
import Foundation

extension Wand {
    /// Whether the current image is RGB (sRGB or linear), which MagickIO's resampler takes.
    var isRGB: Bool {
        let colorspace = MagickGetImageColorspace(pointer)
        return colorspace == sRGBColorspace || colorspace == RGBColorspace
    }

    /// Resizes the current image with ImageMagick's Lanczos filter (`MagickResizeImage`).
    func resizeWithImageMagick(toWidth width: Int, height: Int) throws(MagickIOError) {
        try check(cmc_resize_image(pointer, width, height, LanczosFilter), fallback: .corruptImage)
    }

    /// Crops the current image to `crop` (`MagickCropImage`), leaving no page offset behind.
    func crop(_ crop: ImageRect) throws(MagickIOError) {
        // Flips and turns leave a page offset behind, which a crop would add to its own.
        try check(MagickResetImagePage(pointer, "0x0+0+0"), fallback: .corruptImage)
        try check(MagickCropImage(pointer, crop.width, crop.height, crop.x, crop.y), fallback: .corruptImage)
        try check(MagickResetImagePage(pointer, "0x0+0+0"), fallback: .corruptImage)
    }
}

extension Wand {
    /// Converts the current image to sRGB: through its embedded ICC profile with Little CMS
    /// (`MagickProfileImage`; the image takes the sRGB profile in its place), then any other
    /// colour space but grey by `MagickTransformImageColorspace`. A profile that cannot describe
    /// these pixels (an RGB profile on a greyscale JPEG, a truncated one) is ignored, as viewers do:
    /// the pixels are taken in their colour space's usual meaning.
    func convertToSRGB() throws(MagickIOError) {
        if let embeddedProfile = profile("icc"), embeddedProfile != sRGBProfile {
            let status = sRGBProfile.withUnsafeBytes { MagickProfileImage(pointer, "icc", $0.baseAddress, $0.count) }
            if status == MagickFalse {
                takeException()  // handled here: the fallback below
                removeProfile("icc")
            }
        }
        let colorspace = MagickGetImageColorspace(pointer)
        if colorspace != sRGBColorspace, colorspace != GRAYColorspace {
            try check(MagickTransformImageColorspace(pointer, sRGBColorspace), fallback: .corruptImage)
        }
    }

    /// Sets the current image's depth (`MagickSetImageDepth`): 8 bits per channel for a thumbnail.
    func setDepth(_ bits: Int) throws(MagickIOError) {
        try check(MagickSetImageDepth(pointer, bits), fallback: .corruptImage)
    }
}
