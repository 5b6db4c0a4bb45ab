import Foundation

extension SourceBytes {
    /// Runs `body` with what an own decoder reads from: the bytes in memory (valid during the
    /// call), or a file descriptor and its size (read with `pread`, a chunk at a time).
    func withDecoderInput<T, E: Error>(_ body: (UnsafePointer<UInt8>?, Int32, Int) throws(E) -> T) throws(E) -> T {
        switch self {
        case .file(let file):
            return try withExtendedLifetime(file) { () throws(E) -> T in try body(nil, file.descriptor, file.size) }
        case .memory(let data):
            let result: Result<T, E> = data.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, raw.count > 0 else {
                    return Result { () throws(E) -> T in try body(nil, -1, 0) }
                }
                return Result { () throws(E) -> T in try body(base.assumingMemoryBound(to: UInt8.self), -1, raw.count) }
            }
            return try result.get()
        }
    }
}
