internal import CMagickCompat
internal import CMagickWand
import Foundation

extension Wand {
    /// The current image's EXIF orientation: ImageMagick's field, or the `exif:Orientation`
    /// property when the field was left undefined.
    var orientation: Orientation {
        let field = Int(MagickGetImageOrientation(pointer).rawValue)
        if (1...8).contains(field) { return Orientation(exifValue: field) }
        return Orientation(exifValue: property("exif:Orientation").flatMap { Int($0) } ?? 1)
    }
}

extension ImageProperties {
    /// Reads the properties of the wand's current image (pinged or decoded).
    init(wand: Wand, format: ImageFormat) {
        let pointer = wand.pointer
        self.format = format
        pixelWidth = wand.width
        pixelHeight = wand.height
        if format.isAnimation {
            // A frame of an animation is shown on its canvas (the logical screen).
            var canvasWidth = 0, canvasHeight = 0, x = 0, y = 0
            // No page (the call fails): the frame is its own canvas.
            if MagickGetImagePage(pointer, &canvasWidth, &canvasHeight, &x, &y) != MagickFalse, canvasWidth > 0, canvasHeight > 0 {
                isOffsetOnCanvas = x != 0 || y != 0 || canvasWidth != pixelWidth || canvasHeight != pixelHeight
                pixelWidth = canvasWidth
                pixelHeight = canvasHeight
            }
        }
        orientation = format.hasOrientationTag ? wand.orientation : .up
        if format == .png, let exif = wand.profile("exif"), let tagged = EXIF.orientation(exif) {
            // ImageMagick writes a PNG's EXIF as a "Raw profile type exif" text chunk, which its
            // reader turns back into a profile but not into an orientation. (An `eXIf` chunk, which
            // it ignores, is read from the header and takes precedence.)
            orientation = tagged
        }
        hasAlpha = MagickGetImageAlphaChannel(pointer) != MagickFalse
        colorSpace = Self.colorSpaceName(MagickGetImageColorspace(pointer))
        bitDepth = Int(MagickGetImageDepth(pointer))
        var x = 0.0, y = 0.0
        // No resolution read (the call fails): none is reported. JFIF's "no unit" 1x1 is an aspect
        // ratio, not a density: only a real unit gives one.
        if MagickGetImageResolution(pointer, &x, &y) != MagickFalse, x > 0, y > 0, MagickGetImageUnits(pointer) != UndefinedResolution {
            // ImageMagick keeps the file's unit; report pixels per inch.
            let perCentimetre = MagickGetImageUnits(pointer) == PixelsPerCentimeterResolution
            resolution = perCentimetre ? Resolution(x: x * 2.54, y: y * 2.54) : Resolution(x: x, y: y)
        }
        var tags: [String: String] = [:]
        for (key, value) in wand.properties(matching: "exif:*") {
            tags[String(key.dropFirst("exif:".count))] = value
        }
        // ImageMagick 7 prints EXIF byte strings as characters and rational lists without spaces,
        // where 6.9.11 and MagickIO's walkers print numbers (``EXIFProperties``): on 7 the tags of
        // an `exif` profile are read by the walker, so that both lines answer the same. (The
        // properties are still read above: ImageMagick keeps what that parse sets on the image.)
        if cmc_is_imagemagick_7() != MagickFalse, let profile = wand.profile("exif") {
            tags = EXIFProperties.dictionary(profile)
        }
        exif = tags
    }

    static func colorSpaceName(_ space: ColorspaceType) -> String {
        guard let name = CommandOptionToMnemonic(MagickColorspaceOptions, Int(space.rawValue)) else {
            return "undefined"
        }
        return String(cString: name).lowercased()
    }
}
