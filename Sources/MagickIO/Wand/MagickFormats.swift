internal import CMagickCompat
internal import CMagickWand
import Foundation

/// ImageMagick's format tables: its coders (`GetMagickInfo`, `MagickQueryFormats`) and its magic
/// numbers (`GetMagicInfo`, through CMagickCompat).
enum MagickFormats {
    /// Whether ImageMagick has an encoder named `name`.
    static func hasEncoder(_ name: String) -> Bool {
        MagickRuntime.start()
        let exception = AcquireExceptionInfo()
        defer { DestroyExceptionInfo(exception) }
        guard let info = GetMagickInfo(name, exception) else { return false }
        return info.pointee.encoder != nil
    }

    /// ImageMagick's name for `bytes` from its magic table only (no coder runs), or nil.
    static func magicName(of bytes: Data) -> String? {
        MagickRuntime.start()
        let name = bytes.withUnsafeBytes { raw -> UnsafePointer<CChar>? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            return cmc_magic_name(base, raw.count)
        }
        return name.map { String(cString: $0) }
    }
}
