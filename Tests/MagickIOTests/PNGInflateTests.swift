import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// The PNG image data inflated by ISA-L and unfiltered by MagickIO (`png_inflate.c`), held to
/// libpng's rows and to ImageMagick's path on the fixtures of `scripts/png-inflate-fixtures.py`:
/// each filter type on RGB and RGBA at an odd width, many IDATs (an empty one, a one-byte one),
/// and each kind of damage, which both paths must stop at; and noise under Sub, Average, Paeth
/// and a mix of filters, where the SSE2 unfilters (Paeth two rows at a time) meet every branch.
@Suite("PNG image data through ISA-L")
struct PNGInflateTests {
    static let valid = (0...4).flatMap { ["pnginflate-filter\($0)-rgb.png", "pnginflate-filter\($0)-rgba.png"] }
        + ["pnginflate-idats.png"]
    static let noise = ["filter1", "filter3", "filter4", "mixed"].flatMap { ["pnginflate-noise-\($0)-rgb.png", "pnginflate-noise-\($0)-rgba.png"] }
    static let damaged = ["pnginflate-bad-crc.png", "pnginflate-bad-adler.png", "pnginflate-truncated.png",
                          "pnginflate-too-little.png", "pnginflate-too-much.png", "pnginflate-trailing.png",
                          "pnginflate-bad-filter.png", "pnginflate-no-iend.png"]

    /// The generator's picture: 37x23, the pixel at (x, y) a formula of x and y.
    static func expected(x: Int, y: Int) -> [UInt8] {
        [UInt8((7 * x + 13 * y) & 255), UInt8((3 * x + 29 * y) & 255), UInt8((x * y) & 255), UInt8((11 * x + 5 * y + 40) & 255)]
    }

    struct Decoded {
        var rows: [UInt8] = []
        var channels = 0
        var isal = false
    }

    /// Every row and the end of the file through `PNGRows`, from memory or from a descriptor.
    static func decode(_ name: String, fast: Bool, descriptor: Bool) throws -> Result<Decoded, RowSourceFailure> {
        let data = try Fixture.data(name)
        func run(_ input: UnsafePointer<UInt8>?, _ fd: Int32) -> Result<Decoded, RowSourceFailure> {
            Result { () throws(RowSourceFailure) -> Decoded in
                let rows = try PNGRows(input: input, descriptor: fd, size: data.count, fastInflate: fast)
                var decoded = Decoded(channels: rows.channels, isal: rows.inflatesWithISAL)
                try rows.readAllRawRows(into: &decoded.rows)
                return decoded
            }
        }
        if descriptor {
            let fd = open(Fixture.url(name).path, O_RDONLY)
            #expect(fd >= 0)
            defer { close(fd) }
            return run(nil, fd)
        }
        return data.withUnsafeBytes { run($0.bindMemory(to: UInt8.self).baseAddress, -1) }
    }

    @Test("ISA-L's rows are libpng's and the picture's, from memory and from a descriptor", arguments: valid + noise)
    func sameRows(name: String) throws {
        for descriptor in [false, true] {
            let fast = try Self.decode(name, fast: true, descriptor: descriptor).get()
            let libpng = try Self.decode(name, fast: false, descriptor: descriptor).get()
            #expect(fast.isal && !libpng.isal, "\(name)")
            #expect(fast.channels == (name.contains("rgba") || name.contains("idats") ? 4 : 3))
            #expect(fast.rows == libpng.rows, "\(name), descriptor \(descriptor)")
            // The noise is libpng's to judge; the other fixtures' picture is a formula.
            if name.contains("noise") {
                #expect(fast.rows.count == 37 * 41 * fast.channels)
                continue
            }
            var wrong = 0
            for y in 0..<23 {
                for x in 0..<37 {
                    let at = (y * 37 + x) * fast.channels
                    if Array(fast.rows[at..<at + fast.channels]) != Array(Self.expected(x: x, y: y).prefix(fast.channels)) { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(name): \(wrong) pixels differ from the picture")
        }
    }

    @Test("lent rows (where ISA-L inflated them) are the rows read, each as it was while the rows kept are lent after it; through the pipeline too",
          arguments: valid + noise + ["calibration 816x612"])
    func lentRows(name: String) throws {
        let data = name.hasPrefix("calibration")
            ? try Data(contentsOf: CalibrationImages.file(.png, width: 816, height: 612)) : try Fixture.data(name)
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: data.count)
        defer { copy.deallocate() }
        data.copyBytes(to: copy, count: data.count)
        try Self.checkLentRows(UnsafePointer(copy), size: data.count, name: name)
    }

    static func checkLentRows(_ input: UnsafePointer<UInt8>, size: Int, name: String) throws {
        do {
            let reader = try PNGRows(input: input, descriptor: -1, size: size)
            var read: [UInt8] = []
            try reader.readAllRawRows(into: &read)
            #expect(reader.startLending() == 0, "lending asked for after the rows were read")
            #expect(try PNGRows(input: input, descriptor: -1, size: size, fastInflate: false).startLending() == 0)

            let lender = try PNGRows(input: input, descriptor: -1, size: size)
            let kept = lender.startLending()
            #expect(kept == 32)
            var lent: [UInt8] = [], recent: [(row: UnsafeRawPointer, bytes: [UInt8])] = [], changed = 0
            for _ in 0..<lender.height {
                let row = try lender.lendRawRow()
                let bytes = Array(UnsafeRawBufferPointer(start: row, count: lender.rawRowBytes))
                lent += bytes
                recent.append((row, bytes))
                if recent.count > kept + 1 { recent.removeFirst() }
                changed += recent.filter { Array(UnsafeRawBufferPointer(start: $0.row, count: lender.rawRowBytes)) != $0.bytes }.count
            }
            try lender.finish()
            #expect(lent == read && changed == 0, "\(name): \(changed) lent rows changed while kept")

            // Through the pipeline (which takes the lent rows): the same rows, as floats.
            let piped = pipedRows(input, size: size)
            let pipedAsRead = piped.floats == floats(read)
            #expect(piped.failure == nil && pipedAsRead, "\(name): \(piped.floats.count) samples through the pipeline (\(String(describing: piped.failure))), \(read.count) read, or not the rows read")
        } catch {
            Issue.record("\(name): \(error)")
        }
    }

    /// The rows each damaged fixture gives before its damage stops it (23: all, then its end fails).
    static let rowsBeforeDamage = ["pnginflate-bad-crc.png": 0, "pnginflate-bad-adler.png": 16, "pnginflate-truncated.png": 0,
                                   "pnginflate-too-little.png": 22, "pnginflate-too-much.png": 23, "pnginflate-trailing.png": 23,
                                   "pnginflate-bad-filter.png": 5, "pnginflate-no-iend.png": 23]

    @Test("damage stops lent rows where it stops rows read, and the pipeline passes the rows before it and the failure on", arguments: damaged)
    func damageWhileLending(name: String) throws {
        let data = try Fixture.data(name)
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: data.count)
        defer { copy.deallocate() }
        data.copyBytes(to: copy, count: data.count)
        let input = UnsafePointer(copy)
        let opened = try PNGRows(input: input, descriptor: -1, size: data.count)
        #expect(opened.inflatesWithISAL)
        let rowBytes = opened.rawRowBytes, samples = opened.width * opened.channels
        var read: [UInt8] = []
        let readFailure = Self.failure { () throws(RowSourceFailure) in
            try PNGRows(input: input, descriptor: -1, size: data.count).readAllRawRows(into: &read)
        }
        var lent: [UInt8] = []
        let lendFailure = Self.failure { () throws(RowSourceFailure) in
            let lender = try PNGRows(input: input, descriptor: -1, size: data.count)
            #expect(lender.startLending() == 32)
            for _ in 0..<lender.height {
                lent += UnsafeRawBufferPointer(start: try lender.lendRawRow(), count: lender.rawRowBytes)
            }
            try lender.finish()
        }
        let (piped, pipeFailure) = Self.pipedRows(input, size: data.count)
        var reasons: [String] = []
        for (path, failure) in [("read", readFailure), ("lent", lendFailure), ("pipelined", pipeFailure)] {
            guard case .fallback(let reason) = failure else {
                Issue.record("\(name): the \(path) rows ended with \(String(describing: failure))")
                continue
            }
            reasons.append(reason)
        }
        #expect(Set(reasons).count == 1 && reasons.allSatisfy { !$0.hasSuffix(": ") }, "\(name): \(reasons)")
        let rows = try #require(Self.rowsBeforeDamage[name])
        #expect(read.count == rows * rowBytes, "\(name): \(read.count / rowBytes) rows read before the damage")
        let lentAsRead = lent == read
        #expect(lentAsRead, "\(name): \(lent.count / rowBytes) rows lent before the damage, \(rows) read, or not the rows read")
        let pipedAsRead = piped == Self.floats(read)
        #expect(pipedAsRead, "\(name): \(piped.count / max(samples, 1)) rows through the pipeline, \(rows) read, or not the rows read")
    }

    /// The rows through the pipeline (which must take them lent), as floats, to the end or the
    /// failure; and the failure.
    static func pipedRows(_ input: UnsafePointer<UInt8>, size: Int) -> (floats: [Float], failure: RowSourceFailure?) {
        var floats: [Float] = []
        let failure = failure { () throws(RowSourceFailure) in
            let pipelined = PipelinedRows(try PNGRows(input: input, descriptor: -1, size: size))
            #expect(pipelined.passesLentRows)
            let samples = pipelined.width * pipelined.channels
            let row = UnsafeMutablePointer<Float>.allocate(capacity: samples)
            defer { row.deallocate() }
            for _ in 0..<pipelined.height {
                try pipelined.readRow(into: row)
                floats += UnsafeBufferPointer(start: row, count: samples)
            }
            try pipelined.finish()
        }
        return (floats, failure)
    }

    /// 8-bit rows as the pipeline gives them: floats.
    static func floats(_ bytes: [UInt8]) -> [Float] {
        var floats = [Float](repeating: 0, count: bytes.count)
        if !bytes.isEmpty {
            bytes.withUnsafeBufferPointer { bytes in
                floats.withUnsafeMutableBufferPointer { SampleConversion.convert(bytes.baseAddress!, count: bytes.count, into: $0.baseAddress!) }
            }
        }
        return floats
    }

    /// How `body` failed (nil where it did not).
    static func failure(_ body: () throws(RowSourceFailure) -> Void) -> RowSourceFailure? {
        do throws(RowSourceFailure) {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("damage stops both paths; the thumbnail is then ImageMagick's, error or pixels", arguments: damaged)
    func damage(name: String) throws {
        for descriptor in [false, true] {
            for fast in [true, false] {
                guard case .failure(.fallback) = try Self.decode(name, fast: fast, descriptor: descriptor) else {
                    Issue.record("\(name): fast \(fast), descriptor \(descriptor) read to the end")
                    continue
                }
            }
        }
        let source = try Fixture.source(name)
        let own = Result { () throws(MagickIOError) -> Image in try source.thumbnail(.maxPixelSize(37), at: 0, allowUpscale: false, options: ThumbnailOptions(), interrupt: nil) }
        let magick = Result { () throws(MagickIOError) -> Image in try source.thumbnail(.maxPixelSize(37), at: 0, allowUpscale: false, options: OwnDecoderTests.imageMagickOnly, interrupt: nil) }
        switch (own, magick) {
        case (.success(let own), .success(let magick)):
            #expect(own.decoder == .imageMagick)
            #expect(try own.pixels(.rgba8).bytes == magick.pixels(.rgba8).bytes, "\(name)")
            #expect(own.warnings == magick.warnings)
        case (.failure(let own), .failure(let magick)):
            #expect(own.kind == magick.kind && own.kind == .corruptImage, "\(name): \(own.kind) vs \(magick.kind)")
        default:
            Issue.record("\(name): own path \(own), ImageMagick's \(magick)")
        }
    }

    @Test("a full-size thumbnail through ISA-L is ImageMagick's, pixel for pixel", arguments: valid)
    func matchesImageMagick(name: String) throws {
        let source = try Fixture.source(name)
        let own = try source.thumbnail(maxPixelSize: 37)
        let magick = try source.thumbnail(maxPixelSize: 37, options: OwnDecoderTests.imageMagickOnly)
        #expect(own.decoder == .libpng && magick.decoder == .imageMagick)
        #expect(own.width == 37 && own.height == 23 && magick.width == 37 && magick.height == 23)
        let a = try own.pixels(.rgba8), b = try magick.pixels(.rgba8)
        var largest = 0
        for i in a.bytes.indices { largest = max(largest, abs(Int(a.bytes[i]) - Int(b.bytes[i]))) }
        #expect(largest <= 1, "\(name): a sample differs by \(largest)")
        let alpha = name.contains("rgba") || name.contains("idats")
        #expect(try own.pixels(.rgba8).rgba(x: 20, y: 10).r == Self.expected(x: 20, y: 10)[0])
        #expect(try own.pixels(.rgba8).rgba(x: 20, y: 10).a == (alpha ? Self.expected(x: 20, y: 10)[3] : 255))
    }
}
