import Foundation
import MagickIO
import Testing

/// The `imageinfo` executable, and the README's examples, end to end (see ``ExamplesTests``).
extension ExamplesTests {
    // MARK: imageinfo

    @Test("imageinfo --json: one line per file, in order, with the header's properties")
    func imageinfoJSON() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let names = ["orient-6.jpg", "png-named.jpg", "animated.gif", "alpha.png", "photo.jpg"]
        let paths = names.map { Harness.fixture($0).path }
        let run = try await Harness.run("imageinfo", paths + ["--json"], in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        let lines = try run.infoLines()
        #expect(lines.map(\.input) == paths)
        try #require(lines.count == names.count)
        for (line, path) in zip(lines, paths) {
            #expect(line.error == nil)
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
            #expect(line.fileSize == size?.intValue, "\(path)")
            #expect(line.bitDepth == 8, "\(path)")
        }

        let orient6 = lines[0]
        #expect(orient6.format == "jpeg")
        #expect(orient6.pixelWidth == 64 && orient6.pixelHeight == 96)
        #expect(orient6.orientation == 6)
        #expect(orient6.orientedWidth == 96 && orient6.orientedHeight == 64)
        #expect(orient6.frameCount == 1)
        #expect(orient6.hasAlpha == false)
        #expect(orient6.colorSpace == "srgb")

        #expect(lines[1].format == "png")
        #expect(lines[1].pixelWidth == 96 && lines[1].pixelHeight == 64)

        #expect(lines[2].format == "gif")
        #expect(lines[2].frameCount == 3)
        #expect(lines[2].pixelWidth == 24 && lines[2].pixelHeight == 16)

        #expect(lines[3].format == "png")
        #expect(lines[3].hasAlpha == true)
        #expect(lines[3].pixelWidth == 40 && lines[3].pixelHeight == 30)

        #expect(lines[4].format == "jpeg")
        #expect(lines[4].orientation == 1)
        #expect(lines[4].orientedWidth == 320 && lines[4].orientedHeight == 240)
    }

    @Test("imageinfo reports failed files with their error kind and exits 1")
    func imageinfoFailures() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let paths = [Harness.fixture("photo.jpg").path, Harness.fixture("text.jpg").path, Harness.fixture("empty.jpg").path, "missing.jpg"]
        let run = try await Harness.run("imageinfo", paths + ["--json"], in: sandbox.url)
        #expect(run.status == 1, "\(run)")
        let lines = try run.infoLines()
        #expect(lines.map(\.input) == paths)
        try #require(lines.count == 4)
        #expect(lines[0].error == nil && lines[0].format == "jpeg")
        #expect(lines[1].error?.kind == "unsupportedFormat")
        #expect(lines[2].error?.kind == "emptyData")
        #expect(lines[3].error?.kind == "fileNotFound")
        #expect(lines.dropFirst().allSatisfy { $0.format == nil && !($0.error?.message.isEmpty ?? true) })
    }

    @Test("imageinfo without --json prints an aligned block per file")
    func imageinfoText() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let run = try await Harness.run(
            "imageinfo", [Harness.fixture("orient-6.jpg").path, Harness.fixture("animated.gif").path], in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        let blocks = run.stdout.components(separatedBy: "\n\n")
        try #require(blocks.count == 2, "\(run)")
        #expect(blocks[0].hasPrefix(Harness.fixture("orient-6.jpg").path + "\n"))
        for value in ["jpeg", "64 x 96", "96 x 64", "6 (right)", "srgb"] {
            #expect(blocks[0].contains(value), "\(value) missing from:\n\(blocks[0])")
        }
        #expect(blocks[1].contains("gif") && blocks[1].contains("frames:") && blocks[1].contains(" 3\n"))
        // Values start in one column.
        let columns = Set(blocks[0].split(separator: "\n").dropFirst().map { (line: Substring) -> Int in
            let label = line.prefix { $0 != ":" }
            let gap = line.dropFirst(label.count + 1).prefix { $0 == " " }
            return label.count + 1 + gap.count
        })
        #expect(columns.count == 1, "values are not aligned:\n\(blocks[0])")
    }

    @Test("imageinfo usage errors exit with status 2", arguments: [
        [String](), ["--json"], ["--bogus", "photo.jpg"], ["--strictness", "lenient", "photo.jpg"],
        ["--memory-budget", "0", "photo.jpg"], ["--time-limit", "-2", "photo.jpg"],
    ])
    func imageinfoUsageErrors(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let run = try await Harness.run("imageinfo", arguments, in: sandbox.url)
        #expect(run.status == 2, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.lowercased().contains("usage:"), "\(run)")
    }

    @Test("the README, Getting Started, CI and the Debian 13 root install the same packages: one install line a platform, one truth")
    func installLines() throws {
        func text(_ path: String) throws -> String {
            try String(contentsOf: Harness.packageRoot.appendingPathComponent(path), encoding: .utf8)
        }
        // The packages of every apt-get install line that installs MagickWand, in order, each
        // continued over backslash-newlines.
        func packages(_ path: String) throws -> [Set<String>] {
            let joined = try text(path).replacingOccurrences(of: "\\\n", with: " ")
            let lines = joined.split(separator: "\n").filter { $0.contains("apt-get install") && $0.contains("libmagickwand-dev") }
            return try lines.map { line in
                let words = line.split(separator: " ").map(String.init)
                let start = try #require(words.firstIndex(of: "--no-install-recommends"), "\(path): \(line)")
                return Set(words[(start + 1)...].filter { !$0.hasPrefix("-") && !$0.hasPrefix("#") })
            }
        }
        let readme = try packages("README.md"), gettingStarted = try packages("Sources/MagickIO/MagickIO.docc/GettingStarted.md")
        // README: Debian 12's line at the top, Debian 13's under Platforms; Getting Started the
        // same two, in that order, without python3 (the tests' fixture generators).
        try #require(readme.count == 2 && gettingStarted.count == 2, "README \(readme.count) lines, Getting Started \(gettingStarted.count)")
        let (debian12, debian13) = (readme[0], readme[1])
        #expect(debian12.subtracting(["python3"]) == gettingStarted[0], "README \(debian12.sorted()), Getting Started \(gettingStarted[0].sorted())")
        #expect(debian13.subtracting(["python3"]) == gettingStarted[1], "README \(debian13.sorted()), Getting Started \(gettingStarted[1].sorted())")
        #expect(debian13.subtracting(debian12) == ["libheif-plugin-x265", "libheif-plugin-aomenc"], "\(debian13.subtracting(debian12).sorted())")
        #expect(debian12.subtracting(debian13).isEmpty)
        // CI (Debian 12) installs at least Debian 12's line; the Debian 13 root runs Debian 13's
        // line as README has it (picked by its plugin).
        let ci = try #require(try packages(".ci/run").first, ".ci/run has no install line")
        #expect(debian12.isSubset(of: ci), "CI lacks \(debian12.subtracting(ci).sorted())")
        #expect(try text("scripts/debian13-root.sh").contains("grep -m1 -E '^apt-get update && apt-get install.*libheif-plugin-x265'"))
        // Both name the same platforms and ImageMagick versions.
        for fact in ["Debian 12", "Debian 13", "6.9.11", "7.1.1", "passes on both"] {
            #expect(try text("README.md").contains(fact) && text("Sources/MagickIO/MagickIO.docc/GettingStarted.md").contains(fact), "\(fact)")
        }
    }

    @Test("the README's and Getting Started's Swift examples are compiled and run as written, in async and sync contexts")
    func readmeExamples() async throws {
        // Every Swift block of the README and the Getting Started article (its `import` lines and
        // a Package.swift excerpt aside) stands verbatim in APIExamples, or (the remote example,
        // which needs the `Remote` trait) in the examples package's MagickIORemote tests.
        func text(_ paths: [String]) throws -> String {
            try paths.map { try String(contentsOf: Harness.packageRoot.appendingPathComponent($0), encoding: .utf8) }
                .joined(separator: "\n")
        }
        let readme = try text(["README.md", "Sources/MagickIO/MagickIO.docc/GettingStarted.md"])
        let examples = try text(["Tests/APIExamples/main.swift", "Examples/Tests/MagickIORemoteTests/ReadmeExample.swift"])
        let exampleLines = examples.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
            .filter { !$0.hasPrefix("// Package.swift") }
        #expect(blocks.count >= 10)
        for block in blocks {
            let lines = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.hasPrefix("import ") && !$0.isEmpty }
            let found = exampleLines.indices.contains { start in
                start + lines.count <= exampleLines.count && Array(exampleLines[start..<start + lines.count]) == lines
            }
            #expect(found, "not in Tests/APIExamples/main.swift (or ReadmeExample.swift) as written:\n\(block)")
        }
        // And they do what they say, on a photo stored turned (orientation 6).
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.copy("orient-6.jpg", to: "photo.jpg")
        let run = try await Harness.run("APIExamples", [], in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("jpeg 1"))
        #expect(lines.contains("64 96 right") && lines.contains("96 64"))
        #expect(lines.contains("async 96 64 up") && lines.contains("sync 96 64"))
        #expect(lines.contains("shared 96 64"), "\(lines)")
        #expect(lines.contains { $0.hasSuffix("fileNotFound: no file at \(sandbox.url.appendingPathComponent("missing.jpg").path)") })
        #expect(lines.contains("getting started 64 96 96 96 false"), "\(lines)")
        #expect(lines.contains("caught unsupportedFormat - unsupportedFormat: the content is not a recognised image format"))
        #expect(FileManager.default.fileExists(atPath: sandbox.url.appendingPathComponent("many-photo.png").path))
        #expect(try ImageSource(url: sandbox.url.appendingPathComponent("t.jpg")).properties(at: 0).pixelWidth == 96)
    }
}
