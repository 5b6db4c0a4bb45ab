import CLibFuzzer
import Foundation
@_spi(Benchmarks) import MagickIO

/// The fuzzer's own `main`, which hands over to libFuzzer's driver with the usual libFuzzer command
/// line. libFuzzer's own `main` cannot be used: SwiftPM links every executable with `main` aliased
/// to `MagickIOFuzz_main` (so that tests can link executables), and with `-parse-as-library` and
/// no `@main` that symbol does not exist. (One file with the entry point below: referring to a
/// `@_cdecl` function from another file emits its C symbol there too, a duplicate definition.)
@main
enum Driver {
    static func main() {
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        var argumentCount = CommandLine.argc
        exit(LLVMFuzzerRunDriver(&argumentCount, &arguments, fuzzOneInput))
    }
}

/// A file that holds each input in turn, read back as a file: made and unlinked at once (its
/// descriptor stays open), so that nothing is left behind however the process ends. Nil if the
/// system gives none.
let scratchDescriptor: Int32? = {
    var template = Array((FileManager.default.temporaryDirectory.path + "/magickio-fuzz-XXXXXX").utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else { return nil }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return descriptor
}()

/// The scratch file holding exactly `data`, or nil when it cannot.
func scratchFile(holding data: Data) -> Int32? {
    guard let descriptor = scratchDescriptor, ftruncate(descriptor, 0) == 0 else { return nil }
    let written = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    return written == data.count ? descriptor : nil
}

/// libFuzzer's entry point: MagickIO's public API over arbitrary bytes, as an upload would reach it.
///
/// Each input is opened with `ImageSource(data:)`, the properties of its first four frames are read,
/// a 48-pixel thumbnail is made through MagickIO's own JPEG, PNG, WebP, TIFF and HEIF decoders and through
/// ImageMagick's (their sizes must agree), and through the own decoders again from the bytes written to a
/// file (the same pixels; for HEIF the same size), and a 64-pixel thumbnail, from the picture and from any thumbnail the
/// file embeds, with its dominant colour, and a 32x32 square cropped by attention (its crop inside the picture),
/// and for an animated GIF or WebP the animated thumbnail (giflib, libwebp's WebPAnimDecoder),
/// written back as an animated WebP and GIF (WebPAnimEncoder, giflib).
/// `MagickIOError`s of the kinds untrusted input may produce are the expected outcome and are
/// swallowed; anything else ends the process so that libFuzzer keeps the input: a crash or
/// sanitizer report (by itself), an error kind that bad input must never cause, or a thumbnail of
/// an impossible size.
/// The decoders run in the fuzzer's own process, where its coverage and sanitizers see them (a
/// decode worker would hide them).
func inProcess(_ options: DecodingOptions) -> DecodingOptions {
    var options = options
    options.isolation = .inProcess
    return options
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        let source = try ImageSource(data: data, options: inProcess(DecodingOptions()))
        guard source.count > 0 else { fatalError("a source opened with no frames") }
        for index in 0..<min(source.count, 4) {
            let properties = try source.properties(at: index)
            guard properties.pixelWidth > 0, properties.pixelHeight > 0 else {
                fatalError("frame \(index) of a \(source.format) source is \(properties.pixelWidth)x\(properties.pixelHeight)")
            }
        }
        // MagickIO's own JPEG, PNG, WebP, TIFF and HEIF decoders against ImageMagick's on the same bytes:
        // where both make a thumbnail, it has the same size (the own paths hand anything unusual over).
        var imageMagickOnly = ThumbnailOptions()
        imageMagickOnly.ownDecoders = false
        let own = try? source.thumbnail(maxPixelSize: 48)
        let magick = try? source.thumbnail(maxPixelSize: 48, options: imageMagickOnly)
        if let own, let magick, own.width != magick.width || own.height != magick.height {
            fatalError("\(source.format): \(own.decoderName) made \(own.width)x\(own.height), ImageMagick \(magick.width)x\(magick.height)")
        }
        // The same bytes from a file, which the own decoders read with pread a piece at a time
        // (libjpeg's source 256 KiB, the PNG inflater 64 KiB), not from memory: the same picture.
        // A picture left partly unwritten by its decoder shows here as other pixels: what the heap
        // held. Except for HEIF: libde265 leaves the blocks after a damaged slice unwritten (in
        // an AVIF too, when its items are HEVC), which MagickIO's zeroed heap (HeapScrub, held by
        // ContainerOdditiesTests) covers in a plain build only, never under ASan's allocator; its
        // size is still compared. (scripts/perturb-sweep.sh looks for such pixels in plain builds.)
        if let own, own.decoderName != "ImageMagick", let descriptor = scratchFile(holding: data) {
            let fromFile = try? ImageSource(fileDescriptor: descriptor, options: inProcess(DecodingOptions())).thumbnail(maxPixelSize: 48)
            guard let fromFile, fromFile.width == own.width, fromFile.height == own.height,
                  [.heic, .avif].contains(source.format) || (try? fromFile.pixels(.rgba8).bytes) == (try? own.pixels(.rgba8).bytes) else {
                fatalError("\(source.format): \(own.decoderName) from memory made \(own.width)x\(own.height), from a file "
                           + (fromFile.map { "\($0.decoderName) \($0.width)x\($0.height), other pixels" } ?? "nothing"))
            }
        }
        // The picture itself, then whatever thumbnail the file carries (EXIF's JPEG, a HEIF item).
        for embedded in [ThumbnailOptions.EmbeddedThumbnail.never, .always] {
            let thumbnail = try source.thumbnail(maxPixelSize: 64, options: ThumbnailOptions(embedded: embedded))
            guard thumbnail.width > 0, thumbnail.height > 0, max(thumbnail.width, thumbnail.height) <= 64 else {
                fatalError("a \(source.format) thumbnail (\(embedded)) of \(thumbnail.width)x\(thumbnail.height) for a maximum of 64")
            }
            _ = try thumbnail.dominantColor()
        }
        // A square chosen by the attention crop: its window lies inside the upright picture.
        let square = try source.thumbnail(size: ImageSize(width: 32, height: 32), mode: .fill,
                                          options: ThumbnailOptions(crop: .attention))
        let upright = try source.properties(at: 0)
        if let rect = square.cropRect, rect.x < 0 || rect.y < 0 || rect.width < 1 || rect.height < 1
            || rect.x + rect.width > upright.orientedWidth || rect.y + rect.height > upright.orientedHeight {
            fatalError("\(source.format): crop \(rect) outside \(upright.orientedWidth)x\(upright.orientedHeight)")
        }
        // An animation's frames, composited one at a time, and written back: at most eight of them,
        // so that a file of a thousand big frames stays within libFuzzer's timeout.
        if source.count > 1 {
            let firstFrames = try ImageSource(data: data, options: inProcess(DecodingOptions(maxFrameCount: 8)))
            let animated = try firstFrames.thumbnail(maxPixelSize: 32, options: ThumbnailOptions(animated: true))
            guard animated.frameCount >= 1, animated.frameCount <= firstFrames.count, animated.frameDelays.count == animated.frameCount
                    || animated.frameCount == 1 else {
                fatalError("an animated thumbnail of \(animated.frameCount) frames (\(animated.frameDelays.count) delays) from \(firstFrames.count)")
            }
            if animated.frameCount > 1 {
                for format in [EncodingFormat.webp(quality: 50), .gif] {
                    do {
                        _ = try animated.encoded(as: format)
                    } catch let error as MagickIOError {
                        fatalError("writing an animated thumbnail as \(format) failed: \(error)")
                    }
                }
            }
        }
    } catch let error as MagickIOError {
        switch error.kind {
        case .emptyData, .unsupportedFormat, .formatNotAllowed, .corruptImage, .limitExceeded, .frameOutOfRange:
            break  // what untrusted bytes are allowed to cause
        case .fileNotFound, .encodingFailed, .cancelled, .io, .sourceNotAllowed, .sourceUnavailable:
            fatalError("unexpected error for in-memory input: \(error)")
        }
    } catch {
        fatalError("MagickIO threw \(type(of: error)), not a MagickIOError: \(error)")
    }
    return 0
}
