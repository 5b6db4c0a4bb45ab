internal import CMagickWand

// ImageMagick's exceptions, as MagickIO reads them and turns them into MagickIOError.

extension MagickIOError {
    /// Translates an ImageMagick exception. `reading` says a decode was under way, so that a
    /// missing delegate means an unsupported format rather than an encoding failure.
    init(exception: MagickException?, fallback: Kind, reading: Bool = false) {
        guard let exception else {
            self.init(fallback, "ImageMagick failed without a reason")
            return
        }
        let kind: Kind
        switch exception.severity {
        case CacheError, CacheWarning, CacheFatalError:
            // The pixel cache fails when it cannot get memory (its "cache resources exhausted").
            kind = .limitExceeded
        case ResourceLimitError, ResourceLimitWarning, ResourceLimitFatalError:
            // ImageMagick's generic error, warning and fatal severities share these values with
            // the resource ones (ErrorException is ResourceLimitError): the words tell them apart.
            let words = exception.message.lowercased()
            let resource = ["memory", "limit", "exhausted", "allocat", "exceeds", "too large"].contains { words.contains($0) }
            kind = resource ? .limitExceeded : reading ? .corruptImage : fallback
        case MissingDelegateError, MissingDelegateWarning:
            kind = reading ? .unsupportedFormat : .encodingFailed
        case PolicyError, PolicyWarning:
            kind = .formatNotAllowed
        case CorruptImageError, CorruptImageWarning, CoderError, CoderWarning:
            kind = reading ? .corruptImage : fallback
        case FileOpenError, FileOpenWarning, BlobError, BlobWarning:
            kind = reading ? .corruptImage : .io
        default:
            kind = fallback
        }
        self.init(kind, exception.message, severity: exception.publicSeverity)
    }
}

/// What ImageMagick reported: its severity and its reason/description text.
struct MagickException {
    var severity: ExceptionType
    var message: String

    init(severity: ExceptionType, message: String) {
        self.severity = severity
        self.message = message
    }

    /// The severity as MagickIOError reports it.
    var publicSeverity: MagickIOError.Severity {
        MagickIOError.Severity(rawValue: Int(severity.rawValue))
    }
}
