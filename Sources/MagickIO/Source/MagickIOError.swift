import Foundation

/// The one error MagickIO throws: what went wrong (``kind``), ImageMagick's own words for it
/// (``message``) and, when ImageMagick raised it, its severity.
///
/// Every public function of MagickIO throws this type and no other.
///
/// ```swift
/// do {
///     let thumb = try ImageSource(url: upload).thumbnail(maxPixelSize: 256)
/// } catch let error as MagickIOError where error.kind == .unsupportedFormat {
///     print(error.localizedDescription)   // "unsupportedFormat: the content is not a recognised image format"
/// }
/// ```
public struct MagickIOError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
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
        /// A remote source refused before any byte was fetched: its URL is outside the allowed
        /// sources, or its address is one the address guard refuses (loopback, private,
        /// link-local, ...). See ``MagickIOError/source``.
        case sourceNotAllowed
        /// A remote source failed: it answered an error status, too many redirects, timed out or
        /// broke off. See ``MagickIOError/source`` for the status or the reason.
        case sourceUnavailable
    }

    /// For ``Kind/sourceNotAllowed`` and ``Kind/sourceUnavailable``: the URL, and the HTTP status
    /// or the timeout that failed it, so that a proxy can tell 502 from 504.
    public struct Source: Sendable, Hashable {
        /// The URL asked for, or the redirect hop that failed.
        public var url: String
        /// The HTTP status the source answered, when it answered one.
        public var status: Int?
        /// Whether a timeout (connect, download or the whole request) ended it.
        public var timedOut: Bool

        public init(url: String, status: Int? = nil, timedOut: Bool = false) {
            self.url = url
            self.status = status
            self.timedOut = timedOut
        }
    }

    /// Which limit was exceeded, the value asked for and the limit.
    public struct Limit: Sendable, Hashable {
        /// The limit's name, as ``ResourceLimits`` spells it (`width`, `area`, `memory`, ...).
        public var name: String
        /// What the image needed.
        public var requested: Int
        /// The limit in force.
        public var limit: Int

        public init(name: String, requested: Int, limit: Int) {
            self.name = name
            self.requested = requested
            self.limit = limit
        }
    }

    /// What went wrong.
    public var kind: Kind
    /// ImageMagick's reason and description when it gave one, otherwise MagickIO's own.
    public var message: String
    /// ImageMagick's severity when the error came from ImageMagick.
    public var severity: Severity?
    /// For ``Kind/limitExceeded`` raised by MagickIO's own checks: which limit, and the numbers.
    public var limit: Limit?
    /// For the remote kinds (``Kind/sourceNotAllowed``, ``Kind/sourceUnavailable``): which
    /// source, and its status or timeout.
    public var source: Source?

    /// Makes an error; MagickIO's own checks use this, and so may tests of code built on MagickIO
    /// and MagickIORemote.
    public init(_ kind: Kind, _ message: String, severity: Severity? = nil, limit: Limit? = nil, source: Source? = nil) {
        self.kind = kind
        self.message = message
        self.severity = severity
        self.limit = limit
        self.source = source
    }

    public var description: String {
        var text = "\(kind.rawValue): \(message)"
        if let severity { text += " [\(severity)]" }
        return text
    }

    /// What happened, with ImageMagick's words: `localizedDescription` of a thrown error says it.
    public var errorDescription: String? { description }
}

extension MagickIOError {
    /// An ImageMagick exception severity: its domain and its level, named as ImageMagick names it
    /// (`CorruptImageError`, `ResourceLimitWarning`, `CacheFatalError`, ...).
    public struct Severity: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// How serious ImageMagick says it is.
        public enum Level: Sendable, Hashable {
            /// The operation went on (ImageMagick's 300-399).
            case warning
            /// The operation failed (400-699).
            case error
            /// ImageMagick considers the process unusable (700 and up).
            case fatalError
        }

        /// ImageMagick's `ExceptionType` value.
        public let rawValue: Int

        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        public var level: Level {
            rawValue >= 700 ? .fatalError : rawValue >= 400 ? .error : .warning
        }

        /// ImageMagick's name, e.g. `CorruptImageError`.
        public var name: String {
            let domains = [
                0: "ResourceLimit", 5: "Type", 10: "Option", 15: "Delegate", 20: "MissingDelegate",
                25: "CorruptImage", 30: "FileOpen", 35: "Blob", 40: "Stream", 45: "Cache", 50: "Coder",
                52: "Filter", 55: "Module", 60: "Draw", 65: "Image", 70: "Wand", 75: "Random",
                80: "XServer", 85: "Monitor", 90: "Registry", 95: "Configure", 99: "Policy",
            ]
            let level = switch self.level {
            case .warning: "Warning"
            case .error: "Error"
            case .fatalError: "FatalError"
            }
            return (domains[rawValue % 100] ?? "") + level
        }

        public var description: String { name }
    }
}

extension MagickIOError {
    /// The one translation of a failed system call: an ``Kind/io`` error saying what was being
    /// done and the C library's words for `code` (`strerror`), as swift-system's `Errno` does.
    static func errno(_ doing: String, _ code: Int32 = Glibc.errno) -> MagickIOError {
        MagickIOError(.io, "\(doing): \(String(cString: strerror(code)))")
    }

    /// A ``Kind/limitExceeded`` error with its numbers.
    static func limit(_ name: String, requested: Int, limit: Int, _ detail: String) -> MagickIOError {
        MagickIOError(.limitExceeded, "\(detail): over the \(name) limit of \(limit)",
                      limit: Limit(name: name, requested: requested, limit: limit))
    }
}
