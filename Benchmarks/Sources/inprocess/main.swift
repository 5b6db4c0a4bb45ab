// In-process timing of ImageSource.thumbnail:
// `inprocess MAX REPEAT FILE... [--png] [--embedded] [--imagemagick] [--in-process]`.
// Per file: one untimed warm-up, then REPEAT runs of open + thumbnail + encode to memory (JPEG q85,
// or PNG with --png; with --embedded an embedded thumbnail may serve, `.ifAbsent`; with
// --imagemagick MagickIO's own JPEG/PNG decoders are off; with --in-process the decode runs in this
// process, not in a decode worker); prints the median ms, the output size
// and the decoder that made the pixels, or the error. Then peak RSS.
import Foundation
@_spi(Benchmarks) import MagickIO

var arguments = Array(CommandLine.arguments.dropFirst())
let png = arguments.contains("--png")
var options = ThumbnailOptions(embedded: arguments.contains("--embedded") ? .ifAbsent : .never)
options.ownDecoders = !arguments.contains("--imagemagick")
var decoding = DecodingOptions()
if arguments.contains("--in-process") { decoding.isolation = .inProcess }
arguments.removeAll { ["--png", "--embedded", "--imagemagick", "--in-process"].contains($0) }
guard arguments.count >= 3, let maxPixelSize = Int(arguments[0]), let repeats = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: inprocess MAX REPEAT FILE... [--png] [--embedded] [--imagemagick] [--in-process]\n".utf8))
    exit(2)
}
var failed = false
for path in arguments.dropFirst(2) {
    func run() throws -> (Int, Int, String) {
        let thumb = try ImageSource(url: URL(fileURLWithPath: path), options: decoding).thumbnail(maxPixelSize: maxPixelSize, options: options)
        _ = try thumb.encoded(as: png ? .png : .jpeg(quality: 85))
        return (thumb.width, thumb.height, thumb.decoderName)
    }
    do {
        _ = try run()
        var times: [Double] = []
        var size = (0, 0, "")
        for _ in 0..<repeats {
            let start = DispatchTime.now().uptimeNanoseconds
            size = try run()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        times.sort()
        print(String(format: "%@\t%.1f ms\t%dx%d %@", path, times[times.count / 2], size.0, size.1, size.2))
    } catch let error as MagickIOError {
        print("\(path)\terror: \(error.kind): \(error.message)")
        failed = true
    } catch {
        print("\(path)\terror: \(error)")
        failed = true
    }
}
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
print("peak RSS \(usage.ru_maxrss / 1024) MiB")
exit(failed ? 1 : 0)
