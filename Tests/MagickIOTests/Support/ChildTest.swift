import Dispatch
import Foundation
import Synchronization
import Testing
@testable import MagickIO
import Glibc

// MARK: - Child processes

/// Runs one test of this suite in a child process (the test runner itself, filtered to that test),
/// for what must not happen in the shared test process: changing process-wide settings, or inputs
/// known to crash.
enum ChildTest {
    static let environmentKey = "MAGICKIO_HOSTILE_CHILD"

    /// The job this process was started for, in a child; nil in the normal run.
    static var job: String? { ProcessInfo.processInfo.environment[environmentKey] }

    static func run(_ test: String, job: String) throws -> ChildRun {
        var environment = ProcessInfo.processInfo.environment
        environment[environmentKey] = job
        let runner = URL(fileURLWithPath: try #require(realpathOfSelf()))
        return try runChild(
            runner, ["--testing-library", "swift-testing", "--filter", "HostileInputTests/\(test)"],
            environment: environment, timeout: .seconds(100))
    }

    /// The most memory one hostile input may make a child test process use: MagickIO's memory
    /// budget (the child's own baseline is about 50 MB).
    static let peakMemoryLimit = 256 << 20

    /// Runs `childInput` for `job` in a child and expects it to pass, without a crash and within
    /// `peakMemoryLimit` (not checked under a sanitizer, whose shadow memory inflates RSS).
    static func expectSaneInChild(job: String, label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try run("childInput", job: job)
        let outcome = run.stdoutText.split(separator: "\n").first { $0.hasPrefix("child input") }.map(String.init) ?? "(no outcome printed)"
        #expect(run.status == 0, """
            \(label): the child \(run.terminatingSignal.map { "was killed by signal \($0)" } ?? "exited with \(run.status)")
            \(excerpt(run))
            """, sourceLocation: sourceLocation)
        #expect(run.peakRSSBytes < peakMemoryLimit || runningUnderSanitizer,
                "\(label): peak RSS \(run.peakRSSBytes >> 20) MiB (limit \(peakMemoryLimit >> 20) MiB); \(outcome)",
                sourceLocation: sourceLocation)
        print("HostileInput child \(label): exit \(run.status), peak RSS \(run.peakRSSBytes >> 20) MiB; \(outcome)")
    }

    static func excerpt(_ run: ChildRun) -> String {
        "stdout: \(run.stdoutText.suffix(3000))\nstderr: \(run.stderrText.suffix(3000))"
    }

    private static func realpathOfSelf() -> String? {
        guard let resolved = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
