import Foundation
import Hummingbird
@testable import gallery

/// A folder for the gallery to serve, made of fixtures, with the traps a hostile path aims at:
/// a secret beside it, links leading out, hidden and non-image files. Removed on deinit.
/// `@unchecked Sendable`: immutable after init (a class only for its deinit).
final class GalleryFolder: @unchecked Sendable {
    let base: URL
    var root: URL { base.appendingPathComponent("images") }
    var cache: URL { base.appendingPathComponent("cache") }

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-\(UUID().uuidString)")
        let fm = FileManager.default
        let outside = base.appendingPathComponent("outside")
        try fm.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        try fm.copyItem(at: Fixture.url("photo.jpg"), to: root.appendingPathComponent("photo.jpg"))
        try fm.copyItem(at: Fixture.url("orient-6.jpg"), to: root.appendingPathComponent("turned.jpg"))
        try fm.copyItem(at: Fixture.url("alpha.png"), to: root.appendingPathComponent("sub/alpha.png"))
        try fm.copyItem(at: Fixture.url("photo.jpg"), to: root.appendingPathComponent(".hidden.jpg"))
        try fm.copyItem(at: Fixture.url("photo.jpg"), to: root.appendingPathComponent("with space.jpg"))
        try Data("not an image".utf8).write(to: root.appendingPathComponent("notes.txt"))
        try Data("not an image either".utf8).write(to: root.appendingPathComponent("text.jpg"))
        try fm.copyItem(at: Fixture.url("photo.jpg"), to: outside.appendingPathComponent("secret.jpg"))
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("inside-link.jpg").path, withDestinationPath: "photo.jpg")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("escape.jpg").path,
                                  withDestinationPath: outside.appendingPathComponent("secret.jpg").path)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("outdir").path, withDestinationPath: "../outside")
    }

    deinit {
        try? FileManager.default.removeItem(at: base)
    }

    func gallery(uploads: UploadLimits = UploadLimits()) throws -> Gallery {
        try Gallery(root: root, cache: cache, jobs: 2, memoryBudget: 256 << 20, uploads: uploads)
    }

    /// The gallery as an application; `.live` tests get a port of their own.
    func application(uploads: UploadLimits = UploadLimits()) throws -> some ApplicationProtocol {
        try gallery(uploads: uploads).application(address: .hostname("127.0.0.1", port: 0))
    }
}
