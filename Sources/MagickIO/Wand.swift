import CMagickWand
import Foundation

// The thin internal layer over MagickWand: process start-up, wand ownership and exception
// translation. Nothing here is public, and raw C types stay in this file and its callers inside the
// module.

/// Process-wide ImageMagick start-up, run once (Swift runs a global's initialiser exactly once,
/// thread-safely) before the first MagickWand call.
private let magickRuntime: Void = {
    MagickWandGenesis()
    // ImageMagick's default handlers print to stderr. Everything it reports is read back from the
    // wand or image exception instead, so the handlers do nothing.
    _ = SetWarningHandler { _, _, _ in }
    _ = SetErrorHandler { _, _, _ in }
    ResourceLimits.applyStartupDefaults()
}()

enum MagickRuntime {
    /// Makes sure `MagickWandGenesis` has run; every entry point calls this first.
    @inline(__always)
    static func start() {
        _ = magickRuntime
    }
}

/// One MagickWand, owned by exactly one Swift value and used by one thread at a time.
///
/// The wand is destroyed when this object is. Callers never hand the pointer to another thread
/// while it is in use; `Image` guards its shared wand with a lock and works on clones.
final class Wand {
    let pointer: OpaquePointer

    init() {
        MagickRuntime.start()
        pointer = NewMagickWand()
    }

    /// Takes ownership of a wand made by `CloneMagickWand` or similar.
    init(adopting pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        DestroyMagickWand(pointer)
    }

    /// A new wand with its own copy of the image list (the pixel cache is shared copy-on-write).
    func clone() -> Wand {
        Wand(adopting: CloneMagickWand(pointer))
    }

    // MARK: Exceptions

    /// The wand's pending exception, cleared, if it is at least `minimum` severe.
    func takeException(minimum: ExceptionType = WarningException) -> MagickException? {
        var severity = UndefinedException
        guard let text = MagickGetException(pointer, &severity) else { return nil }
        defer { MagickRelinquishMemory(text) }
        MagickClearException(pointer)
        guard severity.rawValue >= minimum.rawValue else { return nil }
        return MagickException(severity: severity, message: String(cString: text))
    }

    /// The exception the coder left on the current image (a truncated JPEG reports its warning
    /// there, while the read itself succeeds).
    func takeImageException() -> MagickException? {
        guard let image = GetImageFromMagickWand(pointer) else { return nil }
        let severity = image.pointee.exception.severity
        guard severity.rawValue >= WarningException.rawValue else { return nil }
        let reason = image.pointee.exception.reason.map { String(cString: $0) } ?? ""
        let description = image.pointee.exception.description.map { String(cString: $0) } ?? ""
        ClearMagickException(&image.pointee.exception)
        let message = description.isEmpty ? reason : "\(reason) (\(description))"
        return MagickException(severity: severity, message: message)
    }

    /// Throws the wand's exception if `status` is false; the kind comes from the severity, or
    /// `fallback` when ImageMagick gave none.
    func check(_ status: MagickBooleanType, fallback: MagickIOError.Kind) throws(MagickIOError) {
        if status != MagickFalse { return }
        let exception = takeException(minimum: ErrorException)
        throw MagickIOError(exception: exception, fallback: fallback)
    }

    // MARK: Reading

    /// Reads or pings `bytes` with the coder named by `format`, never ImageMagick's own guess.
    ///
    /// Warnings that mean the pixels are incomplete (ImageMagick's `CorruptImageWarning`, e.g. a
    /// truncated JPEG) are errors: the caller asked for an image, not grey rows.
    func read(_ bytes: Data, format: ImageFormat, frame: Int? = nil, ping: Bool) throws(MagickIOError) {
        guard !bytes.isEmpty else { throw MagickIOError(.emptyData, "the data is empty") }
        MagickSetFormat(pointer, format.magickName)
        // A bare "[N]" file name selects frame N of a blob read without touching the file system.
        if let frame {
            MagickSetFilename(pointer, "[\(frame)]")
        }
        let status = bytes.withUnsafeBytes { raw -> MagickBooleanType in
            ping
                ? MagickPingImageBlob(pointer, raw.baseAddress, raw.count)
                : MagickReadImageBlob(pointer, raw.baseAddress, raw.count)
        }
        if status == MagickFalse || MagickGetNumberImages(pointer) == 0 {
            let exception = takeException(minimum: WarningException)
            throw MagickIOError(exception: exception, fallback: .corruptImage, reading: true)
        }
        for exception in [takeException(), takeImageException()].compactMap({ $0 }) where exception.meansCorruptPixels {
            throw MagickIOError(exception: exception, fallback: .corruptImage, reading: true)
        }
    }

    // MARK: Properties

    var width: Int { Int(MagickGetImageWidth(pointer)) }
    var height: Int { Int(MagickGetImageHeight(pointer)) }
    var imageCount: Int { Int(MagickGetNumberImages(pointer)) }

    /// The value of an image property such as `exif:Orientation`, or nil.
    func property(_ name: String) -> String? {
        guard let value = MagickGetImageProperty(pointer, name) else { return nil }
        defer { MagickRelinquishMemory(value) }
        return String(cString: value)
    }

    /// Every image property whose name matches `pattern` (ImageMagick glob syntax).
    func properties(matching pattern: String) -> [String: String] {
        var count = 0
        guard let names = MagickGetImageProperties(pointer, pattern, &count) else { return [:] }
        defer { MagickRelinquishMemory(names) }
        var result: [String: String] = [:]
        for index in 0..<count {
            guard let name = names[index] else { continue }
            defer { MagickRelinquishMemory(name) }
            let key = String(cString: name)
            result[key] = property(key)
        }
        return result
    }
}

/// What ImageMagick reported: its severity and its reason/description text.
struct MagickException {
    var severity: ExceptionType
    var message: String

    /// Warnings a coder gives when the pixels it returned are not all from the file.
    var meansCorruptPixels: Bool {
        switch severity {
        case CorruptImageWarning, CoderWarning: true
        default: severity.rawValue >= ErrorException.rawValue
        }
    }

    /// ImageMagick's name for the severity, e.g. `CorruptImageError`.
    var severityName: String {
        let value = Int(severity.rawValue)
        let level = value >= 700 ? "FatalError" : value >= 400 ? "Error" : "Warning"
        let domains = [
            0: "ResourceLimit", 5: "Type", 10: "Option", 15: "Delegate", 20: "MissingDelegate",
            25: "CorruptImage", 30: "FileOpen", 35: "Blob", 40: "Stream", 45: "Cache", 50: "Coder",
            52: "Filter", 55: "Module", 60: "Draw", 65: "Image", 70: "Wand", 75: "Random",
            80: "XServer", 85: "Monitor", 90: "Registry", 95: "Configure", 99: "Policy",
        ]
        return (domains[value % 100] ?? "") + level
    }
}
