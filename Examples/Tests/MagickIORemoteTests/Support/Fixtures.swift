import Foundation
import MagickIO
@testable import MagickIORemote

/// MagickIOTests' fixture images, read where they lie (the root package's `Tests/MagickIOTests/Fixtures`).
enum Fixture {
    static func data(_ name: String) throws -> Data {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // Examples/Tests/MagickIORemoteTests/Support
            .appendingPathComponent("../../../../Tests/MagickIOTests/Fixtures").standardizedFileURL
        return try Data(contentsOf: folder.appendingPathComponent(name))
    }

    /// `photo.jpg` with its frame header claiming `side` x `side` pixels, padded with zeros to
    /// `totalBytes`: a decompression bomb whose header comes first.
    static func jpegBomb(side: UInt16 = 16383, totalBytes: Int) throws -> Data {
        var data = try Self.data("photo.jpg")
        guard let sof = (0..<data.count - 9).first(where: { data[$0] == 0xFF && data[$0 + 1] == 0xC0 }) else {
            throw MagickIOError(.corruptImage, "photo.jpg has no baseline SOF")
        }
        for offset in [sof + 5, sof + 7] {  // height, then width, big-endian
            data[offset] = UInt8(side >> 8)
            data[offset + 1] = UInt8(side & 0xFF)
        }
        data.append(Data(count: max(totalBytes - data.count, 0)))
        return data
    }
}

/// A loader that may reach the test origin (loopback), with the given changes.
func loopbackLoader(_ change: (inout RemoteImageLoader.Configuration) -> Void = { _ in }) -> RemoteImageLoader {
    var configuration = RemoteImageLoader.Configuration()
    configuration.allowLoopback = true
    change(&configuration)
    return RemoteImageLoader(configuration: configuration)
}

/// The kind of the MagickIOError `body` throws, or nil when it throws none (or another type).
func errorKind(_ body: () async throws -> Void) async -> MagickIOError.Kind? {
    do {
        try await body()
        return nil
    } catch let error as MagickIOError {
        return error.kind
    } catch {
        return nil
    }
}

/// The error `body` throws, when it is a MagickIOError.
func magickError(_ body: () async throws -> Void) async -> MagickIOError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? MagickIOError
    }
}
