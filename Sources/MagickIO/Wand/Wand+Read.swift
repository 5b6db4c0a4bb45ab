internal import CMagickCompat
internal import CMagickWand
import Foundation

extension Wand {
    /// Reads or pings `bytes` with the coder named by `format`, never ImageMagick's own guess, and
    /// returns what the decoder warned about.
    ///
    /// A warning `strictness` refuses throws ``MagickIOError/Kind/corruptImage`` with the
    /// decoder's words. ImageMagick reports some failures without a reason (its PNG and HEIC coders
    /// drop it with the image they destroy): when the process's pixel cache could not have held
    /// `cacheBytes` more, that is resource exhaustion (``MagickIOError/Kind/limitExceeded``), otherwise
    /// damage.
    ///
    /// With `heapShare`, ImageMagick's heap on this thread is held to that many bytes while it reads
    /// (``HeapBudget``): a coder's request past it ends the read with a `memoryBudget`
    /// ``MagickIOError/limit``.
    @discardableResult
    func read(_ bytes: SourceBytes, format: ImageFormat, frames: ClosedRange<Int>? = nil, ping: Bool,
              strictness: Strictness = .refuseDamage, cacheBytes: Int? = nil, heapShare: Int? = nil) throws(MagickIOError) -> [DecoderWarning] {
        let read = { () throws(MagickIOError) -> [DecoderWarning] in
            let decode = { () throws(MagickIOError) -> [DecoderWarning] in
                try self.readNamingDescriptor(bytes, format: format, frames: frames, ping: ping, strictness: strictness,
                                              cacheBytes: cacheBytes)
            }
            // The HEIC and AVIF coders decode through libheif: on a zeroed heap (``HeapScrub``).
            return try format.isHEIF && !ping ? HeapScrub.run(decode) : decode()
        }
        do throws(MagickIOError) {
            guard let heapShare else { return try read() }
            return try HeapBudget.run(share: heapShare, coder: format, read)
        } catch {
            // libjpeg's words lead by what they mean for the file (``DecoderMessages``).
            var named = error
            named.message = DecoderMessages.explained(error.message, format: format)
            // ImageMagick names the file it was given, the descriptor's /proc link: say the
            // caller's path instead.
            if case .file(let file) = bytes, file.path != file.magickPath {
                named.message = named.message.replacingOccurrences(of: file.magickPath, with: file.path)
            }
            throw named
        }
    }

    private func readNamingDescriptor(_ bytes: SourceBytes, format: ImageFormat, frames: ClosedRange<Int>?, ping: Bool,
                                      strictness: Strictness, cacheBytes: Int?) throws(MagickIOError) -> [DecoderWarning] {
        guard bytes.count > 0 else { throw MagickIOError(.emptyData, "the data is empty") }
        try MagickRuntime.checkSecurityPolicy()
        try check(MagickSetFormat(pointer, format.magickName), fallback: .unsupportedFormat, reading: true)
        var status: MagickBooleanType
        if cmc_is_imagemagick_7() != MagickFalse, format == .bmp, let widened = BMPProperties.widenedInfoHeader(bytes) {
            status = try readBlob(widened, frames: frames, ping: ping)
        } else {
            switch bytes {
            case .file(let file):
                let name = "\(format.magickName):\(file.magickPath)\(Self.subimageSpec(frames))"
                status = ping ? MagickPingImage(pointer, name) : MagickReadImage(pointer, name)
                if status == MagickFalse, MagickGetExceptionType(pointer) == PolicyError {
                    // The path was unlinked or replaced since the source opened it: ImageMagick's path
                    // policy refuses the "(deleted)" link. The descriptor still reads the file.
                    takeException()  // handled here: the fallback below
                    try check(MagickSetFormat(pointer, format.magickName), fallback: .unsupportedFormat, reading: true)
                    status = try readBlob(file.readAll(), frames: frames, ping: ping)
                }
            case .memory(let data):
                status = try readBlob(data, frames: frames, ping: ping)
            }
        }
        if status == MagickFalse || MagickGetNumberImages(pointer) == 0 {
            guard let exception = takeException(minimum: WarningException) else {
                if let cacheBytes, MagickCache.wouldOverflow(adding: cacheBytes) {
                    throw MagickIOError(.limitExceeded, "the \(format) decoder failed while ImageMagick's pixel cache, one pool for the whole process, could not take \(cacheBytes >> 20) MiB more (\(MagickCache.inUse >> 20) MiB of \(MagickCache.limit >> 20) MiB in use)")
                }
                throw MagickIOError(.corruptImage, "the \(format) decoder gave up without a reason: the data is truncated or damaged")
            }
            throw MagickIOError(exception: exception, fallback: .corruptImage, reading: true)
        }
        // Named as errors are: the caller's path, not the descriptor's /proc link.
        let exceptions = takeAllExceptions().map { exception in
            guard case .file(let file) = bytes, file.path != file.magickPath else { return exception }
            var named = exception
            named.message = exception.message.replacingOccurrences(of: file.magickPath, with: file.path)
            return named
        }
        return try Self.warnings(exceptions, format: format, bytes: bytes, strictness: strictness)
    }

    /// What a read's exceptions (an image came back) come to under `strictness`: the warnings, in
    /// order, each once; or the error a refused one, or one at error severity, throws.
    static func warnings(_ exceptions: [MagickException], format: ImageFormat, bytes: SourceBytes,
                         strictness: Strictness) throws(MagickIOError) -> [DecoderWarning] {
        var warnings: [DecoderWarning] = []
        for exception in exceptions {
            if exception.severity.rawValue >= ErrorException.rawValue,
               !DecoderWarning.isContainerOddity(exception.message, format: format, bytes: bytes) {
                // An image came back, but the decoder said it failed: partial pixels at best.
                let resource = MagickIOError(exception: exception, fallback: .corruptImage, reading: true)
                guard strictness == .acceptPartial, resource.kind == .corruptImage else { throw resource }
            }
            let warning = DecoderWarning(exception.message, format: format)
            if strictness.refuses(warning) {
                throw MagickIOError(exception: exception, fallback: .corruptImage, reading: true)
            }
            if !warnings.contains(warning) { warnings.append(warning) }
        }
        return warnings
    }

    /// ImageMagick's subimage suffix: `[N]` or `[N-M]`, or nothing for every frame.
    static func subimageSpec(_ frames: ClosedRange<Int>?) -> String {
        guard let frames else { return "" }
        return frames.count == 1 ? "[\(frames.lowerBound)]" : "[\(frames.lowerBound)-\(frames.upperBound)]"
    }

    private func readBlob(_ data: Data, frames: ClosedRange<Int>?, ping: Bool) throws(MagickIOError) -> MagickBooleanType {
        // A bare "[N]" file name selects frame N of a blob read without touching the file system.
        try check(MagickSetFilename(pointer, Self.subimageSpec(frames)), fallback: .corruptImage, reading: true)
        return data.withUnsafeBytes { raw -> MagickBooleanType in
            ping
                ? MagickPingImageBlob(pointer, raw.baseAddress, raw.count)
                : MagickReadImageBlob(pointer, raw.baseAddress, raw.count)
        }
    }

    /// Runs `body` with each image of the wand current in turn, and returns what it gave.
    func eachImage<T>(_ body: () -> T) -> [T] {
        var results: [T] = []
        MagickResetIterator(pointer)
        while MagickNextImage(pointer) != MagickFalse {
            results.append(body())
        }
        rewind()
        return results
    }

    /// Undoes what ImageMagick's GIF coder takes from ImageMagick's own application extension
    /// ("ImageMagick", `gamma=...`, written for an image whose gamma is not 1/2.2), which no other
    /// decoder reads: the gamma, and with gamma 1 the frames marked linear RGB, which every
    /// conversion to sRGB then brightens. A GIF's colours are sRGB's; the pixels are left as stored.
    func forgetGIFGamma() throws(MagickIOError) {
        let statuses = eachImage { () -> MagickBooleanType in
            MagickSetImageGamma(pointer, 1 / 2.2)
            guard MagickGetImageColorspace(pointer) == RGBColorspace else { return MagickTrue }
            return MagickSetImageColorspace(pointer, sRGBColorspace)
        }
        for status in statuses { try check(status, fallback: .corruptImage) }
    }

    /// Asks the JPEG decoder for the DCT scale `hint` gives (`jpeg:size`); throws when the option
    /// cannot be set, because the estimate the limits passed counted on the scale.
    func setJPEGScaleHint(_ hint: JPEGScale.Hint) throws(MagickIOError) {
        try check(MagickSetOption(pointer, "jpeg:size", hint.option), fallback: .limitExceeded)
    }
}
