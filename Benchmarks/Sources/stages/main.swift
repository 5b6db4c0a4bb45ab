// Times each step of a MagickWand thumbnail pipeline like MagickIO's, on one thread, with the knobs
// MagickIO does not expose, to see where the time goes:
//
//   stages FILE WxH [hint=WxH|none] [filter=Lanczos] [threads=1] [repeat=7] [png=OUT.png] [key=value ...]
//
// hint: the `jpeg:size` hint (default twice WxH, as MagickIO); filter: an ImageMagick filter name,
// `thumbnail` (MagickThumbnailImage), `sample`, or `magickio` (MagickIO's own Lanczos-3 resampler,
// what its thumbnails use for RGB images, timed on MagickIO's own Image through its Benchmarks
// SPI); threads: ImageMagick's OpenMP threads; any other key=value is set as a wand option before
// the read and the encode (jpeg:dct-method=ifast, jpeg:optimize-coding=false, jpeg:sampling-factor=...).
// Prints `read MS resize MS normalize MS encode MS total MS decoded WxH`: the median ms of the read
// (decode at the hinted scale), resize, normalize (sRGB, strip, depth 8) and encode (JPEG q85 to
// memory), their sum, and the decoded size.
import CMagickWand
import Foundation
@_spi(Benchmarks) import MagickIO

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, case let size = arguments[1].split(separator: "x").compactMap({ Int($0) }), size.count == 2 else {
    FileHandle.standardError.write(Data("usage: stages FILE WxH [hint=WxH|none] [filter=NAME] [threads=N] [repeat=N] [png=OUT] [key=value ...]\n".utf8))
    exit(2)
}
let path = arguments[0]
var settings = ["hint": "\(size[0] * 2)x\(size[1] * 2)", "filter": "Lanczos", "threads": "1", "repeat": "7"]
var options: [(String, String)] = []
for argument in arguments.dropFirst(2) {
    let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2 else { continue }
    if ["hint", "filter", "threads", "repeat", "png"].contains(parts[0]) { settings[parts[0]] = parts[1] } else { options.append((parts[0], parts[1])) }
}
let filters: [String: FilterTypes] = [
    "Point": PointFilter, "Box": BoxFilter, "Triangle": TriangleFilter, "Hermite": HermiteFilter,
    "Catrom": CatromFilter, "Mitchell": MitchellFilter, "Lanczos": LanczosFilter, "Lanczos2": Lanczos2Filter,
    "LanczosSharp": LanczosSharpFilter, "Cubic": CubicFilter, "Gaussian": GaussianFilter,
]

MagickWandGenesis()
SetMagickResourceLimit(ThreadResource, MagickSizeType(settings["threads"]!)!)  // MagickIO: 1
SetMagickResourceLimit(MapResource, 0)

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e6 }
var times: [String: [Double]] = [:]
var decoded = (0, 0)
for _ in 0..<Int(settings["repeat"]!)! {
    let wand = NewMagickWand()!
    defer { DestroyMagickWand(wand) }
    if settings["hint"] != "none" { MagickSetOption(wand, "jpeg:size", settings["hint"]!) }
    for (key, value) in options { MagickSetOption(wand, key, value) }
    var t = now()
    func lap(_ name: String) { let n = now(); times[name, default: []].append(n - t); t = n }
    guard MagickReadImage(wand, path) != MagickFalse else { fatalError("cannot read \(path)") }
    lap("read")
    decoded = (MagickGetImageWidth(wand), MagickGetImageHeight(wand))
    switch settings["filter"]! {
    case "thumbnail": MagickThumbnailImage(wand, size[0], size[1])
    case "sample": MagickSampleImage(wand, size[0], size[1])
    case "magickio":
        // MagickIO's resampler works on its own Image: hand it the decoded pixels as a 16-bit PNG
        // (not timed), time the resize, and bring the result back into this wand (not timed).
        MagickSetImageFormat(wand, "PNG")
        MagickSetImageDepth(wand, 16)
        var pngLength = 0
        let png = MagickGetImageBlob(wand, &pngLength)!
        let input = try! ImageSource(data: Data(bytes: png, count: pngLength), options: DecodingOptions(memoryBudget: 1 << 31))
        let decodedImage = try! input.image(at: 0)
        MagickRelinquishMemory(png)
        t = now()
        let resized = try! decodedImage.resampled(toWidth: size[0], height: size[1])
        let resizeTime = now() - t
        let result = try! resized.encoded(as: .png)
        ClearMagickWand(wand)
        _ = result.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        times["resize", default: []].append(resizeTime)
        t = now()
    case let name:
        guard let filter = filters[name] else { fatalError("unknown filter \(name)") }
        MagickResizeImage(wand, size[0], size[1], filter, 1.0)
    }
    if settings["filter"] != "magickio" { lap("resize") }
    if MagickGetImageColorspace(wand) != sRGBColorspace { MagickTransformImageColorspace(wand, sRGBColorspace) }
    MagickStripImage(wand)
    MagickSetImageDepth(wand, 8)
    lap("normalize")
    MagickSetImageFormat(wand, "JPEG")
    MagickSetImageCompressionQuality(wand, 85)
    var length = 0
    let blob = MagickGetImageBlob(wand, &length)
    MagickRelinquishMemory(blob)
    lap("encode")
    if let png = settings["png"] {
        MagickSetImageFormat(wand, "PNG")
        MagickWriteImage(wand, png)
    }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let steps = ["read", "resize", "normalize", "encode"]
let total = steps.map { median(times[$0]!) }.reduce(0, +)
print(steps.map { String(format: "%@ %.1f", $0, median(times[$0]!)) }.joined(separator: "  ")
    + String(format: "  total %.1f  decoded %dx%d", total, decoded.0, decoded.1))
