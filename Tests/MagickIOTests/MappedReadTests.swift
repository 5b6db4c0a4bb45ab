import Foundation
import Testing
@testable import MagickIO

/// What a decode worker's own decoders read where the file lies (``FileMapping``): the rows and the
/// end they give are the ones reading the file gives, whole or cut short, and a file cut short
/// after its size was taken is read, never mapped past its end.
@Suite("Files read in place")
struct MappedReadTests {
    @Test("a JPEG file read in place (mapped, as workers read it) gives the rows and messages read() gives, cut short or not")
    func mappedJPEG() throws {
        #expect(!JPEGRows.mapsFile(size: 1 << 20), "mapped in process")
        let original = try Data(contentsOf: Fixture.url("photo.jpg"))
        try Self.mappedReadsMatch(original, fileExtension: "jpg", wholeBytes: 320 * 240 * 3) { descriptor, size, mapsFile throws(RowSourceFailure) in
            try JPEGRows(input: nil, descriptor: descriptor, size: size, scale: 8, memoryLimit: 64 << 20,
                         strictness: .refuseDamage, interrupt: nil, mapsFile: mapsFile)
        }
        // And behind the wall: a worker's thumbnail of the whole file is the one made in process.
        let (process, inProcess) = IsolationTests.both("photo.jpg") { try $0.thumbnail(maxPixelSize: 64) }
        #expect(process == inProcess && process.image?[2] == Image.Decoder.libjpeg.rawValue, "\(process) / \(inProcess)")
    }

    @Test("a PNG file read in place (mapped as workers read it, its pages let go behind) gives the rows read() gives, cut short or not")
    func mappedPNG() throws {
        #expect(!PNGRows.mapsFile(size: 1 << 20), "mapped in process")
        // 816x612 RGB, 233 KB: many pages to let go, a page at a time.
        let original = try Data(contentsOf: CalibrationImages.file(.png, width: 816, height: 612))
        try Self.mappedReadsMatch(original, fileExtension: "png", wholeBytes: 816 * 612 * 3) { descriptor, size, mapsFile throws(RowSourceFailure) in
            let decoder = try PNGRows(input: nil, descriptor: descriptor, size: size, mapsFile: mapsFile, releaseWindow: 4096)
            #expect(decoder.inflatesWithISAL)
            return decoder
        } check: { cut, mapped, read in
            // Let go as it was read: all but the last piece read (at most 64 KiB) and a page or two.
            let (released, unreleased) = (mapped.decoder?.releasedBytes ?? 0, read.decoder?.releasedBytes ?? 0)
            #expect(released >= cut - (80 << 10) && unreleased == 0, "cut at \(cut): \(released) let go")
        }
        // And behind the wall: a worker's thumbnail of a whole file is the one made in process.
        let (process, inProcess) = IsolationTests.both("photo.png") { try $0.thumbnail(maxPixelSize: 64) }
        #expect(process == inProcess && process.image?[2] == Image.Decoder.libpng.rawValue, "\(process) / \(inProcess)")
    }

    /// Every raw row a decoder gave, how it ended ("done", or the failure's words) and the decoder,
    /// if it opened.
    struct RowsRead<Rows: RawRowSource> {
        var rows: [UInt8] = []
        var end = "done"
        var decoder: Rows?
    }

    /// `original` written whole, cut at half and one byte short, each decoded by `decode` (a file's
    /// descriptor, its size and whether to map it) from the file mapped and from it read: the same
    /// rows and the same end, and the whole file's `wholeBytes` of rows; `check` sees each cut's
    /// pair. Then a file cut short after its size was taken is read, not mapped past its end.
    static func mappedReadsMatch<Rows: RawRowSource & ReadsInPlace>(
        _ original: Data, fileExtension: String, wholeBytes: Int, decode: (Int32, Int, Bool) throws(RowSourceFailure) -> Rows,
        check: (Int, RowsRead<Rows>, RowsRead<Rows>) -> Void = { _, _, _ in }
    ) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapped-\(fileExtension)-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func rows(_ url: URL, size: Int, mapsFile: Bool) -> RowsRead<Rows> {
            let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            var read = RowsRead<Rows>()
            do throws(RowSourceFailure) {
                let decoder = try decode(descriptor, size, mapsFile)
                read.decoder = decoder
                try decoder.readAllRawRows(into: &read.rows)
            } catch {
                read.end = "\(error)"
            }
            return read
        }
        for cut in [original.count, original.count / 2, original.count - 1] {
            let url = folder.appendingPathComponent("picture-\(cut).\(fileExtension)")
            try original.prefix(cut).write(to: url)
            let (mapped, read) = (rows(url, size: cut, mapsFile: true), rows(url, size: cut, mapsFile: false))
            #expect(mapped.decoder?.isMapped == true && read.decoder?.isMapped == false, "cut at \(cut)")
            #expect(!mapped.rows.isEmpty && (cut < original.count || (mapped.rows.count == wholeBytes && mapped.end == "done")),
                    "cut at \(cut): \(mapped.end)")
            #expect(mapped.rows == read.rows && mapped.end == read.end, "cut at \(cut): \(mapped.end) / \(read.end)")
            check(cut, mapped, read)
        }
        let url = folder.appendingPathComponent("picture-shrunk.\(fileExtension)")
        try original.prefix(original.count / 2).write(to: url)
        let shrunk = rows(url, size: original.count, mapsFile: true)
        #expect(shrunk.decoder?.isMapped != true && !shrunk.rows.isEmpty && shrunk.end != "done", "\(shrunk.end)")
    }
}

/// A decoder that may read its file where it lies (``FileMapping``): what the mapped-read tests ask.
protocol ReadsInPlace {
    var isMapped: Bool { get }
}

extension JPEGRows: ReadsInPlace {}
extension PNGRows: ReadsInPlace {}
