import Foundation
import Testing
@testable import MagickIO

/// Every C status is read: a call ImageMagick refuses becomes a typed error, never a silent no-op.
@Suite("C statuses")
struct CStatusTests {
    @Test("a profile ImageMagick cannot set throws, with the kind the caller names, instead of leaving the old one")
    func profileWriteFailureThrows() {
        let empty = Wand()  // no image: MagickSetImageProfile fails
        let error = #expect(throws: MagickIOError.self) { try empty.setProfile("exif", [0x45, 0x78, 0x69, 0x66, 0, 0]) }
        #expect(error?.kind == .corruptImage, "\(String(describing: error))")
        let encoding = #expect(throws: MagickIOError.self) {
            try empty.setProfile("exif", [0x45, 0x78, 0x69, 0x66, 0, 0], fallback: .encodingFailed)
        }
        #expect(encoding?.kind == .encodingFailed, "\(String(describing: encoding))")
    }

    @Test("a property ImageMagick cannot set throws")
    func propertyWriteFailureThrows() {
        let error = #expect(throws: MagickIOError.self) { try Wand().setProperty("comment", "x") }
        #expect(error?.kind == .corruptImage, "\(String(describing: error))")
    }

    @Test("a profile written to a real image is there to read back")
    func profileWriteSucceeds() throws {
        let wand = Wand()
        try wand.newImage(width: 2, height: 2, alpha: false)
        let exif: [UInt8] = Array("Exif\0\0MM\0*\0\0\0\u{8}\0\0".utf8)
        try wand.setProfile("exif", exif)
        #expect(wand.profile("exif") == exif)
        try wand.setProperty("comment", "kept")
        #expect(wand.property("comment") == "kept")
    }

    @Test("a new image is the size asked for, with alpha if asked, and one ImageMagick cannot make throws with its reason")
    func newImageSizes() throws {
        let wand = Wand()
        try wand.newImage(width: 300, height: 7, alpha: true)
        #expect(wand.width == 300 && wand.height == 7 && wand.hasAlpha)
        var row = [Float](repeating: 0.5, count: 300 * 4 + 1)
        for y in 0..<7 { try wand.importRow(y, &row, map: "RGBA") }
        let pixels = try wand.exportPixels(.rgba8, width: 300, height: 7)
        #expect(pixels.count == 300 * 7 * 4 && pixels.allSatisfy { $0 == 128 })
        // Made where the last one's pixels were, and not written: black and opaque, not grey.
        try wand.newImage(width: 300, height: 7, alpha: false)
        #expect(wand.width == 300 && wand.height == 7 && !wand.hasAlpha)
        #expect(try wand.exportPixels(.rgba8, width: 300, height: 7) == [UInt8](repeating: 0, count: 300 * 7 * 4).enumerated().map { $0.offset % 4 == 3 ? 255 : 0 })
        try wand.newImage(width: 5, height: 4, alpha: false)
        #expect(wand.width == 5 && wand.height == 4 && !wand.hasAlpha)
        // Past ImageMagick's width limit (its policy's, or what a pixel cache can address).
        let error = #expect(throws: MagickIOError.self) { try wand.newImage(width: 1 << 40, height: 1 << 40, alpha: false) }
        #expect(error?.kind == .corruptImage && error?.message.hasPrefix("ImageMagick could not make a") == true
                && error?.message.hasSuffix("image: ") == false, "\(String(describing: error))")
    }

    @Test("an image ImageMagick cannot make from pixels throws; a worker's too wide a snapshot is limitExceeded on the host, which lives on")
    func constituteFailureThrows() throws {
        let small = Wand()
        try small.newImage(width: 2, height: 2, alpha: false)
        var snapshot = ImageSnapshot(small)
        // Past the width limit (16,384 by default): ImageMagick 6's ConstituteImage would assert.
        snapshot.width = 16_385
        snapshot.height = 1
        let pixels = [UInt8](repeating: 0, count: snapshot.pixelBytes)
        let error = #expect(throws: MagickIOError.self) {
            try pixels.withUnsafeBytes { try snapshot.restore(into: Wand(), pixels: $0.baseAddress!) }
        }
        #expect(error?.kind == .limitExceeded && error?.message.contains("16385x1") == true, "\(String(describing: error))")
        // Within the limits, the same pixels make the image, in the snapshot's colour space.
        snapshot.width = 300
        let wand = Wand()
        try pixels.withUnsafeBytes { try snapshot.restore(into: wand, pixels: $0.baseAddress!) }
        #expect(wand.width == 300 && wand.height == 1 && !wand.hasAlpha)
        #expect(try wand.exportPixels(.rgba8, width: 300, height: 1) == [UInt8](repeating: 0, count: 300 * 4).enumerated().map { $0.offset % 4 == 3 ? 255 : 0 })
    }

    @Test("start-up put the security policy and the resource limits in force: reads are allowed")
    func startUpStatusesHeld() throws {
        MagickRuntime.start()
        try MagickRuntime.checkSecurityPolicy()
        #expect(ResourceLimits.current.map == 0 && ResourceLimits.current.disk == 0)
    }
}
