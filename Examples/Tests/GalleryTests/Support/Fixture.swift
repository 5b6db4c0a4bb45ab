import Foundation

/// MagickIO's test fixtures, read where they lie (the root package's `Tests/MagickIOTests/Fixtures`):
/// this target has no resources of its own.
enum Fixture {
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // Examples/Tests/GalleryTests/Support
            .appendingPathComponent("../../../../Tests/MagickIOTests/Fixtures/\(name)").standardizedFileURL
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }
}
