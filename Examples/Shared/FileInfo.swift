import Foundation
import MagickIO

/// What `imageinfo` reports about one file.
public struct FileInfo: Sendable {
    public var input: String
    public var format: ImageFormat
    public var frameCount: Int
    public var properties: ImageProperties
    public var fileSize: Int
    /// The picture's dominant colour, when asked for (it decodes a small thumbnail).
    public var dominantColor: RGBColor?

    public init(path: String, options: DecodingOptions = .default, colors: Bool = false) throws {
        let source = try ImageSource(url: URL(fileURLWithPath: path), options: options)
        input = path
        format = source.format
        frameCount = source.count
        properties = try source.properties(at: 0)
        dominantColor = colors ? try source.dominantColor() : nil
        var status = stat()
        fileSize = stat(path, &status) == 0 ? Int(status.st_size) : 0
    }

    public var jsonLine: String {
        var members: [(String, JSONLine)] = [
            ("input", .string(input)),
            ("format", .string(format.rawValue)),
            ("pixelWidth", .int(properties.pixelWidth)),
            ("pixelHeight", .int(properties.pixelHeight)),
            ("orientation", .int(properties.orientation.rawValue)),
            ("orientedWidth", .int(properties.orientedWidth)),
            ("orientedHeight", .int(properties.orientedHeight)),
            ("frameCount", .int(frameCount)),
            ("hasAlpha", .bool(properties.hasAlpha)),
            ("colorSpace", .string(properties.colorSpace)),
            ("bitDepth", .int(properties.bitDepth)),
            ("fileSize", .int(fileSize)),
        ]
        if let resolution = properties.resolution {
            members.append(("resolution", .object([("x", .double(resolution.x)), ("y", .double(resolution.y))])))
        }
        if let dominantColor {
            members.append(("dominantColor", .string(dominantColor.hex)))
        }
        members.append(("exif", .object(properties.exif.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        return JSONLine.line(members)
    }

    public var textBlock: String {
        let p = properties
        var rows: [(String, String)] = [
            ("format", format.rawValue),
            ("pixel size", "\(p.pixelWidth) x \(p.pixelHeight)"),
            ("orientation", "\(p.orientation.rawValue) (\(p.orientation))"),
            ("oriented size", "\(p.orientedWidth) x \(p.orientedHeight)"),
            ("frames", "\(frameCount)"),
            ("alpha", p.hasAlpha ? "yes" : "no"),
            ("color space", p.colorSpace),
            ("bit depth", "\(p.bitDepth)"),
        ]
        if let resolution = p.resolution {
            rows.append(("resolution", "\(Self.number(resolution.x)) x \(Self.number(resolution.y)) ppi"))
        }
        rows.append(("file size", Self.byteCount(fileSize)))
        if let dominantColor {
            rows.append(("dominant color", dominantColor.hex))
        }
        if !p.exif.isEmpty {
            let highlights = ["Make", "Model", "DateTimeOriginal"].compactMap { key in p.exif[key].map { "\(key)=\($0)" } }
            let tags = p.exif.count == 1 ? "1 tag" : "\(p.exif.count) tags"
            rows.append(("exif", ([tags] + highlights).joined(separator: ", ")))
        }
        let width = rows.map(\.0.count).max() ?? 0
        let lines = rows.map { label, value in
            "  " + label + ":" + String(repeating: " ", count: width - label.count + 1) + value
        }
        return ([input] + lines).joined(separator: "\n")
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(format: "%.2f", value)
    }

    private static func byteCount(_ bytes: Int) -> String {
        guard bytes >= 1024 else { return "\(bytes) bytes" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f", value) + " \(units[unit]) (\(bytes) bytes)"
    }
}
