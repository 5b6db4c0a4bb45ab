import Dispatch
import Foundation
import Synchronization
import Testing
@testable import MagickIO
import Glibc

/// Hostile input: file names that are ImageMagick syntax (see ``HostileInputTests``).
extension HostileInputTests {
    // MARK: - File names that are ImageMagick syntax

    @Test("file names with ImageMagick syntax open the literal file, and nothing else is touched",
          .timeLimit(.minutes(10)))
    func syntaxInFileNames() throws {
        let scene = try Scene()
        let jpeg = try Fixture.data("photo.jpg"), png = try Fixture.data("alpha.png"), gif = try Fixture.data("animated.gif")
        // Decoys: what ImageMagick would read if it parsed the name.
        let decoys: [String: Data] = [
            "x.jpg": png, "frame0.jpg": png, "frame%d.png": png, "photo.jpg": png, "c.gif": png,
        ]
        for (name, data) in decoys {
            try data.write(to: scene.directory.url.appendingPathComponent(name))
        }
        // name -> (content, expected format, expected stored size)
        let names: [(name: String, data: Data, format: ImageFormat, width: Int, height: Int)] = [
            ("ephemeral:victim.txt", jpeg, .jpeg, 320, 240),
            ("text:x.jpg", jpeg, .jpeg, 320, 240),
            ("TEXT:victim.txt", jpeg, .jpeg, 320, 240),
            ("msl:sentinel.png", jpeg, .jpeg, 320, 240),
            ("png:photo.jpg", jpeg, .jpeg, 320, 240),
            ("JPEG:x.png", png, .png, 40, 30),
            ("a:b:c.gif", gif, .gif, 24, 16),
            ("x.jpg[0]", jpeg, .jpeg, 320, 240),
            ("x.jpg[1-2]", jpeg, .jpeg, 320, 240),
            ("photo.jpg[8x8]", jpeg, .jpeg, 320, 240),
            ("frame%d.jpg", jpeg, .jpeg, 320, 240),
            ("frame%03d%%.jpg", jpeg, .jpeg, 320, 240),
            ("-resize.jpg", jpeg, .jpeg, 320, 240),
            ("-", png, .png, 40, 30),
            ("--help", jpeg, .jpeg, 320, 240),
            ("@photo.jpg", jpeg, .jpeg, 320, 240),
            ("@victim.txt", png, .png, 40, 30),
            ("*.png", jpeg, .jpeg, 320, 240),
            ("|true.jpg", jpeg, .jpeg, 320, 240),
            ("~victim.jpg", jpeg, .jpeg, 320, 240),
        ]
        for entry in names {
            try entry.data.write(to: scene.directory.url.appendingPathComponent(entry.name))
        }
        let events = try FileEvents(watching: scene.directory.url)
        for entry in names {
            let url = scene.directory.url.appendingPathComponent(entry.name)
            do {
                let source = try ImageSource(url: url)
                #expect(source.format == entry.format, "\(entry.name): \(source.format)")
                let properties = try source.properties(at: 0)
                #expect(properties.pixelWidth == entry.width && properties.pixelHeight == entry.height,
                        "\(entry.name): \(properties.pixelWidth)x\(properties.pixelHeight)")
                let thumb = try source.thumbnail(maxPixelSize: 64)
                #expect(thumb.width > 0 && max(thumb.width, thumb.height) <= 64, "\(entry.name): \(thumb.width)x\(thumb.height)")
            } catch {
                Issue.record("\(entry.name) did not open as the literal file: \(error)")
            }
        }
        // Only the files opened on purpose were touched.
        let opened = Set(names.map(\.name))
        let stray = events.drain().filter { !opened.contains($0.name) }
        #expect(stray.isEmpty, "file events outside the opened files: \(stray)")
        #expect(scene.untouched, "the victim or the sentinel changed")
        for (name, data) in decoys {
            #expect((try? Data(contentsOf: scene.directory.url.appendingPathComponent(name))) == data, "decoy \(name) changed")
        }
    }

    @Test("an @file name is opened as the file itself; the list it holds is never read", .timeLimit(.minutes(10)))
    func atFileNames() throws {
        let scene = try Scene()
        let events = try FileEvents(watching: scene.directory.url)
        // `scene.list` is "@list.txt", holding the sentinel's path: it is text, not an image.
        let kind = errorKind { _ = try ImageSource(url: scene.list) }
        #expect(kind == .unsupportedFormat, "@list.txt: \(kind.map { "\($0)" } ?? "opened")")
        let stray = events.drain().filter { $0.name != scene.list.lastPathComponent }
        #expect(stray.isEmpty, "file events outside @list.txt: \(stray)")
        #expect(scene.untouched)
    }
}
