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
    /// A lossy WebP of the photo-like rows (``PhotoRows``) at `quality`, through libwebp's encoder,
    /// without ImageMagick: ImageMagick 7's pixel cache (floats in Debian 13's HDRI build) would
    /// not hold a 24 MP picture within MagickIO's limits.
    static func writeWebP(to url: URL, width: Int, height: Int, quality: Float = 80) throws {
        guard (1...16_383).contains(width), (1...16_383).contains(height) else {
            throw GenerationError(description: "WebP dimensions must be 1...16383, not \(width)x\(height)")
        }
        var rows = PhotoRows(width: width, height: height)
        let rgb = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: width * height * 3)
        defer { rgb.deallocate() }
        for y in 0..<height {
            rows.fill(UnsafeMutableBufferPointer(rebasing: rgb[(y * width * 3)..<((y + 1) * width * 3)]), y: y)
        }
        var output: UnsafeMutablePointer<UInt8>?
        let size = WebPEncodeRGB(rgb.baseAddress, Int32(width), Int32(height), Int32(width * 3), quality, &output)
        guard size > 0, let output else { throw GenerationError(description: "libwebp could not encode \(width)x\(height)") }
        defer { WebPFree(output) }
        try Data(bytes: output, count: size).write(to: url)
    }

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

    // MARK: - Files

    static func openForWriting(_ url: URL) throws -> UnsafeMutablePointer<FILE> {
        guard let file = fopen(url.path, "wb") else {
            throw GenerationError(description: "cannot create \(url.path): \(String(cString: strerror(errno)))")
        }
        return file
    }

    /// Closes `file`, throwing if any buffered write failed.
    static func close(_ file: UnsafeMutablePointer<FILE>, _ url: URL) throws {
        let hadError = ferror(file) != 0
        let closeFailed = fclose(file) != 0
        if hadError || closeFailed {
            throw GenerationError(description: "cannot write \(url.path): \(String(cString: strerror(errno)))")
        }
    }
}
