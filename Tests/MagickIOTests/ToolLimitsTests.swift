import Foundation
import MagickIO
import Testing

/// The tools' decoding limits (`--memory-budget`, `--strictness`, `--time-limit`), end to end:
/// the built `thumbnail` run as a child process on the fixtures (bad values are usage errors,
/// checked with the other usage errors in ``ExamplesTests``).
@Suite(.timeLimit(.minutes(10)))
struct ToolLimitsTests {
    @Test("--memory-budget too small for a file refuses it with kind limitExceeded; --strictness accept-partial takes a truncated file the default refuses")
    func thumbnailDecodingLimits() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let heic = Harness.fixture("orient-1.heic").path
        let small = try await Harness.run("thumbnail", [heic, "--memory-budget", "1", "--json", "--max-pixel-size", "32"], in: sandbox.url)
        #expect(small.status == 1, "\(small)")
        let refused = try small.thumbnailLines()
        #expect(refused.first?.error?.kind == "limitExceeded", "\(small)")
        #expect(refused.first?.error?.message.contains("memoryBudget") == true, "\(small)")
        let enough = try await Harness.run("thumbnail", [heic, "--memory-budget", "256", "--json", "--max-pixel-size", "32"], in: sandbox.url)
        #expect(enough.status == 0, "\(enough)")

        let truncated = Harness.fixture("truncated.jpg").path
        let strict = try await Harness.run("thumbnail", [truncated, "--json", "--max-pixel-size", "32"], in: sandbox.url)
        #expect(strict.status == 1)
        #expect(try strict.thumbnailLines().first?.error?.kind == "corruptImage", "\(strict)")
        let partial = try await Harness.run(
            "thumbnail", [truncated, "--json", "--max-pixel-size", "32", "--strictness", "accept-partial", "--time-limit", "0"],
            in: sandbox.url)
        #expect(partial.status == 0, "\(partial)")
        #expect(try partial.thumbnailLines().first?.width == 32, "\(partial)")
    }
}
