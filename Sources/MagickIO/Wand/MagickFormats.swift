internal import CMagickWand
import Foundation

/// ImageMagick's format tables: its coders (`GetMagickInfo`, `MagickQueryFormats`) and its magic
/// numbers (`GetMagicInfo`).
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
        let exception = AcquireExceptionInfo()
        defer { DestroyExceptionInfo(exception) }
        let info = bytes.withUnsafeBytes { raw -> UnsafePointer<MagicInfo>? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            return GetMagicInfo(base, raw.count, exception)
        }
        guard let info, let name = GetMagicName(info) else { return nil }
        return String(cString: name)
    }
}
