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

    @Test("start-up put the security policy and the resource limits in force: reads are allowed")
    func startUpStatusesHeld() throws {
        MagickRuntime.start()
        try MagickRuntime.checkSecurityPolicy()
        #expect(ResourceLimits.current.map == 0 && ResourceLimits.current.disk == 0)
    }
}
