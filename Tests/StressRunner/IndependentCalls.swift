import Foundation
import MagickIO

/// Independent thumbnail calls at once, as a service's request handlers make them, none knowing of
/// the others: four plain `async` calls, then two handlers sharing one ``Thumbnailer`` with four
/// calls each, all twelve under way together. Each result is encoded as a handler would answer
/// with it, then dropped. Returns how many succeeded and the errors of the rest.
func independentCalls(_ url: URL, maxPixelSize: Int) async -> [String: Any] {
    let thumbnailer = Thumbnailer(maxConcurrentJobs: 2)
    return await withTaskGroup(of: (String, String?).self) { group in
        for index in 0..<4 {
            group.addTask {
                await outcome("plain \(index)", maxPixelSize) {
                    try await ImageSource(url: url).thumbnail(maxPixelSize: maxPixelSize)
                }
            }
        }
        for handler in 0..<2 {
            for index in 0..<4 {
                group.addTask {
                    await outcome("thumbnailer \(handler).\(index)", maxPixelSize) {
                        try await thumbnailer.thumbnail(of: url, maxPixelSize: maxPixelSize)
                    }
                }
            }
        }
        var succeeded = 0
        var errors: [String] = []
        for await (label, error) in group {
            if let error { errors.append("\(label): \(error)") } else { succeeded += 1 }
        }
        return ["succeeded": succeeded, "errors": errors]
    }
}

/// Runs one call and encodes its thumbnail as JPEG; nil when both worked, else the error.
private func outcome(_ label: String, _ maxPixelSize: Int, _ call: @Sendable () async throws -> Image) async -> (String, String?) {
    do {
        let image = try await call()
        let jpeg = try await image.encoded(as: .jpeg(quality: 85))
        guard max(image.width, image.height) == maxPixelSize, !jpeg.isEmpty else {
            return (label, "unexpected \(image.width)x\(image.height)")
        }
        return (label, nil)
    } catch {
        return (label, "\(error)")
    }
}
