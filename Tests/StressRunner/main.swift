// The stress workloads of `StressTests` and `ParallelDecodingTests`, each run in a process of its
// own so that no other test's memory or pixel cache blurs what it measures:
// - `StressRunner FIXTURES TASKS PER-TASK`: TASKS concurrent tasks each make PER-TASK thumbnails of
//   the mixed fixtures through the async API; every output is compared with the serial one, and the
//   resident set is read after 1000 operations and at the end.
// - `StressRunner independent FILE SIZE` (IndependentCalls.swift): independent calls at once, as a
//   service's request handlers make them.
// Each prints one JSON object.
import Foundation
import MagickIO
import Synchronization

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "independent", let size = Int(arguments[3]) {
    let report = await independentCalls(URL(fileURLWithPath: arguments[2]), maxPixelSize: size)
    print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: .sortedKeys), as: UTF8.self))
    exit(0)
}
guard arguments.count == 4, let tasks = Int(arguments[2]), let perTask = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: StressRunner FIXTURES TASKS PER-TASK | StressRunner independent FILE SIZE\n".utf8))
    exit(2)
}
let fixtures = URL(fileURLWithPath: arguments[1])
let names = [
    "orient-1.jpg", "orient-6.jpg", "orient-7.tif", "alpha.png", "animated.gif", "cmyk.jpg",
    "quadrants.webp", "photo.jpg", "progressive.jpg", "png-named.jpg",
]

/// Resident set size now, from /proc/self/status.
func residentBytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? "VmRSS: 0 kB"
    return (Int(line.split(separator: " ")[1]) ?? 0) * 1024
}

let done = Atomic<Int>(0)
let rssAfterThousand = Atomic<Int>(0)

/// Runs the workload; returns how many outputs differed from the serial ones. Everything it makes
/// is local, so that nothing is left for LeakSanitizer to wonder about at exit.
nonisolated func stress() async throws -> Int {
    let sources = try names.map { try ImageSource(url: fixtures.appendingPathComponent($0)) }
    let serial = try sources.map { try $0.thumbnail(maxPixelSize: 40).encoded(as: .png) }
    return try await withThrowingTaskGroup(of: Int.self) { group in
    for task in 0..<tasks {
        group.addTask {
            var mismatches = 0
            for index in 0..<perTask {
                let which = (task + index) % sources.count
                let png = try await sources[which].thumbnail(maxPixelSize: 40).encoded(as: .png)
                if png != serial[which] { mismatches += 1 }
                if done.add(1, ordering: .relaxed).newValue == 1000 {
                    rssAfterThousand.store(residentBytes(), ordering: .relaxed)
                }
            }
            return mismatches
        }
    }
    return try await group.reduce(0, +)
    }
}

let mismatches = try await stress()
let report: [String: Int] = [
    "operations": done.load(ordering: .relaxed),
    "mismatches": mismatches,
    "rssAfter1000": rssAfterThousand.load(ordering: .relaxed),
    "rssAtEnd": residentBytes(),
]
print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: .sortedKeys), as: UTF8.self))
