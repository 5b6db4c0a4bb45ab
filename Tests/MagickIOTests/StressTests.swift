import Foundation
import Testing
@testable import MagickIO

@Suite("Stress")
struct StressTests {
    @Test("16 concurrent tasks x 500 thumbnails: byte-identical to serial, RSS after 5000+ within 10% of after 1000",
          .timeLimit(.minutes(10)))
    func concurrentThumbnails() throws {
        let fixtures = Fixture.url("photo.jpg").deletingLastPathComponent()
        let run = try runChild(try builtProduct("StressRunner"), [fixtures.path, "16", "500"], timeout: .seconds(280))
        #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
        let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Int])
        #expect(report["operations"] == 8000)
        #expect(report["mismatches"] == 0)
        let afterThousand = try #require(report["rssAfter1000"]), atEnd = try #require(report["rssAtEnd"])
        #expect(afterThousand > 0)
        #expect(Double(atEnd) <= Double(afterThousand) * 1.10 || runningUnderSanitizer,
                "RSS \(afterThousand >> 10) KiB after 1000 operations, \(atEnd >> 10) KiB after 8000")
    }
}
