import CTestCodecs
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Generators for big test images, written at test time (they are far too large to commit).
///
/// Every generator streams: it fills one row at a time and hands it to the encoder, so the test
/// process never holds the whole image. The one exception is a progressive JPEG, for which libjpeg
/// itself buffers every DCT coefficient of the image (2 bytes a sample after chroma subsampling,
/// about 300 MB for 100 MP) until the file is written; that memory is freed before the function
/// returns.
///
/// The content is deterministic (fixed-seed PRNG): the same arguments give the same bytes.
///
/// Only libjpeg and zlib are used (through `CTestCodecs`), both of which come with
/// `libmagickwand-dev`, so no ImageMagick CLI or Python is needed to make the inputs.
enum LargeImages {
    /// Where generated inputs are kept between test runs: the generators are deterministic, so a
    /// file made once serves every later run (and /tmp does not fill with copies).
    static let cacheFolder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("magickio-test-inputs-v1")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// The cached input `name`, made by `make` if missing. It is written under a temporary name
    /// and renamed, so an interrupted run never leaves half a file behind for the next one.
    static func cached(_ name: String, _ make: (URL) throws -> Void) throws -> URL {
        let url = cacheFolder.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: url.path) {
            let partial = cacheFolder.appendingPathComponent(".\(name).\(UUID().uuidString)")
            try make(partial)
            _ = rename(partial.path, url.path)
        }
        return url
    }

    /// What a generated PNG shows.
    enum PNGContent: Sendable {
        /// A smooth RGB gradient (RGBA when `alpha`, with an alpha ramp); compresses well.
        case gradient
        /// Every sample zero: black grayscale, or fully transparent gray + alpha when `alpha`.
        /// Compresses at deflate's best ratio (about 1000:1), so a 20000x20000 file is ~400 KB.
        case empty
    }

    struct GenerationError: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: - JPEG

    /// libjpeg's TRUE (a macro the importer does not bring in here).
    private static let jpegTrue: boolean = 1

    /// Writes a photo-like 8-bit YCbCr (4:2:0) JPEG of `width` x `height` to `url`.
    ///
    /// The picture is a smooth colour field (sums of sines along each axis) with luminance noise
    /// on top, tuned so that the file size is that of a real photo: about 2 bits a pixel at
    /// quality 85-90, i.e. about 25 MB for 10000x10000.
    ///
    /// libjpeg reports its own errors (which, for a generator writing to a local file, can only be
    /// a failed write) by ending the process with its message; failing to create the file throws.
    static func writeJPEG(
        to url: URL, width: Int, height: Int, quality: Int = 88, progressive: Bool = false
    ) throws {
        guard (1...65_500).contains(width), (1...65_500).contains(height) else {
            throw GenerationError(description: "JPEG dimensions must be 1...65500, not \(width)x\(height)")
        }
        guard (1...100).contains(quality) else {
            throw GenerationError(description: "JPEG quality must be 1...100, not \(quality)")
        }
        let file = try openForWriting(url)
        var closed = false
        defer { if !closed { fclose(file) } }

        // libjpeg keeps a pointer to the error manager: both structs live at fixed addresses.
        let cinfo = UnsafeMutablePointer<jpeg_compress_struct>.allocate(capacity: 1)
        cinfo.initialize(to: jpeg_compress_struct())
        let errorManager = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        errorManager.initialize(to: jpeg_error_mgr())
        defer {
            cinfo.deallocate()
            errorManager.deallocate()
        }
        cinfo.pointee.err = jpeg_std_error(errorManager)
        // The default error_exit calls exit(1), which would end the test run without a word about
        // why; crash with libjpeg's message instead (there is no way to unwind through C here).
        errorManager.pointee.error_exit = { common in
            var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
            message.withUnsafeMutableBufferPointer { buffer in
                common?.pointee.err.pointee.format_message(common, buffer.baseAddress)
                fatalError("libjpeg: \(String(cString: buffer.baseAddress!))")
            }
        }
        // jpeg_create_compress is a macro.
        jpeg_CreateCompress(cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_compress_struct>.size)
        // Frees everything libjpeg allocated, including a progressive image's coefficient buffer.
        defer { jpeg_destroy_compress(cinfo) }

        jpeg_stdio_dest(cinfo, file)
        cinfo.pointee.image_width = JDIMENSION(width)
        cinfo.pointee.image_height = JDIMENSION(height)
        cinfo.pointee.input_components = 3
        cinfo.pointee.in_color_space = JCS_RGB
        jpeg_set_defaults(cinfo)  // YCbCr, 2x2 chroma subsampling, JFIF header
        jpeg_set_quality(cinfo, Int32(quality), jpegTrue)  // quantizers kept to baseline's 8 bits
        if progressive {
            jpeg_simple_progression(cinfo)
        }
        jpeg_start_compress(cinfo, jpegTrue)  // write all tables

        var rows = PhotoRows(width: width, height: height)
        let row = UnsafeMutableBufferPointer<JSAMPLE>.allocate(capacity: width * 3)
        defer { row.deallocate() }
        var rowPointer: [JSAMPROW?] = [row.baseAddress]
        for y in 0..<height {
            rows.fill(row, y: y)
            let written = jpeg_write_scanlines(cinfo, &rowPointer, 1)
            precondition(written == 1, "libjpeg did not take row \(y)")
        }
        jpeg_finish_compress(cinfo)
        closed = true
        try close(file, url)
    }

    /// The rows of the photo-like picture: a smooth, separable colour field plus noise.
    ///
    /// Speed matters even in debug builds (100 MP must take seconds, not minutes): all tables are
    /// precomputed, the hot loop uses raw pointers only (no generic or bounds-checked calls, which
    /// `-Onone` does not inline), and a single noise table is reused at a random offset per row.
    private struct PhotoRows {
        /// How far a sample may stray from the smooth field: 16 gives about 2 bits a pixel at
        /// quality 88 (baseline, standard Huffman tables).
        static let noiseAmplitude = 16
        /// Extra noise entries, so that each row can start at a different offset.
        static let noiseSlack = 8192
        /// Index of value 0 in `clamp`, which covers -512...767: before clamping, a sample stays
        /// within 128 ± (103 + 93 + 16) (waves plus noise), i.e. -84...340.
        static let clampBias = 512

        let width: Int
        let height: Int
        /// Per channel (r, g, b interleaved), per column: the column part of the field,
        /// plus 128 and `clampBias`.
        private var columnField: [Int]
        /// Per channel, per row: the row part of the field.
        private var rowField: [Int]
        private var noise: [Int]
        /// Maps a biased value to 0...255.
        private var clamp: [UInt8]
        private var random: XorShift

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            var random = XorShift(seed: 0x9E37_79B9_7F4A_7C15)
            func wave(_ i: Int, _ count: Int, _ periods: [(Double, Double, Double)]) -> Int {
                let t = Double(i) / Double(max(count, 1))
                var v = 0.0
                for (amplitude, frequency, phase) in periods {
                    v += amplitude * sin(2 * Double.pi * (frequency * t + phase))
                }
                return Int(v.rounded())
            }
            // A few slow waves plus one faster one per channel, different for each channel, so
            // both luminance and chroma vary across the picture.
            let columnWaves: [[(Double, Double, Double)]] = [
                [(70, 1.3, 0.10), (25, 7.7, 0.40), (8, 41, 0.2)],
                [(60, 0.9, 0.55), (30, 5.3, 0.15), (8, 37, 0.7)],
                [(65, 1.7, 0.30), (20, 9.1, 0.85), (8, 43, 0.5)],
            ]
            let rowWaves: [[(Double, Double, Double)]] = [
                [(60, 1.1, 0.25), (25, 6.1, 0.65), (8, 39, 0.1)],
                [(70, 1.5, 0.05), (20, 8.3, 0.35), (8, 47, 0.9)],
                [(55, 0.7, 0.75), (30, 4.9, 0.45), (8, 31, 0.3)],
            ]
            var columnField = [Int](repeating: 0, count: width * 3)
            for x in 0..<width {
                for c in 0..<3 {
                    columnField[x * 3 + c] = wave(x, width, columnWaves[c]) + 128 + Self.clampBias
                }
            }
            var rowField = [Int](repeating: 0, count: height * 3)
            for y in 0..<height {
                for c in 0..<3 {
                    rowField[y * 3 + c] = wave(y, height, rowWaves[c])
                }
            }
            // Triangular noise (sum of two uniforms), the same on all three channels: mostly
            // luminance noise, like a photo's grain.
            let span = UInt64(Self.noiseAmplitude + 1)
            var noise = [Int](repeating: 0, count: width + Self.noiseSlack)
            for i in noise.indices {
                noise[i] = Int(random.next() % span) + Int(random.next() % span) - Self.noiseAmplitude
            }
            var clamp = [UInt8](repeating: 0, count: 2 * Self.clampBias + 256)
            for i in clamp.indices {
                clamp[i] = UInt8(min(max(i - Self.clampBias, 0), 255))
            }
            self.columnField = columnField
            self.rowField = rowField
            self.noise = noise
            self.clamp = clamp
            self.random = random
        }

        /// Fills `row` (width * 3 bytes, RGB) with row `y`.
        mutating func fill(_ row: UnsafeMutableBufferPointer<UInt8>, y: Int) {
            precondition(row.count >= width * 3 && y < height)
            let offset = Int(random.next() % UInt64(Self.noiseSlack))
            let r0 = rowField[y * 3], g0 = rowField[y * 3 + 1], b0 = rowField[y * 3 + 2]
            let width = self.width
            columnField.withUnsafeBufferPointer { columns in
                noise.withUnsafeBufferPointer { noise in
                    clamp.withUnsafeBufferPointer { clamp in
                        let out = row.baseAddress!
                        let field = columns.baseAddress!
                        let grain = noise.baseAddress! + offset
                        let lut = clamp.baseAddress!
                        var x = 0
                        var i = 0
                        while x < width {
                            let n = grain[x]
                            out[i] = lut[field[i] + r0 + n]
                            out[i + 1] = lut[field[i + 1] + g0 + n]
                            out[i + 2] = lut[field[i + 2] + b0 + n]
                            x += 1
                            i += 3
                        }
                    }
                }
            }
        }
    }

    // MARK: - PNG

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

    // MARK: - Files

    private static func openForWriting(_ url: URL) throws -> UnsafeMutablePointer<FILE> {
        guard let file = fopen(url.path, "wb") else {
            throw GenerationError(description: "cannot create \(url.path): \(String(cString: strerror(errno)))")
        }
        return file
    }

    /// Closes `file`, throwing if any buffered write failed.
    private static func close(_ file: UnsafeMutablePointer<FILE>, _ url: URL) throws {
        let hadError = ferror(file) != 0
        let closeFailed = fclose(file) != 0
        if hadError || closeFailed {
            throw GenerationError(description: "cannot write \(url.path): \(String(cString: strerror(errno)))")
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
