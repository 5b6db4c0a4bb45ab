import Foundation
import Testing
@testable import MagickIO

/// Checks the test-support code itself: the large-image generators (on small sizes) and the child
/// process runner that memory-bound tests rely on.
@Suite("LargeImages self-tests")
struct LargeImagesSelfTests {
    // MARK: Generators

    @Test("writeJPEG makes a valid, photo-sized JPEG", arguments: [false, true])
    func jpeg(progressive: Bool) throws {
        try withScratchDirectory { directory in
            let url = directory.appendingPathComponent("photo.jpg")
            try LargeImages.writeJPEG(to: url, width: 640, height: 480, quality: 88, progressive: progressive)

            let bytes = try Data(contentsOf: url)
            // SOF2 marks a progressive JPEG, SOF0 a baseline one.
            let markers = bytes.jpegMarkersBeforeScan
            #expect(markers.contains(0xC2) == progressive)
            #expect(markers.contains(0xC0) == !progressive)
            let bitsPerPixel = Double(bytes.count * 8) / Double(640 * 480)
            #expect((1.5...3.5).contains(bitsPerPixel), "\(bitsPerPixel) bits a pixel")

            let source = try ImageSource(url: url)
            #expect(source.format == .jpeg)
            let properties = try source.properties(at: 0)
            #expect(properties.pixelWidth == 640)
            #expect(properties.pixelHeight == 480)
            #expect(!properties.hasAlpha)
            let thumbnail = try source.thumbnail(maxPixelSize: 64)
            #expect(thumbnail.width == 64)
            #expect(thumbnail.height == 48)
        }
    }

    @Test("writeJPEG is deterministic")
    func jpegDeterministic() throws {
        try withScratchDirectory { directory in
            let a = directory.appendingPathComponent("a.jpg")
            let b = directory.appendingPathComponent("b.jpg")
            try LargeImages.writeJPEG(to: a, width: 97, height: 61)
            try LargeImages.writeJPEG(to: b, width: 97, height: 61)
            #expect(try Data(contentsOf: a) == Data(contentsOf: b))
        }
    }

    @Test("writePNG makes a valid gradient PNG, RGB or RGBA", arguments: [false, true])
    func gradientPNG(alpha: Bool) throws {
        try withScratchDirectory { directory in
            let url = directory.appendingPathComponent("gradient.png")
            try LargeImages.writePNG(to: url, width: 300, height: 200, alpha: alpha, content: .gradient)

            let source = try ImageSource(url: url)
            #expect(source.format == .png)
            let properties = try source.properties(at: 0)
            #expect(properties.pixelWidth == 300)
            #expect(properties.pixelHeight == 200)
            #expect(properties.hasAlpha == alpha)
            let thumbnail = try source.thumbnail(maxPixelSize: 64)
            #expect(thumbnail.width == 64)
            #expect(thumbnail.height == 43)

            // Red and blue across, green down, alpha across (64 -> 255).
            let pixels = try source.image(at: 0).pixels(.rgba8)
            let topLeft = pixels.rgba(x: 0, y: 0)
            let bottomRight = pixels.rgba(x: 299, y: 199)
            #expect(topLeft.r == 0 && topLeft.g == 0 && topLeft.b == 255)
            #expect(bottomRight.r == 255 && bottomRight.g == 255 && bottomRight.b == 0)
            #expect(topLeft.a == (alpha ? 64 : 255))
            #expect(bottomRight.a == 255)
        }
    }

    @Test("writePNG makes a valid empty PNG at deflate's best ratio")
    func emptyPNG() throws {
        try withScratchDirectory { directory in
            let url = directory.appendingPathComponent("empty.png")
            try LargeImages.writePNG(to: url, width: 2000, height: 1500, alpha: false, content: .empty)

            let size = try Data(contentsOf: url).count
            #expect(size < 2000 * 1500 / 500, "\(size) bytes")
            let source = try ImageSource(url: url)
            #expect(source.format == .png)
            let properties = try source.properties(at: 0)
            #expect(properties.pixelWidth == 2000)
            #expect(properties.pixelHeight == 1500)
            #expect(!properties.hasAlpha)
            let thumbnail = try source.thumbnail(maxPixelSize: 64)
            #expect(thumbnail.width == 64)
            #expect(thumbnail.height == 48)
            #expect(try thumbnail.pixels(.gray8).bytes.allSatisfy { $0 == 0 })
        }
    }

    @Test("the generators throw, not crash, when the file cannot be created")
    func unwritable() {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/x")
        #expect(throws: LargeImages.GenerationError.self) {
            try LargeImages.writeJPEG(to: url.appendingPathExtension("jpg"), width: 8, height: 8)
        }
        #expect(throws: LargeImages.GenerationError.self) {
            try LargeImages.writePNG(to: url.appendingPathExtension("png"), width: 8, height: 8)
        }
    }

    // MARK: Child processes

    @Test("runChild reports the exit status and a plausible peak RSS")
    func exitStatus() throws {
        let run = try runChild(URL(fileURLWithPath: "/bin/sh"), ["-c", "exit 3"], timeout: .seconds(30))
        #expect(run.status == 3)
        #expect(run.terminatingSignal == nil)
        #expect(run.peakRSSBytes > 0)
        if run.peakRSSIsExact {
            // The shell's own footprint, not the test runner's.
            #expect(run.peakRSSBytes < 32 << 20, "\(run.peakRSSBytes) bytes")
        }
    }

    @Test("runChild measures the child's own peak, not the parent's")
    func peakOfAllocatingChild() throws {
        // dd reads 100 MiB from /dev/zero into one buffer: a peak of a little over 100 MiB.
        let run = try runChild(
            URL(fileURLWithPath: "/bin/dd"), ["if=/dev/zero", "of=/dev/null", "bs=100M", "count=1"],
            timeout: .seconds(30))
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.peakRSSBytes > 0)
        if run.peakRSSIsExact {
            #expect((100 << 20...140 << 20).contains(run.peakRSSBytes), "\(run.peakRSSBytes) bytes")
        }
    }

    @Test("runChild captures stdout and stderr, and honours environment and directory")
    func outputEnvironmentDirectory() throws {
        try withScratchDirectory { directory in
            let run = try runChild(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "pwd; echo \"$GREETING\" >&2; echo \"${HOME:-unset}\""],
                environment: ["GREETING": "hello"], currentDirectory: directory, timeout: .seconds(30))
            #expect(run.status == 0)
            let lines = run.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines == [directory.resolvingSymlinksInPath().path, "unset"])
            #expect(run.stderrText == "hello\n")
        }
    }

    @Test("runChild reports a signal as 128 + its number")
    func signalled() throws {
        let run = try runChild(URL(fileURLWithPath: "/bin/sh"), ["-c", "kill -TERM $$"], timeout: .seconds(30))
        #expect(run.terminatingSignal == SIGTERM)
        #expect(run.status == 128 + SIGTERM)
    }

    @Test("runChild kills a child that outlives its timeout")
    func timeout() throws {
        // A child that would never end on its own: only the timeout can end it.
        #expect {
            _ = try runChild(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec tail -f /dev/null"], timeout: .seconds(1))
        } throws: { error in
            guard case ChildProcessError.timedOut = error else { return false }
            return true
        }
    }

    @Test("builtProduct finds a built executable, or says how to build it")
    func product() throws {
        #expect(throws: ChildProcessError.self) { try builtProduct("no-such-product-\(UUID().uuidString)") }
        // The test runner itself is always there.
        let runner = try builtProduct(URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent)
        #expect(FileManager.default.isExecutableFile(atPath: runner.path))
    }

    // MARK: Helpers

    private func withScratchDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("large-images-self-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }
}

private extension Data {
    /// The markers of the segments before the first scan (0xC0 for SOF0, 0xC2 for SOF2, ...).
    var jpegMarkersBeforeScan: [UInt8] {
        let bytes = [UInt8](prefix(1 << 16))
        var markers: [UInt8] = []
        var i = 2  // after SOI
        while i + 4 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] != 0xDA {
            markers.append(bytes[i + 1])
            i += 2 + bytes.u16be(at: i + 2)
        }
        return markers
    }
}
