// The cost model's calibration probe, run by CostModelTests in a process of its own so that the
// peak it reads is one decode's: `DecodeProbe FILE [MAX-PIXEL-SIZE]` opens FILE, prints MagickIO's
// estimate for decoding frame 0 whole (or for its thumbnail), resets the kernel's peak-RSS mark,
// decodes, and prints the growth of the peak over the resident set just before. One JSON line.
// `DecodeProbe FILE hold` instead decodes FILE three times, keeping every image, and prints what
// each decode gave: a width, or the error kind (the pixel cache fills up).
// `DecodeProbe FILE properties` opens FILE and prints each frame's size, colour space and EXIF count.
// `DecodeProbe FILE parallel N` makes a 256-pixel thumbnail of FILE, decoded whole into
// ImageMagick's pixel cache (not streamed), on N threads at once and prints what each gave and
// the pixel cache in use before and after (all given back).
import Foundation
@_spi(Calibration) @_spi(Benchmarks) import MagickIO

/// What the probe measures is a decode in this process: no decode worker (the estimate is of one
/// decode's growth, wherever it runs), and no budget but the probe's own.
let probeOptions: DecodingOptions = {
    var options = DecodingOptions(memoryBudget: 1 << 40)
    options.isolation = .inProcess
    return options
}()

/// A field of /proc/self/status in bytes (`VmRSS`, `VmHWM`).
func status(_ field: String) -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: DecodeProbe FILE [MAX-PIXEL-SIZE]\n".utf8))
    exit(2)
}
if arguments.count > 2, arguments[2] == "hold" {
    let source = try ImageSource(url: URL(fileURLWithPath: arguments[1]), options: probeOptions)
    var held: [Image] = []
    var outcomes: [String] = []
    for _ in 0..<3 {
        do {
            held.append(try source.image(at: 0))
            outcomes.append("\"\(held.last!.width)\"")
        } catch {
            outcomes.append("\"\((error as? MagickIOError)?.kind.rawValue ?? "\(error)")\"")
        }
    }
    print("{\"outcomes\": [\(outcomes.joined(separator: ", "))]}")
    exit(0)
}
if arguments.count > 2, arguments[2] == "properties" {
    // Opening and every frame's properties only: what `imageinfo` does.
    let source = try ImageSource(url: URL(fileURLWithPath: arguments[1]))
    for index in 0..<source.count {
        let properties = try source.properties(at: index)
        print("\(properties.pixelWidth)x\(properties.pixelHeight) \(properties.colorSpace) \(properties.exif.count)")
    }
    exit(0)
}
if arguments.count > 3, arguments[2] == "parallel", let threads = Int(arguments[3]) {
    let source = try ImageSource(url: URL(fileURLWithPath: arguments[1]), options: probeOptions)
    let before = ImageSource.pixelCacheInUse
    let wholeDecode = {
        var options = ThumbnailOptions()
        options.ownDecoders = false
        return options
    }()
    /// `@unchecked Sendable`: the list is touched only under `lock`.
    final class Outcomes: @unchecked Sendable {
        let lock = NSLock()
        var list: [String] = []
    }
    let outcomes = Outcomes()
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for _ in 0..<threads {
        group.enter()
        // Threads of their own, released together: a dispatch queue would run two at a time.
        let thread = Thread {
            defer { group.leave() }
            start.wait()
            let outcome: String
            do {
                outcome = "\"\(try source.thumbnail(maxPixelSize: 256, options: wholeDecode).width)\""
            } catch {
                outcome = "\"\((error as? MagickIOError)?.kind.rawValue ?? "\(error)")\""
            }
            outcomes.lock.withLock { outcomes.list.append(outcome) }
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    for _ in 0..<threads { start.signal() }
    group.wait()
    let line = "{\"outcomes\": [\(outcomes.list.joined(separator: ", "))], \"cacheBefore\": \(before), \"cacheAfter\": \(ImageSource.pixelCacheInUse)}\n"
    // Written at once, not buffered until exit: under LeakSanitizer, exit's leak check may fail
    // on threads still ending and lose what print buffered.
    FileHandle.standardOutput.write(Data(line.utf8))
    exit(0)
}
let thumbnailSize = arguments.count > 2 ? Int(arguments[2]) : nil
do {
    // A generous budget: the probe measures, the guard is tested elsewhere.
    let options = probeOptions
    let source = try ImageSource(url: URL(fileURLWithPath: arguments[1]), options: options)
    let estimate = try thumbnailSize.map { try source.estimatedThumbnailBytes(maxPixelSize: $0) }
        ?? source.estimatedDecodeBytes(at: 0)
    source.loadDecoder()
    // Writing 5 to clear_refs resets VmHWM to the current resident set.
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let before = status("VmRSS")
    let size: (Int, Int)
    if let thumbnailSize {
        let thumbnail = try source.thumbnail(maxPixelSize: thumbnailSize)
        size = (thumbnail.width, thumbnail.height)
    } else {
        let image = try source.image(at: 0)
        size = (image.width, image.height)
    }
    let growth = status("VmHWM") - before
    print("{\"format\": \"\(source.format)\", \"width\": \(size.0), \"height\": \(size.1), \"estimate\": \(estimate), \"growth\": \(growth)}")
} catch {
    print("{\"error\": \"\(error)\"}")
    exit(1)
}
