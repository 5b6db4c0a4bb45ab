import Foundation

/// Inputs for the cost model's per-layout and per-scan tests, made at test time by the committed
/// generators and cached in ``LargeImages/cacheFolder``: `scripts/tiff-layouts.py` (a TIFF of a
/// given storage layout, written strip by strip) and `scripts/jpeg-scans.c` (progressive JPEGs of
/// chosen scan scripts, compiled here with `cc` against libjpeg-turbo).
enum CostFixtures {
    static let scripts = Harness.packageRoot.appendingPathComponent("scripts")

    /// A TIFF of `layout` (see the script's usage) at `width` x `height`.
    static func tiff(_ layout: String, width: Int, height: Int) throws -> URL {
        try LargeImages.cached("layout-\(layout)-\(width)x\(height).tif") { url in
            try run(URL(fileURLWithPath: "/usr/bin/python3"),
                    [scripts.appendingPathComponent("tiff-layouts.py").path, layout, "\(width)", "\(height)", url.path])
        }
    }

    /// A JPEG from `jpeg-scans` with `arguments` (its options, then width, height and, unless
    /// `-p`, the scan count), cached as `name`.
    static func jpegScans(_ arguments: [String], name: String) throws -> URL {
        let tool = try LargeImages.cached("jpeg-scans-v1") { url in
            try run(URL(fileURLWithPath: "/usr/bin/cc"),
                    [scripts.appendingPathComponent("jpeg-scans.c").path, "-O2", "-ljpeg", "-o", url.path])
        }
        return try LargeImages.cached(name) { url in
            let output = try run(tool, arguments)
            try output.write(to: url)
        }
    }

    @discardableResult
    private static func run(_ executable: URL, _ arguments: [String]) throws -> Data {
        let child = try runChild(executable, arguments, timeout: .seconds(300))
        guard child.status == 0 else {
            throw LargeImages.GenerationError(description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed: \(child)")
        }
        return child.stdout
    }
}
