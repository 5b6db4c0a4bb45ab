import Foundation

/// The hostile-input families of scripts/hostile-fixtures.py (the one generator of them, also the
/// fuzzer's seeds), written at test time into the shared cache of generated inputs: deterministic,
/// so a file made once serves every later run.
enum HostileFixtures {
    static let folder: URL = {
        let url = LargeImages.cacheFolder.appendingPathComponent("hostile-v1")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static let script = Harness.packageRoot.appendingPathComponent("scripts/hostile-fixtures.py")

    struct GenerationFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// The family file `name` (scripts/hostile-fixtures.py's file name), generated if missing: into
    /// a scratch folder, then renamed into place, so an interrupted run leaves no half file.
    static func url(_ name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let scratch = folder.appendingPathComponent(".make-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let run = try runChild(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, scratch.path, "--only", name],
                               timeout: .seconds(300))
        guard run.status == 0 else {
            throw GenerationFailed(description: "\(script.path) --only \(name): exit \(run.status), \(run.stderrText)")
        }
        _ = rename(scratch.appendingPathComponent(name).path, url.path)
        return url
    }
}
