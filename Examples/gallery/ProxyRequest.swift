import Crypto
import Foundation
import MagickIO

/// A key and salt pair that signs proxy URLs. Several may be in force at once, for rotation.
struct ProxyKey: Sendable, Hashable {
    var key: [UInt8]
    var salt: [UInt8]

    /// From the hex the flags take (`--proxy-key`, `--proxy-salt`); nil when either is not hex.
    init?(hexKey: String, hexSalt: String) {
        guard let key = Self.bytes(hex: hexKey), !key.isEmpty, let salt = Self.bytes(hex: hexSalt) else { return nil }
        self.key = key
        self.salt = salt
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Whether `signature` signs the path, compared in constant time (swift-crypto's check).
    func signs(_ signature: [UInt8], options: String, encodedSource: String) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: message(options: options, encodedSource: encodedSource),
                                               using: SymmetricKey(data: key))
    }

    private func message(options: String, encodedSource: String) -> [UInt8] {
        salt + Array("/\(options)/\(encodedSource)".utf8)
    }
}

/// Base64url (RFC 4648 §5), read with or without padding.
enum Base64URL {
    static func decode(_ text: some StringProtocol) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// `GET /proxy/<signature>/<options>/<base64url of the source URL>`, taken apart.
struct ProxyRequest: Sendable {
    /// The largest box side `w:` and `h:` may ask for.
    static let sides = 0...4096

    var signature: String
    /// The options as they stand in the path (what the signature covers).
    var optionsText: String
    var encodedSource: String

    var size = ImageSize(width: 0, height: 0)
    var mode = SizingMode.fit
    var crop = SquareCrop.center
    /// `f:`; nil: negotiated from `Accept`.
    var format: OutputFormat?

    /// The parts of the path below `/proxy/` (still percent-encoded); nil when there are fewer
    /// than a signature and a source.
    init?(path: Substring) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, let first = parts.first, let last = parts.last, !first.isEmpty, !last.isEmpty else { return nil }
        signature = String(first)
        optionsText = parts.dropFirst().dropLast().joined(separator: "/")
        encodedSource = String(last)
    }

    /// Whether the signature is good: one of `keys` signed it, or, with no key set, it is `unsafe`.
    func isSigned(by keys: [ProxyKey]) -> Bool {
        guard !keys.isEmpty else { return signature == "unsafe" }
        guard let code = Base64URL.decode(signature).map(Array.init) else { return false }
        // Every pair is tried, even after a match, so that the time taken tells nothing.
        var signed = false
        for key in keys where key.signs(code, options: optionsText, encodedSource: encodedSource) {
            signed = true
        }
        return signed
    }

    /// Reads the options and the source URL; a malformed one is 400.
    mutating func parse() throws(GalleryError) -> URL {
        var seen: Set<Substring> = []
        let options = optionsText.removingPercentEncoding ?? optionsText
        for option in options.split(separator: "/", omittingEmptySubsequences: false) {
            let pair = option.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, seen.insert(pair[0]).inserted else { throw .badOption(String(option)) }
            let value = String(pair[1])
            switch pair[0] {
            case "w", "h":
                guard let side = Int(value), Self.sides.contains(side) else { throw .badOption(String(option)) }
                if pair[0] == "w" { size.width = side } else { size.height = side }
            case "m":
                guard let mode = ["fit": SizingMode.fit, "fill": .fill, "exact": .exact][value] else { throw .badOption(String(option)) }
                self.mode = mode
            case "c":
                guard let crop = SquareCrop(rawValue: value) else { throw .badOption(String(option)) }
                self.crop = crop
            case "f":
                guard let format = ["jpeg": OutputFormat.jpeg, "png": .png, "webp": .webp, "avif": .avif][value] else {
                    throw .badOption(String(option))
                }
                guard format.encoding.isAvailable else {
                    throw GalleryError(.unsupportedMediaType, kind: "formatNotAllowed", "this server cannot write \(value)")
                }
                self.format = format
            default:
                throw .badOption(String(option))
            }
        }
        guard let data = Base64URL.decode(encodedSource), let text = String(data: data, encoding: .utf8),
              let url = URL(string: text), url.scheme != nil else {
            throw GalleryError(.badRequest, kind: "badSource", "the source must be the base64url of an http(s) URL")
        }
        return url
    }
}

extension GalleryError {
    static func badOption(_ text: String) -> GalleryError {
        GalleryError(.badRequest, kind: "badOption",
                     "\(text.isEmpty ? "an empty option" : text) is not one of w:N h:N (0...\(ProxyRequest.sides.upperBound)), "
                         + "m:fit|fill|exact, c:center|attention|entropy, f:jpeg|png|webp|avif, each at most once")
    }
}
