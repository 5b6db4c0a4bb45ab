import Foundation
import MagickIO
import Testing

/// End-to-end tests of the `thumbnail` and `imageinfo` executables: the built binaries are run as
/// child processes on the fixtures, and their exit status, JSON lines and output files checked
/// (outputs are read back with MagickIO itself).
@Suite(.timeLimit(.minutes(10)))
struct ExamplesTests {
    // MARK: thumbnail: sizes and outputs

    @Test("thumbnail --json reports each input with its output and fitted size", arguments: [
        ("photo.jpg", 64, 64, 48),
        ("photo.jpg", 48, 48, 36),
        ("photo.jpg", 1000, 320, 240),  // never upscaled
        ("orient-6.jpg", 48, 48, 32),  // stored 64x96, shown 96x64
        ("alpha.png", 48, 40, 30),
        ("animated.gif", 48, 24, 16),
        ("png-named.jpg", 48, 48, 32),  // a PNG whatever its name says
    ])
    func thumbnailSizes(fixture: String, maxPixelSize: Int, width: Int, height: Int) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let input = Harness.fixture(fixture).path
        let run = try await Harness.run(
            "thumbnail", [input, "--max-pixel-size", "\(maxPixelSize)", "--output", "out", "--json"], in: sandbox.url)
        #expect(run.status == 0, "\(run)")

        let lines = try run.thumbnailLines()
        try #require(lines.count == 1, "\(run)")
        let line = lines[0]
        #expect(line.input == input)
        #expect(line.error == nil)
        let expectedOutput = "out/" + (fixture as NSString).deletingPathExtension + ".jpg"
        #expect(line.output == expectedOutput)
        #expect(line.width == width)
        #expect(line.height == height)

        let source = try ImageSource(url: sandbox.url.appendingPathComponent(expectedOutput))
        #expect(source.format == .jpeg)
        let properties = try source.properties(at: 0)
        #expect(properties.pixelWidth == width && properties.pixelHeight == height)
        #expect(properties.orientation == .up)
        #expect(run.stderr.contains("thumbnail: 1 image, 1 done, 0 failed in "), "\(run)")
        #expect(run.stderr.contains("-> out/"), "\(run)")
    }

    @Test("thumbnails of all eight EXIF orientations come out upright (one job at a time)")
    func thumbnailOrientations() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let inputs = (1...8).map { Harness.fixture("orient-\($0).jpg").path }
        let run = try await Harness.run(
            "thumbnail", inputs + ["--max-pixel-size", "48", "--format", "png", "--jobs", "1", "--json", "--output", "out"],
            in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        let lines = try run.thumbnailLines()
        #expect(lines.count == 8)
        // One worker takes the inputs in order, so completion order is input order here.
        #expect(lines.map(\.input) == inputs)

        for n in 1...8 {
            let line = try #require(lines.first { $0.input.hasSuffix("/orient-\(n).jpg") }, "no line for orient-\(n).jpg")
            #expect(line.output == "out/orient-\(n).png")
            #expect(line.width == 48 && line.height == 32, "orient-\(n): \(line)")
            let output = sandbox.url.appendingPathComponent("out/orient-\(n).png")
            let image = try await ImageSource(url: output).image(at: 0)
            #expect(image.width == 48 && image.height == 32)
            let pixels = try image.pixels(.rgba8)
            // red top-left, lime top-right, blue bottom-left, yellow bottom-right
            let expected: [(x: Int, y: Int, rgb: (Int, Int, Int))] = [
                (12, 8, (255, 0, 0)), (36, 8, (0, 255, 0)), (12, 24, (0, 0, 255)), (36, 24, (255, 255, 0)),
            ]
            for point in expected {
                let i = point.y * pixels.bytesPerRow + point.x * 4
                let got = (Int(pixels.bytes[i]), Int(pixels.bytes[i + 1]), Int(pixels.bytes[i + 2]))
                let close = abs(got.0 - point.rgb.0) < 48 && abs(got.1 - point.rgb.1) < 48 && abs(got.2 - point.rgb.2) < 48
                #expect(close, "orient-\(n) at (\(point.x), \(point.y)) is \(got), expected \(point.rgb)")
            }
        }
    }

    @Test("--format picks the encoder and the extension; alpha is kept where the format has it", arguments: [
        ("jpeg", "jpg", ImageFormat.jpeg, false),
        ("png", "png", ImageFormat.png, true),
        ("webp", "webp", ImageFormat.webp, true),
        ("avif", "avif", ImageFormat.avif, true),
    ])
    func thumbnailFormats(option: String, fileExtension: String, format: ImageFormat, keepsAlpha: Bool) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let run = try await Harness.run(
            "thumbnail",
            [Harness.fixture("alpha.png").path, Harness.fixture("photo.jpg").path, "--format", option, "--quality", "70", "--json"],
            in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        let outputs = Set(try run.thumbnailLines().compactMap(\.output))
        #expect(outputs == ["thumbnails/alpha.\(fileExtension)", "thumbnails/photo.\(fileExtension)"])

        let alpha = try ImageSource(url: sandbox.url.appendingPathComponent("thumbnails/alpha.\(fileExtension)"))
        #expect(alpha.format == format)
        #expect(try alpha.properties(at: 0).hasAlpha == keepsAlpha)
        let photo = try ImageSource(url: sandbox.url.appendingPathComponent("thumbnails/photo.\(fileExtension)"))
        #expect(photo.format == format)
        let properties = try photo.properties(at: 0)
        #expect(properties.pixelWidth == 256 && properties.pixelHeight == 192)
        #expect(properties.exif.isEmpty, "thumbnails carry no metadata: \(properties.exif)")
    }

    // MARK: thumbnail: failures and exit status

    @Test("failed inputs are reported with their error kind, the others still done, exit status 1")
    func thumbnailFailures() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let photo = Harness.fixture("photo.jpg").path
        let text = Harness.fixture("text.jpg").path
        let empty = Harness.fixture("empty.jpg").path
        let truncated = Harness.fixture("truncated.jpg").path
        let missing = "no-such-dir/missing.jpg"
        let run = try await Harness.run(
            "thumbnail", [photo, text, empty, missing, truncated, "--json", "--max-pixel-size", "64"], in: sandbox.url)
        #expect(run.status == 1, "\(run)")

        let lines = try run.thumbnailLines()
        #expect(lines.count == 5, "\(run)")
        let byInput = Dictionary(lines.map { ($0.input, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byInput[photo]?.output == "thumbnails/photo.jpg")
        #expect(byInput[photo]?.width == 64 && byInput[photo]?.height == 48)
        #expect(byInput[text]?.error?.kind == "unsupportedFormat")
        #expect(byInput[empty]?.error?.kind == "emptyData")
        #expect(byInput[missing]?.error?.kind == "fileNotFound")
        #expect(byInput[truncated]?.error?.kind == "corruptImage")
        for line in lines where line.error != nil {
            #expect(line.output == nil && line.width == nil && line.height == nil)
            #expect(!(line.error?.message.isEmpty ?? true), "\(line)")
        }
        #expect(run.stderr.contains("5 images, 1 done, 4 failed"), "\(run)")

        let written = try FileManager.default.contentsOfDirectory(atPath: sandbox.url.appendingPathComponent("thumbnails").path)
        #expect(written == ["photo.jpg"])
    }

    @Test("without --json: nothing on stdout, one line per failure and the summary on stderr")
    func thumbnailHumanOutput() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let run = try await Harness.run(
            "thumbnail", [Harness.fixture("photo.jpg").path, "gone.png", Harness.fixture("text.jpg").path], in: sandbox.url)
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty, "\(run)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(run)")
        #expect(lines.contains { $0.contains("gone.png") && $0.contains("fileNotFound") }, "\(run)")
        #expect(lines.contains { $0.contains("text.jpg") && $0.contains("unsupportedFormat") }, "\(run)")
        #expect(lines.last?.hasPrefix("thumbnail: 3 images, 1 done, 2 failed in ") == true, "\(run)")
        #expect(lines.last?.hasSuffix(" s -> thumbnails/") == true, "\(run)")
        #expect(!run.stderr.contains("\r"), "no progress bar when stderr is not a terminal")
    }

    @Test("bad usage exits with status 2 before doing anything", arguments: [
        ["--max-pixel-size", "0"],
        ["--max-pixel-size", "abc"],
        ["--quality", "0"],
        ["--quality", "101"],
        ["--jobs", "0"],
        ["--format", "bmp"],
        ["--bogus"],
        ["--output"],
        ["--memory-budget", "0"],
        ["--memory-budget", "lots"],
        ["--strictness", "lenient"],
        ["--time-limit", "-1"],
        ["--time-limit", "soon"],
    ])
    func thumbnailUsageErrors(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let run = try await Harness.run("thumbnail", [Harness.fixture("photo.jpg").path] + arguments, in: sandbox.url)
        #expect(run.status == 2, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("Usage:"), "\(run)")
        let made = try FileManager.default.contentsOfDirectory(atPath: sandbox.url.path)
        #expect(made.isEmpty, "nothing is written on bad usage: \(made)")
    }

    @Test("--help exits 0 and documents the options")
    func thumbnailHelp() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let run = try await Harness.run("thumbnail", ["--help"], in: sandbox.url)
        #expect(run.status == 0)
        for option in ["--max-pixel-size", "--output", "--format", "--quality", "--jobs", "--json", "--memory-budget",
                       "--strictness", "--time-limit"] {
            #expect(run.stdout.contains(option), "\(option) missing from the help")
        }
        #expect(run.stdout.contains("default: refuse-damage)") && run.stdout.contains("(default: 10"), "\(run)")
    }

    // MARK: thumbnail: naming

    @Test("inputs that would share an output get -2, -3 in input order; reruns replace the outputs")
    func thumbnailDuplicateNames() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.copy("photo.jpg", to: "a/photo.jpg")  // 320x240
        try sandbox.copy("orient-6.jpg", to: "b/photo.jpg")  // shown 96x64
        try sandbox.copy("alpha.png", to: "c/photo.png")  // 40x30
        // A stale, undecodable file where the first output goes: it must be replaced.
        try sandbox.write("not a thumbnail", to: "thumbnails/photo.jpg")

        for attempt in 1...2 {
            let run = try await Harness.run(
                "thumbnail", ["a/photo.jpg", "b/photo.jpg", "c/photo.png", "--max-pixel-size", "64", "--jobs", "3", "--json"],
                in: sandbox.url)
            #expect(run.status == 0, "run \(attempt): \(run)")
            let lines = try run.thumbnailLines()
            let byInput = Dictionary(lines.map { ($0.input, $0) }, uniquingKeysWith: { first, _ in first })
            let expected = [
                "a/photo.jpg": ("thumbnails/photo.jpg", 64, 48),
                "b/photo.jpg": ("thumbnails/photo-2.jpg", 64, 43),
                "c/photo.png": ("thumbnails/photo-3.jpg", 40, 30),
            ]
            #expect(lines.count == 3)
            for (input, (output, width, height)) in expected {
                let line = try #require(byInput[input], "run \(attempt): no line for \(input)")
                #expect(line.output == output, "run \(attempt)")
                #expect(line.width == width && line.height == height, "run \(attempt): \(line)")
                let properties = try ImageSource(url: sandbox.url.appendingPathComponent(output)).properties(at: 0)
                #expect(properties.pixelWidth == width && properties.pixelHeight == height, "run \(attempt): \(output)")
            }
            let written = try FileManager.default.contentsOfDirectory(atPath: sandbox.url.appendingPathComponent("thumbnails").path)
            #expect(written.sorted() == ["photo-2.jpg", "photo-3.jpg", "photo.jpg"], "run \(attempt)")
        }
    }

    @Test("two files of one directory with the same name but another extension are numbered in sorted order")
    func thumbnailSameStemInOneDirectory() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.copy("photo.jpg", to: "in/pic.jpg")
        try sandbox.copy("alpha.png", to: "in/pic.png")
        let run = try await Harness.run("thumbnail", ["in", "--json", "--output", "out"], in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        let outputs = Dictionary(try run.thumbnailLines().map { ($0.input, $0.output ?? "") }, uniquingKeysWith: { first, _ in first })
        #expect(outputs == ["in/pic.jpg": "out/pic.jpg", "in/pic.png": "out/pic-2.jpg"])
    }

    // MARK: thumbnail: directories

    @Test("a directory is walked recursively for visible image files, skipping the output directory")
    func thumbnailWalksDirectories() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.copy("photo.jpg", to: "in/x.jpg")
        try sandbox.copy("alpha.png", to: "in/sub/y.PNG")
        try sandbox.copy("animated.gif", to: "in/sub/deep/w.gif")
        try sandbox.copy("photo.jpg", to: "in/.hidden.jpg")  // hidden file
        try sandbox.copy("photo.jpg", to: "in/.cache/z.jpg")  // inside a hidden directory
        try sandbox.copy("photo.jpg", to: "in/README")  // no image extension
        try sandbox.copy("photo.jpg", to: "in/x.jpg.bak")
        try sandbox.copy("text.jpg", to: "in/notes.txt")
        try sandbox.copy("photo.jpg", to: "in/thumbs/old.jpg")  // already in the output directory

        let expected = [
            "in/x.jpg": "in/thumbs/x.jpg",
            "in/sub/y.PNG": "in/thumbs/sub/y.jpg",
            "in/sub/deep/w.gif": "in/thumbs/sub/deep/w.jpg",
        ]
        // The output directory is recognised however it is spelled.
        for output in ["in/thumbs", "./in/sub/../thumbs/", sandbox.url.appendingPathComponent("in/thumbs").path] {
            let run = try await Harness.run("thumbnail", ["in", "--output", output, "--json", "--max-pixel-size", "32"], in: sandbox.url)
            #expect(run.status == 0, "\(run)")
            let lines = try run.thumbnailLines()
            #expect(Set(lines.map(\.input)) == Set(expected.keys), "--output \(output): \(run)")
            #expect(lines.count == 3, "--output \(output): \(run)")
            for line in lines {
                let want = try #require(expected[line.input])
                let got = try #require(line.output)
                let absolute = got.hasPrefix("/") ? got : sandbox.url.path + "/" + got
                #expect(URL(fileURLWithPath: absolute).standardizedFileURL.path
                        == sandbox.url.appendingPathComponent(want).standardizedFileURL.path, "--output \(output)")
            }
        }
        for output in expected.values {
            #expect(FileManager.default.fileExists(atPath: sandbox.url.appendingPathComponent(output).path), "\(output)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.url.appendingPathComponent("in/thumbs/old-2.jpg").path))
        #expect(!FileManager.default.fileExists(atPath: sandbox.url.appendingPathComponent("in/thumbs/thumbs").path))
    }

    @Test("a directory without images is not an error: no lines, exit status 0")
    func thumbnailEmptyDirectory() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.copy("photo.jpg", to: "in/.hidden.jpg")
        try sandbox.copy("text.jpg", to: "in/notes.txt")
        try FileManager.default.createDirectory(at: sandbox.url.appendingPathComponent("in/empty"), withIntermediateDirectories: true)
        let run = try await Harness.run("thumbnail", ["in", "--json"], in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("0 images, 0 done, 0 failed"), "\(run)")
    }

    @Test("a file argument is always tried, whatever its extension")
    func thumbnailFileArgumentWithoutImageExtension() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.copy("photo.jpg", to: "picture.data")
        let run = try await Harness.run("thumbnail", ["picture.data", "--json", "--max-pixel-size", "32"], in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        let lines = try run.thumbnailLines()
        #expect(lines.map(\.output) == ["thumbnails/picture.jpg"])
        #expect(lines.first?.width == 32 && lines.first?.height == 24)
    }

    @Test("with no INPUT the bundled samples are thumbnailed into thumbnails/")
    func thumbnailDefaultSamples() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let samples = Harness.packageRoot.appendingPathComponent("Examples/thumbnail/Samples")
        let names = try FileManager.default.contentsOfDirectory(atPath: samples.path).filter { !$0.hasPrefix(".") }.sorted()
        try #require(names.count >= 3, "the samples are missing: run Examples/thumbnail/make-samples.sh")

        let run = try await Harness.run("thumbnail", ["--json"], in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        let lines = try run.thumbnailLines()
        #expect(lines.count == names.count, "\(run)")
        #expect(lines.allSatisfy { $0.error == nil }, "\(run)")
        let written = try FileManager.default.contentsOfDirectory(atPath: sandbox.url.appendingPathComponent("thumbnails").path)
        #expect(written.sorted() == names.map { ($0 as NSString).deletingPathExtension + ".jpg" }.sorted())

        for name in names {
            let original = try ImageSource(url: samples.appendingPathComponent(name)).properties(at: 0)
            let output = "thumbnails/" + (name as NSString).deletingPathExtension + ".jpg"
            let thumb = try ImageSource(url: sandbox.url.appendingPathComponent(output))
            #expect(thumb.format == .jpeg)
            let properties = try thumb.properties(at: 0)
            let longest = max(original.orientedWidth, original.orientedHeight)
            #expect(max(properties.pixelWidth, properties.pixelHeight) == min(256, longest), "\(name)")
            #expect((properties.pixelWidth >= properties.pixelHeight) == (original.orientedWidth >= original.orientedHeight),
                    "\(name) is upright")
            #expect(lines.contains { $0.output == output && $0.width == properties.pixelWidth && $0.height == properties.pixelHeight })
        }
    }
}
