@testable import MagickIO

extension RawRowSource {
    /// Every row from the first, as the decoder gives them, appended to `rows` as each is read (so
    /// that the rows before a failure stay there to compare), then the file's end read (``finish()``).
    func readAllRawRows(into rows: inout [UInt8]) throws(RowSourceFailure) {
        let row = UnsafeMutableRawPointer.allocate(byteCount: max(rawRowBytes, 1), alignment: 16)
        defer { row.deallocate() }
        for _ in 0..<height {
            try readRawRow(into: row)
            rows += UnsafeRawBufferPointer(start: row, count: rawRowBytes)
        }
        try finish()
    }
}
