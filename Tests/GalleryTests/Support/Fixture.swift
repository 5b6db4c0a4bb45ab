import Foundation

/// MagickIO's test fixtures, read where they lie (`Tests/MagickIOTests/Fixtures`): this target has
/// no resources of its own.
enum Fixture {
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("MagickIOTests/Fixtures/\(name)")
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }
}
