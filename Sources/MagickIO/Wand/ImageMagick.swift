internal import CMagickCompat
internal import CMagickWand
import Synchronization

/// Process-wide facts about the ImageMagick underneath and MagickIO's settings of it: its version,
/// which formats it has, and which of them MagickIO lets it decode. (Named for ImageMagick, not
/// for this module, so that `MagickIO.Image` always names this module's ``Image``.)
///
/// ```swift
/// print(ImageMagick.availableFormats.allowed)        // [jpeg, png, gif, webp, tiff, bmp, heic, avif]
/// ImageMagick.allowedDecoders = [.jpeg, .png]        // this process takes JPEG and PNG only
/// ```
public enum ImageMagick {
    /// The decoders MagickIO allows unless told otherwise.
    public static let defaultAllowedDecoders: Set<ImageFormat> = [.jpeg, .png, .gif, .webp, .tiff, .bmp, .heic, .avif]

    /// ImageMagick's version, as it reports it (`ImageMagick 6.9.11-60 Q16 x86_64 ...`). Stands
    /// on `MagickGetVersion`.
    public static var version: String {
        MagickRuntime.start()
        var number = 0
        return MagickGetVersion(&number).map { String(cString: $0) } ?? ""
    }

    /// Whether ImageMagick's JPEG coder appends each COM segment to the ones before and sets the
    /// whole text as the comment again (ImageMagick 7's `ReadComment`: quadratic in the
    /// segments, 600,000 one-byte comments ran past a 10 s limit), where 6.9.11 keeps the last
    /// one alone. ``JPEGMetadata`` then counts each COM segment at the comments' length so far.
    static let appendsJPEGComments = cmc_is_imagemagick_7() != MagickFalse

    /// Whether ImageMagick's TIFF coder writes a temporary file to read a page's EXIF and GPS
    /// directories (ImageMagick 7's `TIFFSetImageProperties` prints them with libtiff and parses
    /// the text; 6.9.11 reads the tags): a decode worker must then be let create files.
    static let writesTemporaryFiles = cmc_is_imagemagick_7() != MagickFalse

    /// The formats MagickIO may decode, process-wide. Default: ``defaultAllowedDecoders``.
    ///
    /// Three layers enforce it: the content's signature is checked in Swift before ImageMagick sees
    /// a byte (content outside the list throws ``MagickIOError/Kind/formatNotAllowed``); the
    /// coder is forced to the recognised format, so ImageMagick never guesses; and ImageMagick's own
    /// security policy (`SetMagickSecurityPolicy`) allows reading by these coders only, writing by
    /// MagickIO's encoders only, and no delegate programs and no `@file` paths at all. Setting it
    /// applies a new policy at once. A format MagickIO does not recognise by signature is named by
    /// ImageMagick's magic table (no coder runs) and decoded only if it is in the list.
    public static var allowedDecoders: Set<ImageFormat> {
        get {
            MagickRuntime.start()
            return allowlist.withLock { $0 }
        }
        set {
            MagickRuntime.start()
            allowlist.withLock { allowed in
                allowed = newValue
                applySecurityPolicy(decoders: newValue)
            }
        }
    }

    /// What this ImageMagick can decode and encode, and what MagickIO allows of it. Stands on
    /// `MagickQueryFormats` and `GetMagickInfo`.
    public static var availableFormats: FormatSupport {
        MagickRuntime.start()
        var count = 0
        var decodable: Set<ImageFormat> = [], encodable: Set<ImageFormat> = []
        let exception = AcquireExceptionInfo()
        defer { DestroyExceptionInfo(exception) }
        if let names = MagickQueryFormats("*", &count) {
            defer { MagickRelinquishMemory(names) }
            for index in 0..<count {
                guard let name = names[index] else { continue }
                defer { MagickRelinquishMemory(name) }
                guard let info = GetMagickInfo(name, exception) else { continue }
                let format = ImageFormat(rawValue: String(cString: name))
                if info.pointee.decoder != nil { decodable.insert(format) }
                if info.pointee.encoder != nil { encodable.insert(format) }
            }
        }
        return FormatSupport(decodable: decodable, encodable: encodable, allowed: allowedDecoders.intersection(decodable))
    }

    private static let allowlist = Locked<Set<ImageFormat>>(defaultAllowedDecoders)

    /// The coders MagickIO encodes with. HEIC and AVIF are not among them: libheif writes those
    /// (HEIF/HEIFEncoder.swift), so ImageMagick's HEIC writer, which drops alpha, may not run.
    static let encoders = ["JPEG", "PNG", "WEBP"]
}

