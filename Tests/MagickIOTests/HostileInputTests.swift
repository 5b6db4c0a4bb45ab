import Dispatch
import Foundation
import Synchronization
import Testing
@testable import MagickIO

#if canImport(Glibc)
import Glibc
#endif

// Evidence for issue 5 (hostile input): a corrupt corpus generated here, deterministically, from the
// committed fixtures; formats that run drawing programs or read other files; file names that are
// ImageMagick syntax; the allowlist and the partial-image option.
//
// Every input must either give a sane result or throw a MagickIOError of a kind that bad input may
// cause. A crash ends the test process (the inputs known to crash are run in a child process, see
// `crashIsolated`); a hang is caught by the per-input guard (reported while it runs) and the
// suite's time limits.

@Suite("Hostile input")
struct HostileInputTests {
    // MARK: - The corrupt corpus

    @Test("corrupt corpus: truncations, bit flips, zero size, lying headers, wrong extensions — a sane image or an expected error, each fast",
          .timeLimit(.minutes(10)))
    func corruptCorpus() throws {
        let corpus = try Corpus.make()
        let directory = try TemporaryDirectory("hostile-corpus")
        let run = CorpusRun.run(corpus, fileDirectory: directory.url)

        #expect(corpus.count >= 2000, "the corpus has \(corpus.count) inputs")
        for problem in run.problems.prefix(40) {
            Issue.record(Comment(rawValue: problem))
        }
        if run.problems.count > 40 {
            Issue.record("… and \(run.problems.count - 40) more problems")
        }
        print(run.summary)
        for line in run.perSource {
            print("  \(line)")
        }
        for line in run.mismatches.prefix(10) {
            print("  memory/file mismatch: \(line)")
        }
    }

    @Test("lying headers: a huge claimed size (65535x65535 and more) is refused before decoding; the others give a sane image or an expected error",
          .timeLimit(.minutes(10)))
    func lyingHeaders() throws {
        var lines: [String] = []
        for item in try Corpus.lyingHeaders() {
            let outcome = Evaluation.evaluate(item.name) { () throws in try ImageSource(data: item.data) }
            #expect(outcome.problem == nil, "\(item.name): \(outcome.problem ?? "")")
            if item.huge {
                switch outcome.result {
                case .success:
                    Issue.record("\(item.name): a huge lying header decoded (\(outcome.detail))")
                case .failure(let kind):
                    #expect(kind == .limitExceeded || kind == .corruptImage, "\(item.name): \(kind) \(outcome.detail)")
                }
            }
            lines.append("\(item.name): \(outcome.label) [\(outcome.detail.prefix(110))]")
        }
        print("HostileInput lying headers:\n  " + lines.joined(separator: "\n  "))
    }

    @Test("wrong extensions: content decides, never the name (opened by URL)")
    func wrongExtensions() throws {
        let directory = try TemporaryDirectory("hostile-extensions")
        let contents: [(fixture: String, format: ImageFormat)] = [
            ("photo.jpg", .jpeg), ("photo.png", .png), ("animated.gif", .gif), ("quadrants.webp", .webp), ("orient-6.tif", .tiff),
        ]
        for (fixture, format) in contents {
            let reference = try Fixture.source(fixture).thumbnail(maxPixelSize: 64)
            for fileExtension in ["jpg", "png", "gif", "webp", "tif"] where !fixture.hasSuffix(".\(fileExtension)") {
                let url = directory.url.appendingPathComponent("\(fixture.replacingOccurrences(of: ".", with: "_")).\(fileExtension)")
                try Fixture.data(fixture).write(to: url)
                let source = try ImageSource(url: url)
                #expect(source.format == format, "\(url.lastPathComponent)")
                let thumb = try source.thumbnail(maxPixelSize: 64)
                #expect(thumb.width == reference.width && thumb.height == reference.height,
                        "\(url.lastPathComponent): \(thumb.width)x\(thumb.height), named right \(reference.width)x\(reference.height)")
            }
        }
        // Not an image, whatever the name says.
        for (fixture, name) in [("text.jpg", "text.png"), ("text.jpg", "text.gif"), ("random.bin", "random.jpg"), ("random.bin", "random.webp")] {
            let url = directory.url.appendingPathComponent(name)
            try Fixture.data(fixture).write(to: url)
            #expect(errorKind { _ = try ImageSource(url: url) } == .unsupportedFormat, "\(name)")
        }
    }

    @Test("inputs that overflow MagickIO's own size arithmetic end in an error, not a crash (run in a child process)",
          .timeLimit(.minutes(10)),
          arguments: CrashCandidate.allCases)
    func crashIsolated(_ candidate: CrashCandidate) throws {
        try ChildTest.expectSaneInChild(job: candidate.rawValue, label: "\(candidate.rawValue) (\(candidate.explanation))")
    }

    @Test("inputs the fuzzer once failed on (Fuzz/regressions): a sane image or an expected error, in bounded memory (child process each)",
          .timeLimit(.minutes(10)),
          arguments: FuzzRegressions.names)
    func fuzzRegressions(_ name: String) throws {
        try ChildTest.expectSaneInChild(job: "file:" + FuzzRegressions.directory.appendingPathComponent(name).path, label: name)
    }

    @Test("the fuzzer's regressions are found in the source tree")
    func fuzzRegressionsFound() {
        #expect(FuzzRegressions.names.count >= 5, "looked in \(FuzzRegressions.directory.path)")
    }

    /// The body of `crashIsolated` and `fuzzRegressions`, in the child process.
    @Test(.enabled(if: ChildTest.job.map { $0.hasPrefix("file:") || CrashCandidate(rawValue: $0) != nil } ?? false))
    func childInput() throws {
        let job = try #require(ChildTest.job)
        let data = if job.hasPrefix("file:") {
            try Data(contentsOf: URL(fileURLWithPath: String(job.dropFirst("file:".count))))
        } else {
            try #require(CrashCandidate(rawValue: job)).data
        }
        let outcome = Evaluation.evaluate(job) { () throws in try ImageSource(data: data) }
        #expect(outcome.problem == nil, "\(outcome.problem ?? "")")
        print("child input \(job): \(outcome.label) [\(outcome.detail)]")
    }

    // MARK: - Formats that read or write other files

    @Test("SVG with external hrefs is refused and reads nothing", .timeLimit(.minutes(10)))
    func svgExternalReferences() throws {
        let scene = try Scene()
        let documents = [
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64">
            <image xlink:href="file://\(scene.sentinel.path)" x="0" y="0" width="64" height="64"/>
            </svg>
            """,
            """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64">
            <image href="text:\(scene.secret.path)" width="64" height="64"/>
            <image href="text:/etc/passwd" width="64" height="64"/>
            </svg>
            """,
            """
            <svg width="64" height="64"><image xlink:href="\(scene.sentinel.path)" width="64" height="64"/></svg>
            """,
        ]
        try scene.expectRefusedWithoutSideEffects(documents, name: "svg")
    }

    @Test("MVG drawing programs are refused and read nothing", .timeLimit(.minutes(10)))
    func mvgPrograms() throws {
        let scene = try Scene()
        let programs = [
            "push graphic-context\nviewbox 0 0 64 64\nimage over 0,0 0,0 '\(scene.sentinel.path)'\npop graphic-context\n",
            "push graphic-context\nviewbox 0 0 64 64\nfill 'url(https://example.invalid/x)'\npop graphic-context\n",
            "viewbox 0 0 64 64\nimage over 0,0 0,0 'ephemeral:\(scene.victim.path)'\n",
            "viewbox 0 0 64 64\nimage over 0,0 0,0 'msl:\(scene.sentinel.path)'\n",
        ]
        try scene.expectRefusedWithoutSideEffects(programs, name: "mvg")
    }

    @Test("MSL scripts are refused; their write target never appears", .timeLimit(.minutes(10)))
    func mslScripts() throws {
        let scene = try Scene()
        let pwned = scene.directory.url.appendingPathComponent("pwned.png")
        let scripts = [
            """
            <?xml version="1.0"?><image><read filename="\(scene.sentinel.path)"/><write filename="\(pwned.path)"/></image>
            """,
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <image>
            <read filename="\(scene.sentinel.path)" />
            <resize geometry="8x8" />
            <write filename="\(pwned.path)" />
            </image>
            """,
        ]
        try scene.expectRefusedWithoutSideEffects(scripts, name: "msl")
        #expect(!FileManager.default.fileExists(atPath: pwned.path), "the MSL write target exists")
    }

    @Test("text:, ephemeral:, msl:, @ and | as content are refused and touch nothing", .timeLimit(.minutes(10)))
    func syntaxAsContent() throws {
        let scene = try Scene()
        let contents = [
            "text:\(scene.secret.path)", "ephemeral:\(scene.victim.path)", "TEXT:/etc/passwd", "msl:\(scene.sentinel.path)",
            "@\(scene.list.path)", "|touch \(scene.directory.url.appendingPathComponent("pwned-pipe").path)",
            "label:@\(scene.secret.path)", "caption:hello", "xc:red",
        ]
        try scene.expectRefusedWithoutSideEffects(contents, name: "txt")
        #expect(!FileManager.default.fileExists(atPath: scene.directory.url.appendingPathComponent("pwned-pipe").path))
    }

    @Test("ImageMagick's own policy refuses non-image coders even when MagickIO's sniffing is bypassed",
          .timeLimit(.minutes(10)))
    func policyLayer() throws {
        let scene = try Scene()
        let pwned = scene.directory.url.appendingPathComponent("pwned.png")
        let inputs: [(format: String, content: String)] = [
            ("svg", "<svg width=\"8\" height=\"8\"><image xlink:href=\"\(scene.sentinel.path)\" width=\"8\" height=\"8\"/></svg>"),
            ("mvg", "viewbox 0 0 8 8\nimage over 0,0 0,0 '\(scene.sentinel.path)'\n"),
            ("msl", "<?xml version=\"1.0\"?><image><read filename=\"\(scene.sentinel.path)\"/><write filename=\"\(pwned.path)\"/></image>"),
            ("text", "hello"),
            ("ephemeral", "hello"),
            ("label", "hello"),
            ("https", "https://example.invalid/x.png"),
            ("url", "https://example.invalid/x.png"),
        ]
        // The same contents in files, read as ImageMagick reads a file MagickIO opened
        // (`CODER:/proc/self/fd/N`).
        let inputDirectory = scene.directory.url.appendingPathComponent("inputs")
        try FileManager.default.createDirectory(at: inputDirectory, withIntermediateDirectories: true)
        var files: [String: OpenFile] = [:]
        for (format, content) in inputs {
            let url = inputDirectory.appendingPathComponent("forced.\(format)")
            try Data(content.utf8).write(to: url)
            files[format] = try OpenFile(path: url.path)
        }
        // Coders that take a blob: the policy itself must be what refuses them.
        let policyRefuses: Set = ["svg", "mvg", "msl", "text", "label"]
        let events = try FileEvents(watching: scene.directory.url)
        var outcomes: [String] = []
        for (format, content) in inputs {
            for ping in [true, false] {
                for bytes in [SourceBytes.memory(Data(content.utf8)), .file(files[format]!)] {
                    let origin = if case .file = bytes { "file" } else { "memory" }
                    // Past the Swift sniffing: the coder forced to the hostile one, as if a bug let it through.
                    do throws(MagickIOError) {
                        try Wand().read(bytes, format: ImageFormat(rawValue: format), ping: ping)
                        Issue.record("\(format) from \(origin) forced past the sniffing (ping: \(ping)) decoded")
                    } catch {
                        outcomes.append("\(format)/\(origin)/\(ping ? "ping" : "read"): \(error.kind)")
                        if policyRefuses.contains(format), case .memory = bytes {
                            #expect(error.kind == .formatNotAllowed && error.severity?.name == "PolicyError",
                                    "\(format) from memory forced past the sniffing (ping: \(ping)): \(error)")
                        } else if case .memory = bytes {
                            #expect(error.kind == .formatNotAllowed || error.kind == .unsupportedFormat,
                                    "\(format) from memory forced past the sniffing (ping: \(ping)): \(error)")
                        }
                        // From a file any refusal will do here: a failed file read currently loses
                        // ImageMagick's reason and kind (see fileErrorsMatchMemoryErrors); what
                        // matters is that the coder never runs (the file events below).
                    }
                }
            }
        }
        print("HostileInput policy layer: \(outcomes.joined(separator: "; "))")
        let inputNames = Set(inputs.map { "forced.\($0.format)" })
        let seen = events.drain().filter { !inputNames.contains($0.name) }
        #expect(seen.isEmpty, "file events in the scene: \(seen)")
        #expect(scene.untouched, "victim or sentinel changed")
        #expect(!FileManager.default.fileExists(atPath: pwned.path))
    }

    // MARK: - Allowlist and options

    @Test("availableFormats: allowed ⊆ decodable, the default allowlist, no scripting coder allowed")
    func availableFormats() throws {
        let support = ImageMagick.availableFormats
        #expect(support.allowed.isSubset(of: support.decodable))
        #expect(support.allowed == ImageMagick.defaultAllowedDecoders.intersection(support.decodable))
        #expect(ImageMagick.allowedDecoders == ImageMagick.defaultAllowedDecoders, "another test changed the process-wide allowlist")
        for format in [ImageFormat.jpeg, .png, .gif, .webp, .tiff, .bmp] {
            #expect(support.allowed.contains(format), "\(format) is not allowed by default")
        }
        for name in ["svg", "msvg", "mvg", "msl", "text", "txt", "ephemeral", "label", "caption", "url", "http", "https", "ps", "pdf", "xc"] {
            #expect(!support.allowed.contains(ImageFormat(rawValue: name)), "\(name) is allowed")
        }
        // What this ImageMagick has: the checks above would be vacuous without it. (EPHEMERAL is a
        // "stealth" coder that MagickQueryFormats does not list; policyLayer covers it.)
        for name in ["jpeg", "png", "gif", "webp", "tiff", "mvg", "msl", "svg", "text", "label"] {
            #expect(support.decodable.contains(ImageFormat(rawValue: name)), "\(name) is not decodable by this ImageMagick")
        }
        for format in [ImageFormat.jpeg, .png, .webp] {
            #expect(support.encodable.contains(format), "\(format) is not encodable")
        }
    }

    @Test("allowedDecoders = [.png]: JPEG is formatNotAllowed by every layer, PNG still works; restoring the default restores JPEG (child process: the setting is process-wide)",
          .timeLimit(.minutes(10)))
    func allowlistInChildProcess() throws {
        let run = try ChildTest.run("childAllowlist", job: "allowlist")
        #expect(run.status == 0, "the child \(run.terminatingSignal.map { "was killed by signal \($0)" } ?? "exited with \(run.status)")\n\(ChildTest.excerpt(run))")
        #expect(run.stdoutText.contains("allowlist child: done"), "the child test did not run:\n\(ChildTest.excerpt(run))")
    }

    @Test(.enabled(if: ChildTest.job == "allowlist"))
    func childAllowlist() throws {
        let jpeg = try Fixture.data("photo.jpg"), png = try Fixture.data("photo.png")
        ImageMagick.allowedDecoders = [.png]
        #expect(ImageMagick.allowedDecoders == [.png])
        #expect(ImageMagick.availableFormats.allowed == [.png])
        #expect(errorKind { _ = try ImageSource(data: jpeg) } == .formatNotAllowed)
        #expect(errorKind { _ = try ImageSource(url: Fixture.url("photo.jpg")) } == .formatNotAllowed)
        // A PNG named .jpg is still a PNG.
        #expect(try ImageSource(url: Fixture.url("png-named.jpg")).format == .png)
        let thumb = try ImageSource(data: png).thumbnail(maxPixelSize: 64)
        #expect(thumb.width == 64 && thumb.height == 48)
        // ImageMagick's policy, past the Swift check: the JPEG coder itself is refused now.
        let forced = errorKind {
            try Wand().read(.memory(jpeg), format: .jpeg, ping: false)
        }
        #expect(forced == .formatNotAllowed, "JPEG forced past the Swift check: \(forced.map { "\($0)" } ?? "decoded")")
        // Encoders are not decoders: PNG -> JPEG still encodes.
        #expect(try !thumb.encoded(as: .jpeg(quality: 80)).isEmpty)

        ImageMagick.allowedDecoders = ImageMagick.defaultAllowedDecoders
        #expect(try ImageSource(data: jpeg).thumbnail(maxPixelSize: 64).width == 64)
        #expect(try Wand.withThreadWand { wand throws(MagickIOError) in
            try wand.read(.memory(jpeg), format: .jpeg, ping: false)
            return wand.width
        } == 320)
        print("allowlist child: done")
    }

    @Test("strictness .acceptPartial: a truncated JPEG decodes (320x240) only when asked; a failed PNG still throws")
    func partialImages() throws {
        let truncated = try Fixture.data("truncated.jpg")
        for strict in [try ImageSource(url: Fixture.url("truncated.jpg")), try ImageSource(data: truncated)] {
            #expect(errorKind { _ = try strict.image(at: 0) } == .corruptImage)
            #expect(errorKind { _ = try strict.thumbnail(maxPixelSize: 64) } == .corruptImage)
        }
        let lenient = DecodingOptions(strictness: .acceptPartial)
        for source in [try ImageSource(url: Fixture.url("truncated.jpg"), options: lenient), try ImageSource(data: truncated, options: lenient)] {
            let image = try source.image(at: 0)
            #expect(image.width == 320 && image.height == 240)
            #expect(image.warnings.contains { $0.contains("Premature end of JPEG file") }, "\(image.warnings)")
            let thumb = try source.thumbnail(maxPixelSize: 64)
            #expect(thumb.width == 64 && thumb.height == 48)
        }
        // libpng fails outright on a truncated PNG: there is no partial image to accept.
        let png = try ImageSource(url: Fixture.url("truncated.png"), options: lenient)
        #expect(errorKind { _ = try png.image(at: 0) } == .corruptImage)
        // Cut in the header: no option makes that an image.
        #expect(errorKind { _ = try ImageSource(data: truncated.prefix(40), options: lenient) } == .corruptImage)
    }

    @Test("a file fails with the same kind, severity and reason as the same bytes in memory")
    func fileErrorsMatchMemoryErrors() throws {
        let directory = try TemporaryDirectory("hostile-file-errors")
        let lies = try Corpus.lyingHeaders()
        for name in ["animated.gif/lie:frame-0x0", "orient-6.tif/lie:65535x65535", "orient-6.tif/lie:0x0", "photo.jpg/lie:0x0"] {
            let item = try #require(lies.first { $0.name == name })
            let url = directory.url.appendingPathComponent(name.replacingOccurrences(of: "/", with: "_"))
            try item.data.write(to: url)
            func failure(_ open: () throws -> ImageSource) -> MagickIOError? {
                do {
                    _ = try open().thumbnail(maxPixelSize: 64)
                    return nil
                } catch {
                    return error as? MagickIOError ?? MagickIOError(.io, "not a MagickIOError: \(error)")
                }
            }
            let memory = try #require(failure { () throws in try ImageSource(data: item.data) }, "\(name) decoded from memory")
            let file = try #require(failure { () throws in try ImageSource(url: url) }, "\(name) decoded from a file")
            #expect(file.kind == memory.kind && file.severity == memory.severity,
                    "\(name): from memory \(memory), from a file \(file)")
            #expect(!file.message.contains("without a reason") || memory.message.contains("without a reason"),
                    "\(name): ImageMagick's reason is lost from a file: \(file.message) (from memory: \(memory.message))")
        }
    }
}
