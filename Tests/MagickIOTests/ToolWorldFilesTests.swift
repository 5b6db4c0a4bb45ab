import Foundation
import Testing

/// The `thumbnail` tool on the files of issue 21, end to end (the built tool as a child process):
/// its help, the folder walk's extensions, and a carried thumbnail that does not decode.
@Suite(.timeLimit(.minutes(10)))
struct ToolWorldFilesTests {
    @Test("--help gives --jobs one default and says if-absent's N is --max-pixel-size")
    func help() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let run = try await Harness.run("thumbnail", ["--help"], in: sandbox.url)
        #expect(run.status == 0)
        let help = run.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        let jobs = help.range(of: "--jobs <N>", options: .backwards).map { String(help[$0.upperBound...].prefix(120)) } ?? ""
        #expect(jobs.components(separatedBy: "default").count == 2, "one default for --jobs: \(jobs)")
        let embedded = help.range(of: "--embedded <never|if-absent|always>", options: .backwards).map { String(help[$0.upperBound...].prefix(300)) } ?? ""
        #expect(embedded.contains("if-absent") && embedded.contains("--max-pixel-size N"), "\(embedded)")
    }

    @Test("a folder walk takes .avifs, .hif and .heics files and thumbnails a sequence's still item")
    func walkedExtensions() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.copy("avifs-with-still.avifs", to: "in/sequence.avifs")
        try sandbox.copy("orient-1.heic", to: "in/camera.HIF")
        try sandbox.copy("orient-1.heic", to: "in/burst.heics")
        let run = try await Harness.run("thumbnail", ["in", "--json", "--output", "out", "--max-pixel-size", "32", "--time-limit", "0"],
                                        in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        let lines = try run.thumbnailLines()
        #expect(Set(lines.map { URL(fileURLWithPath: $0.input).lastPathComponent }) == ["sequence.avifs", "camera.HIF", "burst.heics"], "\(run)")
        let sequence = lines.first { $0.input.hasSuffix("sequence.avifs") }
        #expect(sequence?.width == 32 && sequence?.height == 21, "\(run)")
    }

    @Test("--embedded always with a broken EXIF thumbnail makes the thumbnail from the picture")
    func brokenEmbedded() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.copy("embedded-thumbnail-broken.jpg", to: "photo.jpg")
        for choice in ["always", "if-absent"] {
            let run = try await Harness.run(
                "thumbnail", ["photo.jpg", "--embedded", choice, "--json", "--output", "out-\(choice)", "--max-pixel-size", "48",
                              "--time-limit", "0"], in: sandbox.url)
            #expect(run.status == 0, "\(run)")
            let line = try run.thumbnailLines().first
            #expect(line?.error == nil && line?.width == 48 && line?.height == 32, "\(run)")
            #expect(!run.stderr.contains("`'"), "no empty file name: \(run)")
        }
    }
}
