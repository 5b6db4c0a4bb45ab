internal import CMagickCompat
internal import CMagickWand
import Foundation

// The thin internal layer over MagickWand: process start-up, wand ownership and exception
// translation. Nothing here is public, and MagickWand's C types stay in this folder (`Wand/`): the
// rest of the module speaks to ImageMagick through `Wand`'s Swift verbs.

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
        // Its images may have been the last holders of pixel cache that decodes wait for.
        AdmissionGate.shared.poolChanged()
    }

    /// A new wand with its own copy of the image list (the pixel cache is shared copy-on-write).
    func clone() -> Wand {
        Wand(adopting: CloneMagickWand(pointer))
    }

    /// Runs `body` with this thread's reusable wand, cleared (`ClearMagickWand`) afterwards.
    ///
    /// Each thread keeps one wand for transient work (pings, decodes whose result is handed on as a
    /// clone, encodes), created on first use and destroyed when the thread exits. A nested call on
    /// the same thread gets a wand of its own, so a wand is never used twice at once.
    static func withThreadWand<T, E: Error>(_ body: (Wand) throws(E) -> T) throws(E) -> T {
        let key = threadWandKey
        let wand: Wand
        if let slot = pthread_getspecific(key) {
            wand = Unmanaged<Wand>.fromOpaque(slot).takeRetainedValue()
            pthread_setspecific(key, nil)
        } else {
            wand = Wand()
        }
        defer {
            ClearMagickWand(wand.pointer)
            if pthread_getspecific(key) == nil {
                pthread_setspecific(key, Unmanaged.passRetained(wand).toOpaque())
            }
        }
        return try body(wand)
    }

    /// Drops the wand's images and settings (`ClearMagickWand`), then routes its progress to
    /// `interrupt` again (the clear drops the monitor too).
    func clear(monitor interrupt: Interrupt?) {
        ClearMagickWand(pointer)
        monitor(interrupt)
    }

    // MARK: Exceptions

    /// The wand's pending exception, cleared, if it is at least `minimum` severe. Called for its
    /// effect alone where MagickIO handles the failure itself (a retry, a documented fallback).
    @discardableResult
    func takeException(minimum: ExceptionType = WarningException) -> MagickException? {
        var severity = UndefinedException
        guard let text = MagickGetException(pointer, &severity) else { return nil }
        defer { MagickRelinquishMemory(text) }
        let cleared = MagickClearException(pointer) != MagickFalse
        guard severity.rawValue >= minimum.rawValue else { return nil }
        let message = String(cString: text)
        return MagickException(severity: severity, message: cleared ? message : "\(message) (not cleared)")
    }

    /// Every exception the last read left, each once, and all of them cleared. ImageMagick 7 keeps
    /// them in the wand's list; 6 keeps the wand's most severe and the rest on each image (a coder
    /// may warn several times). A truncated JPEG reports its warning there, while the read itself
    /// succeeds.
    func takeAllExceptions() -> [MagickException] {
        var all: [MagickException] = []
        withUnsafeMutablePointer(to: &all) { list in
            cmc_wand_exception_list(pointer, collectException, list)
        }
        if let exception = takeException() { all.append(exception) }
        MagickResetIterator(pointer)
        while MagickNextImage(pointer) != MagickFalse {
            let wholeIfNone = all.isEmpty ? MagickTrue : MagickFalse
            withUnsafeMutablePointer(to: &all) { list in
                cmc_take_image_exceptions(pointer, wholeIfNone, collectException, list)
            }
        }
        MagickSetFirstIterator(pointer)
        var unique: [MagickException] = []
        for exception in all where !unique.contains(where: { $0.message == exception.message }) {
            unique.append(exception)
        }
        return unique
    }

    /// Throws the wand's exception if `status` is false; the kind comes from the severity, or
    /// `fallback` when ImageMagick gave none.
    func check(_ status: MagickBooleanType, fallback: MagickIOError.Kind, reading: Bool = false) throws(MagickIOError) {
        if status != MagickFalse { return }
        let exception = takeException(minimum: ErrorException)
        throw MagickIOError(exception: exception, fallback: fallback, reading: reading)
    }

    /// Composites the animation frames the wand holds (`MagickCoalesceImages`) and keeps only the
    /// last: what a viewer shows at that frame, the size of the canvas.
    func keepCompositedLastFrame() throws(MagickIOError) {
        // What the frames do not cover is transparent, as browsers and libvips show it; without
        // an alpha channel ImageMagick would paint it in the GIF's background colour. The channel
        // is added opaque (SetAlphaChannel): ImageMagick 7's ActivateAlphaChannel adds it with
        // whatever the new channel holds (transparent), where 6's opacity channel was opaque.
        MagickResetIterator(pointer)
        while MagickNextImage(pointer) != MagickFalse {
            if MagickGetImageAlphaChannel(pointer) == MagickFalse {
                try check(MagickSetImageAlphaChannel(pointer, SetAlphaChannel), fallback: .corruptImage)
            }
        }
        guard let coalesced = MagickCoalesceImages(pointer) else {
            throw MagickIOError(exception: takeException(minimum: ErrorException), fallback: .corruptImage, reading: true)
        }
        let all = Wand(adopting: coalesced)
        MagickSetLastIterator(all.pointer)
        guard let last = MagickGetImage(all.pointer) else {
            throw MagickIOError(exception: all.takeException(minimum: ErrorException), fallback: .corruptImage, reading: true)
        }
        let frame = Wand(adopting: last)
        ClearMagickWand(pointer)  // the caller sets its progress monitor again
        try check(MagickAddImage(pointer, frame.pointer), fallback: .corruptImage)
        MagickSetFirstIterator(pointer)
        try check(MagickResetImagePage(pointer, "0x0+0+0"), fallback: .corruptImage)
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

/// Appends each exception CMagickCompat visits to the `[MagickException]` passed as context.
private let collectException: CMCExceptionVisitor = { context, severity, message in
    guard let context, let message else { return }
    context.assumingMemoryBound(to: [MagickException].self).pointee
        .append(MagickException(severity: severity, message: String(cString: message)))
}
