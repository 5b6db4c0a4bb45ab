import Foundation
import Synchronization

/// How many decodes MagickIO runs at this moment, process-wide (the own path's and ImageMagick's):
/// one big image pipelines its decoder and resampler on two threads only while fewer decodes than
/// cores are running (a batch already keeps every core busy with one image each).
enum DecodeActivity {
    private static let running = Atomic<Int>(0)
    static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Set by tests to force the choice either way.
    @TaskLocal static var idleCoreOverride: Bool?

    /// Runs `body` counted as one decode; `body` learns whether another core is idle.
    static func run<T, E: Error>(_ body: (_ idleCore: Bool) throws(E) -> T) throws(E) -> T {
        let now = running.add(1, ordering: .relaxed).newValue
        defer { running.subtract(1, ordering: .relaxed) }
        return try body(idleCoreOverride ?? (now < cores))
    }
}
