/// The one error MagickIO throws: what went wrong (``kind``), ImageMagick's own words for it
/// (``message``) and, when ImageMagick raised it, its severity.
///
/// ```swift
/// do {
///     let thumb = try ImageSource(url: upload).thumbnail(maxPixelSize: 256)
/// } catch let error as MagickIOError where error.kind == .unsupportedFormat {
///     // not an image
/// }
/// ```
public struct MagickIOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, to `switch` on.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The file does not exist.
        case fileNotFound
        /// The data or file has no bytes.
        case emptyData
        /// The content is not an image format MagickIO recognises (e.g. text named `.jpg`).
        case unsupportedFormat
        /// The format is recognised but not in the allowlist of decoders.
        case formatNotAllowed
        /// The image is damaged or truncated.
        case corruptImage
        /// Decoding would exceed a resource limit (see ``MagickIOError/limit``).
        case limitExceeded
        /// The frame index is not below ``ImageSource/count``.
        case frameOutOfRange
        /// The image could not be encoded.
        case encodingFailed
        /// The operation was cancelled.
        case cancelled
        /// Reading or writing a file failed.
        case io
    }

    /// Which limit was exceeded, the value asked for and the limit.
    public struct Limit: Sendable, Hashable {
        /// The limit's name, as ``ResourceLimits`` spells it (`width`, `area`, `memory`, ...).
        public var name: String
        /// What the image needed.
        public var requested: Int
        /// The limit in force.
        public var limit: Int
    }

    /// What went wrong.
    public var kind: Kind
    /// ImageMagick's reason and description when it gave one, otherwise MagickIO's own.
    public var message: String
    /// ImageMagick's severity name (`CorruptImageError`, `ResourceLimitError`, ...) when the error
    /// came from ImageMagick.
    public var severity: String?
    /// For ``Kind/limitExceeded`` raised by MagickIO's own checks: which limit, and the numbers.
    public var limit: Limit?

    /// Makes an error; MagickIO's own checks use this, and so may tests of code built on MagickIO.
    public init(_ kind: Kind, _ message: String, severity: String? = nil, limit: Limit? = nil) {
        self.kind = kind
        self.message = message
        self.severity = severity
        self.limit = limit
    }

    public var description: String {
        var text = "\(kind.rawValue): \(message)"
        if let severity { text += " [\(severity)]" }
        return text
    }
}

extension MagickIOError {
    /// A ``Kind/limitExceeded`` error with its numbers.
    static func limit(_ name: String, requested: Int, limit: Int, _ detail: String) -> MagickIOError {
        MagickIOError(.limitExceeded, "\(detail): over the \(name) limit of \(limit)",
                      limit: Limit(name: name, requested: requested, limit: limit))
    }
}
