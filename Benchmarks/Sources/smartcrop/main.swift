// What the attention and entropy crops and dominantColor() cost per 256-pixel thumbnail, in process,
// on one thread:
//
//   smartcrop [--repeat N] FILE...
//
// For each photo: its thumbnail as step 6 of the pipeline sees it before a 256x256 fill crop (the
// short side 256, upright), then the median over N runs of `smartCropOrigin` (the export of the
// pixels and the scoring, what `.attention` / `.entropy` add to a `.center` crop), and of
// `dominantColor()` on the 256-pixel fitted thumbnail (what `imageinfo --colors` and the gallery
// compute), and of the pixel export alone (`Image.pixels`). Prints one line per photo and the
// medians over all of them, in milliseconds.
import Foundation
@_spi(Benchmarks) import MagickIO

var arguments = Array(CommandLine.arguments.dropFirst())
var repeatCount = 25
if let flag = arguments.firstIndex(of: "--repeat"), flag + 1 < arguments.count, let n = Int(arguments[flag + 1]) {
    repeatCount = n
    arguments.removeSubrange(flag...(flag + 1))
}
let repeats = repeatCount
guard !arguments.isEmpty else {
    FileHandle.standardError.write(Data("usage: smartcrop [--repeat N] FILE...\n".utf8))
    exit(2)
}

@MainActor func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<repeats {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return times.sorted()[times.count / 2]
}

var attention: [Double] = [], entropy: [Double] = [], colour: [Double] = [], exports: [Double] = []
for path in arguments {
    do {
        let source = try ImageSource(url: URL(fileURLWithPath: path))
        let p = try source.properties(at: 0)
        let cover = p.orientedWidth >= p.orientedHeight ? ImageSize(width: 0, height: 256) : ImageSize(width: 256, height: 0)
        let scaled = try source.thumbnail(size: cover, mode: .fit)
        let fitted = try source.thumbnail(maxPixelSize: 256)
        let a = try milliseconds { _ = try scaled.smartCropOrigin(width: 256, height: 256, entropy: false) }
        let e = try milliseconds { _ = try scaled.smartCropOrigin(width: 256, height: 256, entropy: true) }
        let c = try milliseconds { _ = try fitted.dominantColor() }
        let x = try milliseconds { _ = try scaled.pixels(.rgba8) }
        exports.append(x)
        attention.append(a)
        entropy.append(e)
        colour.append(c)
        print(String(format: "%@\t%dx%d\tattention %.3f ms\tentropy %.3f ms\tdominantColor %.3f ms\t(export alone %.3f ms)",
                     (path as NSString).lastPathComponent, scaled.width, scaled.height, a, e, c, x))
    } catch {
        print("\((path as NSString).lastPathComponent)\tfailed: \(error)")
    }
}
func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
print(String(format: "median over %d photos: attention %.3f ms, entropy %.3f ms, dominantColor %.3f ms per 256 px thumbnail (the pixel export alone %.3f ms)",
             attention.count, median(attention), median(entropy), median(colour), median(exports)))
