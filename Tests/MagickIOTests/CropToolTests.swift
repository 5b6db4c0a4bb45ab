import Foundation
import MagickIO
import Testing

/// `thumbnail --size --mode --crop` and `imageinfo --colors`, run as child processes.
@Suite(.timeLimit(.minutes(10)))
struct CropToolTests {
    struct Rect: Decodable, Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    struct CropLine: Decodable {
        var input: String
        var output: String?
        var width: Int?
        var height: Int?
        var crop: Rect?
    }

    struct ColorLine: Decodable {
        var input: String
        var pixelWidth: Int?
        var dominantColor: String?
    }

    private func thumbnail(_ arguments: [String], in sandbox: Sandbox) async throws -> (RunResult, [CropLine]) {
        let run = try await Harness.run("thumbnail", arguments + ["--output", "out", "--json", "--time-limit", "0"], in: sandbox.url)
        return (run, try run.jsonLines(as: CropLine.self))
    }

    @Test("--mode fill --crop attention keeps the off-centre object and reports its crop; center crops the middle")
    func attentionFromTheCommandLine() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try SceneImages.offCentreObject(at: (x: 225, y: 70)).write(to: sandbox.url.appendingPathComponent("scene.png"))

        let (run, lines) = try await thumbnail(["scene.png", "--size", "100x100", "--mode", "fill", "--crop", "attention"], in: sandbox)
        #expect(run.status == 0, "\(run)")
        let line = try #require(lines.first)
        #expect(line.width == 100 && line.height == 100)
        let crop = try #require(line.crop, "\(run)")
        #expect(crop.width == 200 && crop.height == 200 && crop.y == 0)
        #expect(crop.x <= 225 && crop.x + crop.width >= 285, "\(crop)")
        let written = try ImageSource(url: sandbox.url.appendingPathComponent("out/scene.jpg")).properties(at: 0)
        #expect(written.pixelWidth == 100 && written.pixelHeight == 100)

        let (_, centre) = try await thumbnail(["scene.png", "--size", "100x100", "--mode", "fill"], in: sandbox)
        #expect(centre.first?.crop == Rect(x: 50, y: 0, width: 200, height: 200))
    }

    @Test("the crop is in the upright picture's pixels; fill without --size is the --max-pixel-size square; fit reports none")
    func uprightSquareAndFit() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let input = Harness.fixture("orient-6.jpg").path  // stored 64x96, shown 96x64
        let (run, lines) = try await thumbnail([input, "--max-pixel-size", "32", "--mode", "fill"], in: sandbox)
        #expect(run.status == 0, "\(run)")
        #expect(lines.first?.width == 32 && lines.first?.height == 32)
        #expect(lines.first?.crop == Rect(x: 16, y: 0, width: 64, height: 64))

        let (_, fit) = try await thumbnail([input, "--size", "48x48"], in: sandbox)
        #expect(fit.first?.width == 48 && fit.first?.height == 32)
        #expect(fit.first?.crop == nil)
        let (_, exact) = try await thumbnail([input, "--size", "40x20", "--mode", "exact"], in: sandbox)
        #expect(exact.first?.width == 40 && exact.first?.height == 20 && exact.first?.crop == nil)
    }

    @Test("bad sizes, modes and crops are usage errors (exit 2)", arguments: [
        ["--size", "100"], ["--size", "axb"], ["--size", "0x0"], ["--size", "-5x10"],
        ["--mode", "cover"], ["--crop", "faces"], ["--crop", "attention"], ["--size", "64x64", "--crop", "entropy"],
    ])
    func usage(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let run = try await Harness.run("thumbnail", [Harness.fixture("photo.jpg").path] + arguments, in: sandbox.url)
        #expect(run.status == 2, "\(run)")
        let written = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.url.appendingPathComponent("thumbnails").path)) ?? []
        #expect(written.isEmpty, "\(written)")
    }

    @Test("imageinfo --colors adds the dominant colour; without it there is none")
    func imageinfoColors() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let file = sandbox.url.appendingPathComponent("areas.png")
        try DominantColorTests.areas.write(to: file)
        let run = try await Harness.run("imageinfo", [file.path, "--json", "--colors"], in: sandbox.url)
        #expect(run.status == 0, "\(run)")
        let line = try #require(try run.jsonLines(as: ColorLine.self).first)
        #expect(line.pixelWidth == 128)
        let colour = try #require(line.dominantColor)
        // The blue half, through the 64-pixel thumbnail (within one step per channel).
        let expected = try await ImageSource(url: file).dominantColor()
        #expect(colour == expected.hex)
        #expect(abs(Int(expected.r) - 20) <= 1 && abs(Int(expected.b) - 200) <= 1)

        let plain = try await Harness.run("imageinfo", [file.path, "--json"], in: sandbox.url)
        let plainLine = try #require(try plain.jsonLines(as: ColorLine.self).first)
        #expect(plainLine.dominantColor == nil)
        let text = try await Harness.run("imageinfo", [file.path, "--colors"], in: sandbox.url)
        #expect(text.stdout.contains("dominant color: " + expected.hex), "\(text)")
    }
}
