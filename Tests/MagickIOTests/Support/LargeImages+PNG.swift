import CTestCodecs
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The big PNGs (see ``LargeImages``).
extension LargeImages {

    /// Writes an 8-bit, non-interlaced PNG of `width` x `height` to `url`, deflating row by row
    /// (filter type 0 on every row) into 1 MiB IDAT chunks.
    ///
    /// - `.gradient`: RGB, or RGBA when `alpha` (alpha ramps from 64 to 255 left to right).
    /// - `.empty`: grayscale, or gray + alpha when `alpha`; all samples 0.
    static func writePNG(
        to url: URL, width: Int, height: Int, alpha: Bool = false, content: PNGContent = .gradient
    ) throws {
        let channels: Int
        let colorType: UInt8
        switch (content, alpha) {
        case (.gradient, false): (channels, colorType) = (3, 2)
        case (.gradient, true): (channels, colorType) = (4, 6)
        case (.empty, false): (channels, colorType) = (1, 0)
        case (.empty, true): (channels, colorType) = (2, 4)
        }
        let rowBytes = 1 + width * channels  // filter byte + samples
        guard width >= 1, height >= 1, width <= Int(Int32.max), height <= Int(Int32.max),
              rowBytes <= Int(UInt32.max) else {
            throw GenerationError(description: "PNG dimensions out of range: \(width)x\(height)")
        }

        let file = try openForWriting(url)
        var closed = false
        defer { if !closed { fclose(file) } }
        var writer = PNGChunkWriter(file: file)

        writer.write(Array("\u{89}PNG\r\n\u{1A}\n".unicodeScalars.map { UInt8($0.value) }))
        var header = [UInt8]()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, colorType, 0, 0, 0]  // depth, colour type, deflate, adaptive filtering, no interlace
        writer.chunk("IHDR", header)

        // zlib keeps a pointer back to the stream: it must not move.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        // Zeros deflate fast at any level; the gradient is written at a faster level.
        let level: Int32 = content == .empty ? Z_BEST_COMPRESSION : 6
        guard deflateInit_(stream, level, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw GenerationError(description: "deflateInit failed")
        }
        defer { deflateEnd(stream) }

        let outputCapacity = 1 << 20
        let output = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: outputCapacity)
        defer { output.deallocate() }
        stream.pointee.next_out = output.baseAddress
        stream.pointee.avail_out = uInt(outputCapacity)

        /// Deflates `row` (nil: finish the stream), writing an IDAT whenever the output is full.
        func deflate(_ row: UnsafeMutableBufferPointer<UInt8>?) throws {
            stream.pointee.next_in = row?.baseAddress
            stream.pointee.avail_in = uInt(row?.count ?? 0)
            let flush = row == nil ? Z_FINISH : Z_NO_FLUSH
            while true {
                let status = CTestCodecs.deflate(stream, flush)
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw GenerationError(description: "deflate failed (\(status))")
                }
                if stream.pointee.avail_out == 0 || (status == Z_STREAM_END && stream.pointee.avail_out < outputCapacity) {
                    writer.chunk("IDAT", UnsafeBufferPointer(rebasing: output[0..<(outputCapacity - Int(stream.pointee.avail_out))]))
                    stream.pointee.next_out = output.baseAddress
                    stream.pointee.avail_out = uInt(outputCapacity)
                }
                if status == Z_STREAM_END { return }
                if row != nil && stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
            }
        }

        let row = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: rowBytes)
        defer { row.deallocate() }
        row.initialize(repeating: 0)  // filter byte 0; `.empty` rows stay all zero
        switch content {
        case .empty:
            for _ in 0..<height {
                try deflate(row)
            }
        case .gradient:
            // Red and blue ramp across, green down, alpha across: only green changes per row.
            let p = row.baseAddress! + 1
            var x = 0
            while x < width {
                let across = width > 1 ? x * 255 / (width - 1) : 0
                p[x * channels] = UInt8(across)
                p[x * channels + 2] = UInt8(255 - across)
                if channels == 4 {
                    p[x * channels + 3] = UInt8(64 + across * 191 / 255)
                }
                x += 1
            }
            for y in 0..<height {
                let green = UInt8(height > 1 ? y * 255 / (height - 1) : 0)
                var i = 1
                while i < width * channels {
                    p[i] = green
                    i += channels
                }
                try deflate(row)
            }
        }
        try deflate(nil)
        writer.chunk("IEND", [])
        if let failure = writer.failure {
            throw GenerationError(description: "cannot write \(url.path): \(failure)")
        }
        closed = true
        try close(file, url)
    }

    /// Writes PNG chunks (length, type, data, CRC-32 of type and data) to a `FILE`.
    private struct PNGChunkWriter {
        let file: UnsafeMutablePointer<FILE>
        /// The first write error, if any (later writes are skipped).
        private(set) var failure: String?

        init(file: UnsafeMutablePointer<FILE>) {
            self.file = file
        }

        mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard failure == nil, let base = bytes.baseAddress, !bytes.isEmpty else { return }
            if fwrite(base, 1, bytes.count, file) != bytes.count {
                failure = String(cString: strerror(errno))
            }
        }

        mutating func write(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { write($0) }
        }

        mutating func chunk(_ type: String, _ data: UnsafeBufferPointer<UInt8>) {
            let typeBytes = Array(type.utf8)
            var prefix = [UInt8]()
            prefix.appendBigEndian(UInt32(data.count))
            prefix += typeBytes
            var crc = typeBytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
            if let base = data.baseAddress, !data.isEmpty {
                crc = crc32(crc, base, uInt(data.count))
            }
            var suffix = [UInt8]()
            suffix.appendBigEndian(UInt32(truncatingIfNeeded: crc))
            write(prefix)
            write(data)
            write(suffix)
        }

        mutating func chunk(_ type: String, _ data: [UInt8]) {
            data.withUnsafeBufferPointer { chunk(type, $0) }
        }
    }

    /// Marsaglia's xorshift64: fast, deterministic, good enough for image noise.
    struct XorShift {
        private var state: UInt64

        init(seed: UInt64) {
            state = seed == 0 ? 0x2545_F491_4F6C_DD1D : seed
        }

        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }
}

private extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24))
        append(UInt8((value >> 16) & 0xFF))
        append(UInt8((value >> 8) & 0xFF))
        append(UInt8(value & 0xFF))
    }
}
