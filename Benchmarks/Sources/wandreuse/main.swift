// Measures per-call overhead of MagickIO's operations on a tiny image, where the wand's own set-up
// is a visible share, and watches RSS over many calls: `wandreuse FILE [ITERATIONS]`.
import Foundation
import MagickIO

let path = CommandLine.arguments.dropFirst().first ?? "../Tests/MagickIOTests/Fixtures/orient-6.jpg"
let iterations = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 20_000
let data = try Data(contentsOf: URL(fileURLWithPath: path))

func residentMiB() -> Double {
    let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "0 0"
    let pages = Double(statm.split(separator: " ")[1]) ?? 0
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

func measure(_ label: String, _ body: () throws -> Void) rethrows {
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<iterations { try body() }
    let perCall = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations) / 1000
    print(String(format: "%-32@ %8.1f µs/call   RSS %6.1f MiB", label as NSString, perCall, residentMiB()))
}

try measure("ImageSource(data:) (ping)") { _ = try ImageSource(data: data) }
try measure("ImageSource(url:) (ping)") { _ = try ImageSource(url: URL(fileURLWithPath: path)) }
let source = try ImageSource(url: URL(fileURLWithPath: path))
try measure("thumbnail(maxPixelSize: 32)") { _ = try source.thumbnail(maxPixelSize: 32) }
let thumb = try source.thumbnail(maxPixelSize: 32)
try measure("encoded(as: .png)") { _ = try thumb.encoded(as: .png) }
try measure("thumbnail + encode, again") { _ = try source.thumbnail(maxPixelSize: 32).encoded(as: .jpeg(quality: 85)) }
