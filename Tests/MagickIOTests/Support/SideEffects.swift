import Dispatch
import Foundation
import Synchronization
import Testing
@testable import MagickIO
import Glibc

// MARK: - Side effects

/// A directory with files that hostile input might try to read, delete or write next to.
struct Scene {
    let directory: TemporaryDirectory
    /// A real PNG that SVG, MVG and MSL inputs point at.
    let sentinel: URL
    /// A text file that `text:` inputs point at.
    let secret: URL
    /// A file that `ephemeral:` inputs name (ImageMagick's EPHEMERAL coder deletes what it reads).
    let victim: URL
    /// `@list.txt`, holding the sentinel's path.
    let list: URL
    private let originals: [URL: Data]

    init() throws {
        directory = try TemporaryDirectory("hostile-scene")
        sentinel = directory.url.appendingPathComponent("sentinel.png")
        secret = directory.url.appendingPathComponent("secret.txt")
        victim = directory.url.appendingPathComponent("victim.txt")
        list = directory.url.appendingPathComponent("@list.txt")
        let originals = [
            sentinel: try Fixture.data("alpha.png"),
            secret: Data("the secret\n".utf8),
            victim: Data("the victim\n".utf8),
            list: Data("\(directory.url.appendingPathComponent("sentinel.png").path)\n".utf8),
        ]
        for (url, data) in originals { try data.write(to: url) }
        self.originals = originals
    }

    /// Every file of the scene still there with its content.
    var untouched: Bool {
        originals.allSatisfy { url, data in (try? Data(contentsOf: url)) == data }
    }

    /// Each content is refused (formatNotAllowed or unsupportedFormat), from memory and from a
    /// file, and no file of the scene other than that file sees an event (open, read, write,
    /// create, delete).
    func expectRefusedWithoutSideEffects(_ contents: [String], name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let inputs = directory.url.appendingPathComponent("inputs")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        var files: [URL] = []
        for (index, content) in contents.enumerated() {
            // Named as the format and as a JPEG: the name must not matter.
            for fileExtension in [name, "jpg"] {
                let url = inputs.appendingPathComponent("\(name)-\(index).\(fileExtension)")
                try Data(content.utf8).write(to: url)
                files.append(url)
            }
        }
        let events = try FileEvents(watching: directory.url)
        var kinds: [String] = []
        for (index, content) in contents.enumerated() {
            let kind = errorKind { _ = try ImageSource(data: Data(content.utf8)) }
            #expect(kind == .formatNotAllowed || kind == .unsupportedFormat,
                    "\(name) #\(index) from memory: \(kind.map { "\($0)" } ?? "opened")", sourceLocation: sourceLocation)
            kinds.append(kind.map { "\($0)" } ?? "opened")
        }
        for url in files {
            let kind = errorKind {
                let source = try ImageSource(url: url)
                _ = try source.thumbnail(maxPixelSize: 64)
            }
            #expect(kind == .formatNotAllowed || kind == .unsupportedFormat,
                    "\(url.lastPathComponent): \(kind.map { "\($0)" } ?? "decoded")", sourceLocation: sourceLocation)
            kinds.append(kind.map { "\($0)" } ?? "decoded")
        }
        let tally = Dictionary(kinds.map { ($0, 1) }, uniquingKeysWith: +).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        print("HostileInput \(name): \(contents.count) inputs from memory and \(files.count) from files refused: \(tally.joined(separator: ", "))")
        let seen = events.drain()
        #expect(seen.isEmpty, "file events in the scene: \(seen)", sourceLocation: sourceLocation)
        #expect(untouched, "a file of the scene changed or went away", sourceLocation: sourceLocation)
        let strays = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { !["sentinel.png", "secret.txt", "victim.txt", "@list.txt", "inputs"].contains($0) }
        #expect(strays.isEmpty, "new files in the scene: \(strays)", sourceLocation: sourceLocation)
    }
}

/// inotify on one directory (not its subdirectories): which of its files were opened, read,
/// written, created, deleted or renamed.
final class FileEvents {
    struct Event: CustomStringConvertible {
        var name: String
        var mask: UInt32
        var description: String {
            let names: [(UInt32, String)] = [
                (UInt32(IN_OPEN), "open"), (UInt32(IN_ACCESS), "read"), (UInt32(IN_MODIFY), "write"), (UInt32(IN_CREATE), "create"),
                (UInt32(IN_DELETE), "delete"), (UInt32(IN_MOVED_FROM), "moved-from"), (UInt32(IN_MOVED_TO), "moved-to"),
                (UInt32(IN_ATTRIB), "attrib"), (UInt32(IN_CLOSE_WRITE), "close-write"),
            ]
            return "\(name.isEmpty ? "<dir>" : name): " + names.filter { mask & $0.0 != 0 }.map(\.1).joined(separator: "+")
        }
    }

    private let descriptor: Int32

    init(watching directory: URL) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let mask = UInt32(IN_OPEN | IN_ACCESS | IN_MODIFY | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_CLOSE_WRITE)
        guard inotify_add_watch(descriptor, directory.path, mask) >= 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    deinit {
        close(descriptor)
    }

    /// The events since the watch began (or the last drain).
    func drain() -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + 16 <= count {
                let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                events.append(Event(name: String(decoding: nameBytes, as: UTF8.self), mask: mask))
                offset += 16 + length
            }
        }
        return events
    }
}

/// A fresh directory under the temporary directory, removed with its contents on deinit.
final class TemporaryDirectory: Sendable {
    let url: URL

    init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
