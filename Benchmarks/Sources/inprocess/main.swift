// In-process timing of ImageSource.thumbnail: `inprocess MAX REPEAT FILE...`.
// Prints one line per file: median ms over REPEAT runs, output size; then peak RSS.
import Foundation
import MagickIO

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 3, let maxPixelSize = Int(arguments.first!), let repeats = Int(arguments.dropFirst().first!) else {
    FileHandle.standardError.write(Data("usage: inprocess MAX REPEAT FILE...\n".utf8))
    exit(2)
}
for path in arguments.dropFirst(2) {
    var times: [Double] = []
    var size = (0, 0)
    for _ in 0..<repeats {
        let start = DispatchTime.now().uptimeNanoseconds
        let thumb = try ImageSource(url: URL(fileURLWithPath: path)).thumbnail(maxPixelSize: maxPixelSize)
        _ = try thumb.encoded(as: .jpeg(quality: 85))
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        size = (thumb.width, thumb.height)
    }
    times.sort()
    print(String(format: "%@\t%.1f ms\t%dx%d", path, times[times.count / 2], size.0, size.1))
}
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
print("peak RSS \(usage.ru_maxrss / 1024) MiB")
