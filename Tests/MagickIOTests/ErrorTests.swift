import Foundation
import Testing
@testable import MagickIO

@Suite("Errors")
struct ErrorTests {
    @Test("a missing file is fileNotFound")
    func missingFile() {
        let kind = errorKind { _ = try ImageSource(url: URL(fileURLWithPath: "/nonexistent/nowhere.jpg")) }
        #expect(kind == .fileNotFound)
    }

    @Test("zero bytes are emptyData, from a file and from memory")
    func zeroBytes() {
        #expect(errorKind { _ = try Fixture.source("empty.jpg") } == .emptyData)
        #expect(errorKind { _ = try ImageSource(data: Data()) } == .emptyData)
    }

    @Test("random bytes are unsupportedFormat")
    func randomBytes() {
        #expect(errorKind { _ = try Fixture.source("random.bin") } == .unsupportedFormat)
    }

    @Test("a text file named .jpg is unsupportedFormat, not a JPEG error")
    func textNamedJPEG() throws {
        do {
            _ = try Fixture.source("text.jpg")
            Issue.record("text.jpg opened")
        } catch let error as MagickIOError {
            #expect(error.kind == .unsupportedFormat)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("a truncated JPEG is corruptImage with ImageMagick's reason, though its header opens")
    func truncatedJPEG() throws {
        let source = try Fixture.source("truncated.jpg")
        #expect(source.format == .jpeg)
        #expect(try source.properties(at: 0).pixelWidth == 320)
        do {
            _ = try source.image(at: 0)
            Issue.record("the truncated JPEG decoded")
        } catch let error as MagickIOError {
            #expect(error.kind == .corruptImage)
            #expect(error.severity != nil)
            #expect(error.message.localizedCaseInsensitiveContains("premature end") || error.message.localizedCaseInsensitiveContains("corrupt"))
            // ImageMagick read the descriptor's /proc link; the message names the caller's file.
            #expect(error.message.contains(Fixture.url("truncated.jpg").path), "\(error.message)")
            #expect(!error.message.contains("/proc/self/fd"), "\(error.message)")
        }
        #expect(errorKind { _ = try source.thumbnail(maxPixelSize: 64) } == .corruptImage)
    }

    @Test("a truncated PNG is corruptImage")
    func truncatedPNG() throws {
        #expect(errorKind {
            let source = try Fixture.source("truncated.png")
            _ = try source.thumbnail(maxPixelSize: 64)
        } == .corruptImage)
    }

    @Test("a JPEG cut inside its header is corruptImage at open")
    func headerOnlyJPEG() throws {
        let bytes = try Fixture.data("photo.jpg").prefix(40)
        #expect(errorKind { _ = try ImageSource(data: bytes) } == .corruptImage)
    }

    @Test("a frame index past the end is frameOutOfRange")
    func frameOutOfRange() throws {
        let source = try Fixture.source("photo.jpg")
        #expect(errorKind { _ = try source.properties(at: 1) } == .frameOutOfRange)
        #expect(errorKind { _ = try source.image(at: -1) } == .frameOutOfRange)
        #expect(errorKind { _ = try source.thumbnail(maxPixelSize: 10, at: 5) } == .frameOutOfRange)
    }

    @Test("a directory or an unwritable destination is io")
    func ioErrors() throws {
        #expect(errorKind { _ = try ImageSource(url: FileManager.default.temporaryDirectory) } == .io)
        let thumb = try Fixture.source("photo.jpg").thumbnail(maxPixelSize: 16)
        #expect(errorKind { try thumb.write(to: URL(fileURLWithPath: "/nonexistent/dir/t.png"), as: .png) } == .io)
    }

    @Test("every error kind has the camelCase name the tools print")
    func kindNames() {
        #expect(MagickIOError.Kind.allCases.map(\.rawValue) == [
            "fileNotFound", "emptyData", "unsupportedFormat", "formatNotAllowed", "corruptImage",
            "limitExceeded", "frameOutOfRange", "encodingFailed", "cancelled", "io", "sourceNotAllowed", "sourceUnavailable",
        ])
    }

    @Test("ImageMagick's severities map to kinds by meaning: a full pixel cache is limitExceeded, a generic error is not")
    func severityMapping() {
        func kind(_ severity: Int, _ message: String, reading: Bool = true) -> MagickIOError.Kind {
            MagickIOError(exception: MagickException(severity: .init(UInt32(severity)), message: message), fallback: .corruptImage,
                          reading: reading).kind
        }
        #expect(kind(445, "cache resources exhausted") == .limitExceeded)
        #expect(kind(400, "MemoryAllocationFailed") == .limitExceeded)
        #expect(kind(400, "WidthOrHeightExceedsLimit") == .limitExceeded)
        #expect(kind(400, "ColorspaceColorProfileMismatch `icc'") == .corruptImage, "ErrorException shares 400")
        #expect(kind(425, "Premature end of JPEG file") == .corruptImage)
        #expect(kind(420, "no decode delegate", reading: true) == .unsupportedFormat)
        #expect(kind(499, "not authorized") == .formatNotAllowed)
    }

    @Test("copying an image out of an empty wand throws instead of giving a 0x0 image")
    func emptyCopy() {
        #expect(errorKind { try Wand().addImages(of: Wand()) } == .corruptImage)
    }

    @Test("localizedDescription says the kind and ImageMagick's words; the severity has a name and a level")
    func localized() throws {
        do {
            _ = try Fixture.source("truncated.jpg").image(at: 0)
            Issue.record("a truncated JPEG decoded")
        } catch {
            let text = error.localizedDescription
            #expect(text.hasPrefix("corruptImage: "), "\(text)")
            #expect(text.contains("Premature end of JPEG file"))
            let severity = try #require((error as? MagickIOError)?.severity)
            #expect(severity.name == "CorruptImageWarning" && severity.level == .warning)
        }
    }
}
