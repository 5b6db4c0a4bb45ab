internal import CMagickCompat
internal import CMagickWand
import Foundation

extension Wand {
    /// Applies `policy` to the current image's metadata.
    func apply(_ policy: MetadataPolicy) throws(MagickIOError) {
        switch policy {
        case .keepAll:
            return
        case .stripAll:
            try check(MagickStripImage(pointer), fallback: .encodingFailed)
        case .keepAllButGPS:
            if let exif = profile("exif") {
                let cleaned = EXIF.removingGPS(exif)
                if cleaned != exif {
                    // Fails closed: a profile that cannot be rewritten would keep the GPS tags.
                    try setProfile("exif", cleaned, fallback: .encodingFailed)
                }
            }
            if let xmp = profile("xmp"), String(decoding: xmp, as: UTF8.self).contains("GPS") {
                removeProfile("xmp")
            }
        }
    }

    /// The bytes of the current image's profile `name` (`exif`, `xmp`, `icc`, ...), or nil.
    func profile(_ name: String) -> [UInt8]? {
        var length = 0
        guard let bytes = MagickGetImageProfile(pointer, name, &length), length > 0 else { return nil }
        defer { MagickRelinquishMemory(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// Sets the current image's profile `name` to `bytes` (`MagickSetImageProfile`); throws, the
    /// image as it was, when ImageMagick cannot (no image, no memory).
    func setProfile(_ name: String, _ bytes: [UInt8], fallback: MagickIOError.Kind = .corruptImage) throws(MagickIOError) {
        let status = bytes.withUnsafeBytes { MagickSetImageProfile(pointer, name, $0.baseAddress, $0.count) }
        try check(status, fallback: fallback)
    }

    /// The names of the current image's profiles.
    func profileNames() -> [String] {
        var count = 0
        guard let list = MagickGetImageProfiles(pointer, "*", &count) else { return [] }
        defer { MagickRelinquishMemory(list) }
        return (0..<count).compactMap { index in
            guard let name = list[index] else { return nil }
            defer { MagickRelinquishMemory(name) }
            return String(cString: name)
        }
    }

    /// Sets the current image's property `name` (`comment`, `exif:Orientation`, ...) with
    /// `MagickSetImageProperty`; throws when ImageMagick cannot.
    func setProperty(_ name: String, _ value: String) throws(MagickIOError) {
        try check(MagickSetImageProperty(pointer, name, value), fallback: .corruptImage)
    }

    /// Removes the current image's profile `name`, if it has one (`MagickRemoveImageProfile`,
    /// which writes the removed profile's length: it must be given somewhere to write it).
    func removeProfile(_ name: String) {
        var length = 0
        if let removed = MagickRemoveImageProfile(pointer, name, &length) { MagickRelinquishMemory(removed) }
    }

    /// What ImageMagick's own check of a profile a coder attaches reports (an XMP packet must parse
    /// as XML: `SetImageProfile` in ImageMagick 6, the read's `xmp:*` properties in 7), for the profile `bytes` named `name` of a file ImageMagick
    /// would name `filename`: the exceptions its read would leave for that profile, without a coder
    /// or a second read of the file (the check runs on a 1x1 scratch image).
    static func profileCheck(_ name: String, _ bytes: [UInt8], filename: String) -> [MagickException] {
        let scratch = Wand()
        let background = NewPixelWand()
        defer { DestroyPixelWand(background) }
        guard MagickNewImage(scratch.pointer, 1, 1, background) != MagickFalse,
              MagickSetImageFilename(scratch.pointer, filename) != MagickFalse else { return [] }
        _ = bytes.withUnsafeBytes { MagickSetImageProfile(scratch.pointer, name, $0.baseAddress, $0.count) }
        if name == "xmp" { cmc_check_xmp(scratch.pointer) }
        return scratch.takeAllExceptions()
    }
}
