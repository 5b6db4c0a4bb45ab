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

