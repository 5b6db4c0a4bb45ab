import Foundation
import MagickIO
import Testing

/// Locates and runs the built executables.
enum Harness {
    /// The package root, from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name)")
    }

    /// Where SwiftPM put the products: the test runner (on Linux `MagickIOPackageTests.xctest`, an
    /// executable, found through `/proc/self/exe`) sits next to `thumbnail` and `imageinfo`.
    static let productDirectories: [URL] = {
        var candidates: [URL] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        let bundle = Bundle.main.bundleURL
        candidates.append(bundle)
        candidates.append(bundle.deletingLastPathComponent())  // macOS: the .xctest bundle is a folder
        return candidates
    }()

    static func executable(_ name: String) throws -> URL {
        for directory in productDirectories {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        Issue.record("""
            The \(name) executable was not found next to the test runner (looked in \
            \(productDirectories.map(\.path).joined(separator: ", "))). Build it first with `swift build`.
            """)
        throw HarnessError.missingExecutable(name)
    }

    /// Runs `tool` with `arguments` in `directory`, stdin empty, and waits at most `timeout`.
    static func run(_ tool: String, _ arguments: [String], in directory: URL, timeout: Duration = .seconds(90)) async throws -> RunResult {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("examples-tests-logs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let stdoutURL = logs.appendingPathComponent("stdout")
        let stderrURL = logs.appendingPathComponent("stderr")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        defer {
            try? stdout.close()
            try? stderr.close()
        }

        let process = Process()
        process.executableURL = try executable(tool)
        // The tools' default time limit (10 s) is wall-clock time, which a loaded machine can pass:
        // runs that do not set one have none, so that no outcome depends on the clock.
        let timed = ["thumbnail", "imageinfo"].contains(tool) && !arguments.contains("--time-limit")
        process.arguments = (timed ? ["--time-limit", "0"] : []) + arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()

        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                process.waitUntilExit()
                throw HarnessError.timedOut("\(tool) \(arguments.joined(separator: " "))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            throw HarnessError.crashed("\(tool) \(arguments.joined(separator: " "))", signal: process.terminationStatus)
        }
        return RunResult(
            command: ([tool] + arguments).joined(separator: " "),
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
    }
}

enum HarnessError: Error, CustomStringConvertible {
    case missingExecutable(String)
    case timedOut(String)
    case crashed(String, signal: Int32)
    case badJSONLine(String, Error)

    var description: String {
        switch self {
        case .missingExecutable(let name): "the \(name) executable is missing"
        case .timedOut(let command): "timed out: \(command)"
        case .crashed(let command, let signal): "killed by signal \(signal): \(command)"
        case .badJSONLine(let line, let error): "not a JSON object line: \(line) (\(error))"
        }
    }
}

/// What a run printed and how it ended.
struct RunResult: CustomStringConvertible {
    var command: String
    var status: Int32
    var stdout: String
    var stderr: String

    var description: String {
        "`\(command)` exited \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }

    /// stdout as JSON lines: each line one object, every line ended by a newline.
    func jsonLines<Line: Decodable>(as type: Line.Type) throws -> [Line] {
        guard !stdout.isEmpty else { return [] }
        #expect(stdout.hasSuffix("\n"), "the last JSON line is not ended: \(self)")
        return try stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            do {
                return try JSONDecoder().decode(Line.self, from: Data(line.utf8))
            } catch {
                throw HarnessError.badJSONLine(String(line), error)
            }
        }
    }

    func thumbnailLines() throws -> [ThumbnailLine] {
        try jsonLines(as: ThumbnailLine.self)
    }

    func infoLines() throws -> [InfoLine] {
        try jsonLines(as: InfoLine.self)
    }
}

/// A `thumbnail --json` line: a result or an error (types checked strictly by `JSONDecoder`).
struct ThumbnailLine: Decodable, Sendable {
    var input: String
    var output: String?
    var width: Int?
    var height: Int?
    var error: ErrorLine?
}

/// An `imageinfo --json` line.
struct InfoLine: Decodable, Sendable {
    var input: String
    var format: String?
    var pixelWidth: Int?
    var pixelHeight: Int?
    var orientation: Int?
    var orientedWidth: Int?
    var orientedHeight: Int?
    var frameCount: Int?
    var hasAlpha: Bool?
    var colorSpace: String?
    var bitDepth: Int?
    var fileSize: Int?
    var error: ErrorLine?
}

struct ErrorLine: Decodable, Sendable {
    var kind: String
    var message: String
}

/// A fresh temporary directory for one test: the working directory of the runs and the home of
/// copied fixtures.
struct Sandbox {
    let url: URL

    init() throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath()
        url = base.appendingPathComponent("magickio-examples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Copies fixture `name` to `path` below the sandbox, making folders as needed.
    func copy(_ name: String, to path: String) throws {
        let destination = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Harness.fixture(name), to: destination)
    }

    func write(_ text: String, to path: String) throws {
        let destination = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: destination)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
