import Foundation

/// A JSON value whose object keys keep the order they are given in (`JSONEncoder` sorts them or
/// leaves them in hash order); strings and numbers are escaped by `JSONEncoder`.
public indirect enum JSONLine: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case object([(String, JSONLine)])

    /// One line of JSON: `{"key": value, ...}`, no newline inside.
    public static func line(_ members: [(String, JSONLine)]) -> String {
        JSONLine.object(members).text
    }

    public var text: String {
        switch self {
        case .string(let value): Self.encoded(value)
        case .int(let value): String(value)
        case .double(let value): Self.encoded(value)
        case .bool(let value): value ? "true" : "false"
        case .object(let members):
            "{" + members.map { Self.encoded($0.0) + ": " + $0.1.text }.joined(separator: ", ") + "}"
        }
    }

    private static func encoded<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}
