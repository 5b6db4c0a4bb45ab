import Dispatch
import Foundation
import Synchronization
import Testing
@testable import MagickIO
import Glibc

// MARK: - Outcomes

/// What one input gave: a sane result or the kind of error, with any violation of the rules.
struct Evaluation: Sendable {
    enum Result: Hashable, Sendable {
        case success
        case failure(MagickIOError.Kind)
    }

    var result: Result
    /// Where it failed (`open`, `properties`, `thumbnail`) and the message, or the sizes on success.
    var detail: String
    /// A rule broken: an unexpected error kind, or an insane size.
    var problem: String?

    /// What bad input is allowed to cause.
    static let expectedKinds: Set<MagickIOError.Kind> = [.corruptImage, .unsupportedFormat, .formatNotAllowed, .limitExceeded, .emptyData, .frameOutOfRange]

    var label: String {
        switch result {
        case .success: "ok"
        case .failure(let kind): kind.rawValue
        }
    }

    /// Opens with `open`, reads the properties of up to four frames and makes a 64-pixel thumbnail
    /// of the first frame (and of the last one when there are several).
    static func evaluate(_ name: String, _ open: () throws -> ImageSource) -> Evaluation {
        var stage = "open"
        do {
            let source = try open()
            guard source.count > 0 else {
                return Evaluation(result: .success, detail: "no frames", problem: "\(name): opened with no frames")
            }
            stage = "properties"
            var sizes: [String] = []
            for index in 0..<min(source.count, 4) {
                let properties = try source.properties(at: index)
                sizes.append("\(properties.pixelWidth)x\(properties.pixelHeight)")
                guard properties.pixelWidth > 0, properties.pixelHeight > 0,
                      properties.orientedWidth > 0, properties.orientedHeight > 0 else {
                    return Evaluation(result: .success, detail: sizes.joined(separator: ","),
                                      problem: "\(name): frame \(index) of a \(source.format) source is \(properties.pixelWidth)x\(properties.pixelHeight)")
                }
            }
            stage = "thumbnail"
            var frames = [0]
            if source.count > 1 { frames.append(source.count - 1) }
            for index in frames {
                let thumb = try source.thumbnail(maxPixelSize: 64, at: index)
                sizes.append("thumb[\(index)] \(thumb.width)x\(thumb.height)")
                guard thumb.width > 0, thumb.height > 0, max(thumb.width, thumb.height) <= 64 else {
                    return Evaluation(result: .success, detail: sizes.joined(separator: ","),
                                      problem: "\(name): thumbnail of frame \(index) is \(thumb.width)x\(thumb.height) for a maximum of 64")
                }
            }
            if source.format == .heic || source.format == .avif || name.hasPrefix("embedded-thumbnail") {
                // The embedded thumbnail's own path: EXIF's JPEG, or a HEIF item through libheif.
                stage = "embedded thumbnail"
                let thumb = try source.thumbnail(maxPixelSize: 64, options: ThumbnailOptions(embedded: .always))
                sizes.append("embedded \(thumb.width)x\(thumb.height)")
                guard thumb.width > 0, thumb.height > 0, max(thumb.width, thumb.height) <= 64 else {
                    return Evaluation(result: .success, detail: sizes.joined(separator: ","),
                                      problem: "\(name): embedded thumbnail is \(thumb.width)x\(thumb.height) for a maximum of 64")
                }
            }
            return Evaluation(result: .success, detail: "\(source.format) " + sizes.joined(separator: ","))
        } catch let error as MagickIOError {
            let problem = expectedKinds.contains(error.kind) ? nil : "\(name): unexpected \(error.kind) at \(stage): \(error)"
            return Evaluation(result: .failure(error.kind), detail: "\(stage): \(error)", problem: problem)
        } catch {
            return Evaluation(result: .failure(.io), detail: "\(stage): \(error)",
                              problem: "\(name): threw \(type(of: error)), not a MagickIOError, at \(stage)")
        }
    }
}
