import Foundation
import Testing
@testable import MagickIO

/// ``Image/write(to:as:metadata:)``'s file: replaced whole through a file beside it, with the
/// permissions a replaced file had, and nothing left behind when it fails.
@Suite("Atomic file")
struct AtomicFileTests {
    static func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0
    }

    static func leftovers(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".magickio-") }
    }

    @Test("a new file: the bytes, a new file's permissions, nothing beside it")
    func newFile() throws {
        let directory = try TemporaryDirectory("atomic-new")
        let url = directory.url.appendingPathComponent("t.jpg")
        let thumb = try Fixture.source("photo.jpg").thumbnail(maxPixelSize: 40)
        try thumb.write(to: url, as: .jpeg(quality: 80))
        #expect(try Data(contentsOf: url) == thumb.encoded(as: .jpeg(quality: 80)))
        // 0666 less the umask, as open(2) gives any new file.
        let probe = directory.url.appendingPathComponent("probe").path
        close(open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o666))
        #expect(Self.mode(url.path) == Self.mode(probe))
        #expect(try Self.leftovers(directory.url).isEmpty)
    }

    @Test("a file replaced keeps its permissions and gets the new bytes")
    func replaced() throws {
        let directory = try TemporaryDirectory("atomic-replace")
        let url = directory.url.appendingPathComponent("t.png")
        try Data("old".utf8).write(to: url)
        chmod(url.path, 0o640)
        try Fixture.source("alpha.png").thumbnail(maxPixelSize: 10).write(to: url, as: .png)
        #expect(Self.mode(url.path) == 0o640)
        #expect(try ImageSource(url: url).properties().pixelWidth == 10)
        #expect(try Self.leftovers(directory.url).isEmpty)
    }

    @Test("a symbolic link at the path is replaced, its target left alone")
    func symbolicLink() throws {
        let directory = try TemporaryDirectory("atomic-link")
        let target = directory.url.appendingPathComponent("target.txt")
        try Data("kept".utf8).write(to: target)
        let link = directory.url.appendingPathComponent("t.png")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        try Fixture.source("alpha.png").thumbnail(maxPixelSize: 10).write(to: link, as: .png)
        #expect(try Data(contentsOf: target) == Data("kept".utf8))
        #expect(try FileManager.default.attributesOfItem(atPath: link.path)[.type] as? FileAttributeType == .typeRegular)
        #expect(try ImageSource(url: link).properties().pixelWidth == 10)
    }

    @Test("a path that cannot be written: an io error naming it, and nothing left behind", arguments: ["missing/t.png", "directory"])
    func failure(relative: String) throws {
        let directory = try TemporaryDirectory("atomic-fail")
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("directory/inside"), withIntermediateDirectories: true)
        let url = directory.url.appendingPathComponent(relative)
        let thumb = try Fixture.source("alpha.png").thumbnail(maxPixelSize: 10)
        let error = try #require(throws: MagickIOError.self) { try thumb.write(to: url, as: .png) }
        #expect(error.kind == .io && error.message.contains(url.path), "\(error)")
        #expect(try Self.leftovers(directory.url).isEmpty)
        #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("directory/inside").path))
    }
}
