import CMagickWand

/// Which metadata an image keeps when it is encoded or thumbnailed.
///
/// ```swift
/// let shareable = try image.encoded(as: .jpeg(quality: 90), metadata: .keepAllButGPS)
/// ```
public enum MetadataPolicy: Sendable, Hashable, CaseIterable {
    /// Keep EXIF, XMP, IPTC, ICC profiles and comments.
    case keepAll
    /// Keep everything but location: the EXIF GPS directory is emptied (every GPS value's bytes are
    /// zeroed) and an XMP packet that mentions GPS is dropped.
    case keepAllButGPS
    /// Keep nothing (`MagickStripImage`): the default for thumbnails.
    case stripAll
}

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
                    setProfile("exif", cleaned)
                }
            }
            if let xmp = profile("xmp"), String(decoding: xmp, as: UTF8.self).contains("GPS") {
                if let removed = MagickRemoveImageProfile(pointer, "xmp", nil) { MagickRelinquishMemory(removed) }
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

    /// Sets the current image's profile `name` to `bytes` (a failure leaves the image as it was).
    func setProfile(_ name: String, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { MagickSetImageProfile(pointer, name, $0.baseAddress, $0.count) }
    }
}
