internal import CMagickWand
import Foundation

extension Wand {
    /// Steps 3 to 5 of the thumbnail pipeline on the decoded image: resize to `stored` (the size
    /// in the stored axes; ``Resampler`` for RGB, `MagickResizeImage` with ImageMagick's Lanczos
    /// for the rest), turn upright, crop, normalise; the result is a new image.
    func finishThumbnail(_ geometry: ThumbnailGeometry, stored: (width: Int, height: Int), orientation: Orientation,
                         options: ThumbnailOptions, warnings: [DecoderWarning] = []) throws(MagickIOError) -> Image {
        if width != stored.width || height != stored.height,
           try !resample(toWidth: stored.width, height: stored.height) {
            try check(MagickResizeImage(pointer, stored.width, stored.height, LanczosFilter, 1.0), fallback: .corruptImage)
        }
        try applyOrientation(orientation)
        if let crop = geometry.crop {
            // Flips and turns leave a page offset behind, which a crop would add to its own.
            try check(MagickResetImagePage(pointer, "0x0+0+0"), fallback: .corruptImage)
            try check(MagickCropImage(pointer, crop.width, crop.height, crop.x, crop.y), fallback: .corruptImage)
            try check(MagickResetImagePage(pointer, "0x0+0+0"), fallback: .corruptImage)
        }
        try normalizeForThumbnail(options)
        return Image(wand: clone(), orientation: .up, warnings: warnings.map(\.message))
    }
}

extension Wand {
    /// sRGB (unless the profile is kept), 8 bits per channel, metadata as `options` say.
    func normalizeForThumbnail(_ options: ThumbnailOptions) throws(MagickIOError) {
        let embeddedProfile = profile("icc")
        if options.colorProfile == .convertToSRGB {
            if let embeddedProfile, embeddedProfile != sRGBProfile {
                // Little CMS converts from the embedded profile to sRGB and the image takes the
                // sRGB profile in its place.
                let status = sRGBProfile.withUnsafeBytes { MagickProfileImage(pointer, "icc", $0.baseAddress, $0.count) }
                try check(status, fallback: .corruptImage)
            }
            let colorspace = MagickGetImageColorspace(pointer)
            if colorspace != sRGBColorspace, colorspace != GRAYColorspace {
                try check(MagickTransformImageColorspace(pointer, sRGBColorspace), fallback: .corruptImage)
            }
        }
        try apply(options.metadata)
        if options.colorProfile == .keep, options.metadata == .stripAll, let embeddedProfile {
            setProfile("icc", embeddedProfile)
        }
        try check(MagickSetImageDepth(pointer, 8), fallback: .corruptImage)
    }
}
