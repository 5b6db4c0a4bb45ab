import Foundation
import Testing
@_spi(Benchmarks) @testable import MagickIO

/// The container walkers, on hand-made bytes: bounded by bytes, never trapping, and accepting what
/// the real decoders accept.
@Suite("Header walkers")
struct HeaderWalkTests {
    /// SOI, then `before`, then a baseline SOF of 640x480 with three 4:2:0 components, then SOS.
    static func jpeg(_ before: [UInt8], code: UInt8 = 0xC0) -> [UInt8] {
        [0xFF, 0xD8] + before + [0xFF, code, 0x00, 0x11, 8, 0x01, 0xE0, 0x02, 0x80, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
            + [0xFF, 0xDA, 0x00, 0x0C, 3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0]
    }

    static func walk(_ bytes: [UInt8]) -> Result<JPEGSegments.Frame, JPEGSegments.Failure> {
        var reader = ByteReader(.memory(Data(bytes)))
        return JPEGSegments.frame(in: &reader)
    }

    @Test("a JPEG frame header is found with its size, progression and sampling")
    func jpegFrame() throws {
        let frame = try Self.walk(Self.jpeg([])).get()
        #expect(frame.width == 640 && frame.height == 480 && frame.precision == 8)
        #expect(!frame.isProgressive)
        #expect(frame.sampling.map(\.horizontal) == [2, 1, 1] && frame.sampling.map(\.vertical) == [2, 1, 1])
        #expect(frame.componentIDs == [1, 2, 3])
        #expect(try Self.walk(Self.jpeg([], code: 0xC2)).get().isProgressive)
    }

    @Test("any number of segments, fill bytes and extraneous bytes may come before the frame header, as libjpeg reads them")
    func jpegPadding() throws {
        var before: [UInt8] = []
        for _ in 0..<20_000 { before += [0xFF, 0xFE, 0x00, 0x04, 0x41, 0x42] }  // comments
        before += [UInt8](repeating: 0xFF, count: 100_000) + [0xE1, 0x00, 0x02]  // fill bytes, then an empty APP1
        before += [0x00, 0x13, 0x37]  // extraneous bytes (libjpeg warns and skips them)
        before += [0xFF, 0x00]  // a stuffed zero outside a scan: skipped too
        #expect(try Self.walk(Self.jpeg(before)).get().width == 640)
    }

    @Test("each segment before the frame header is handed over, with its payload")
    func jpegVisit() throws {
        var reader = ByteReader(.memory(Data(Self.jpeg([0xFF, 0xE1, 0x00, 0x08] + Array("Exif\0\0".utf8)))))
        var seen: [(UInt8, Range<Int>)] = []
        _ = JPEGSegments.frame(in: &reader) { _, segment in seen.append((segment.code, segment.payload)) }
        #expect(seen.count == 1 && seen[0].0 == 0xE1 && seen[0].1 == 6..<12)
    }

    @Test("a JPEG's index hands over the segments the walk visits; past its cap (an entry for 256 bytes of file) it walks again, with the same answers")
    func jpegIndex() throws {
        let exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x08] + Array("Exif\0\0".utf8)
        for comments in [3, 5_000] {  // under the index's cap, and over it (walked again)
            var before: [UInt8] = []
            for _ in 0..<comments { before += [0xFF, 0xFE, 0x00, 0x03, 0x41] }
            let bytes = SourceBytes.memory(Data(Self.jpeg(before + exif)))
            var reader = ByteReader(bytes)
            var walked: [(UInt8, Range<Int>)] = []
            let frame = JPEGSegments.frame(in: &reader) { _, segment in walked.append((segment.code, segment.payload)) }
            let index = JPEGIndex(bytes)
            var visited: [(UInt8, Range<Int>)] = []
            index.visit(bytes) { _, segment in visited.append((segment.code, segment.payload)) }
            #expect(visited.count == comments + 1 && visited.count == walked.count)
            #expect(visited.elementsEqual(walked) { $0.0 == $1.0 && $0.1 == $1.1 })
            #expect(try index.frame.get() == frame.get())
        }
        // Through an ImageSource: the header and the properties from the one walk at open.
        let photo = try Fixture.data("orient-6.jpg")
        let source = try ImageSource(data: photo)
        #expect(source.index?.jpeg != nil)
        #expect(try source.properties().orientation == .right && source.header?.orientation == .right)
        var padded = Data(photo.prefix(2))
        for _ in 0..<5_000 { padded += [0xFF, 0xFE, 0x00, 0x03, 0x41] }
        padded += photo.dropFirst(2)
        let long = try ImageSource(data: padded)
        #expect(try long.properties().orientation == .right && long.header?.orientation == .right)
        #expect(try long.properties().pixelWidth == source.properties().pixelWidth)
    }

    @Test("a JPEG's index goes on to the first scan header: what it hands over, the census of what libjpeg reads and the one-scan check are a walk's")
    func jpegIndexToScan() throws {
        let fixtures = try ["photo.jpg", "progressive.jpg", "cmyk.jpg", "own-adobe.jpg", "jpeg-extraneous-bytes.jpg",
                            "jpeg-padding-before-sof.jpg", "jpeg-8800-cut.jpg", "truncated.jpg", "embedded-thumbnail.jpg",
                            "adobe-rgb.jpg", "empty.jpg"].map { try Fixture.data($0) }
        // Made here: APPn and COM segments between the frame header and the first scan (an ICC chain
        // there, which libjpeg still reads), a file cut before its scan header, and one over the cap.
        let plain: [UInt8] = Self.jpeg([])  // SOI, then the 19-byte frame header, then the scan header
        var between: [UInt8] = Array(plain[0..<21])
        between += [0xFF, 0xE2, 0x00, 0x12] + Array("ICC_PROFILE\0".utf8) + [1, 1, 7, 7]
        between += [0xFF, 0xFE, 0x00, 0x05, 0x61, 0x62, 0x63]
        between += [0xFF, 0xE5, 0x00, 0x04, 9, 9]
        between += plain[21...]
        // 300 comments between the frame and the scan header: past the index's cap (256 entries
        // for so small a file), so that the census walks; 300 before the frame header likewise.
        var crowded: [UInt8] = []
        for _ in 0..<300 { crowded += [0xFF, 0xFE, 0x00, 0x03, 0x41] }
        let crowdedAfter = Data(Array(plain[0..<21]) + crowded + Array(plain[21...]))
        let made: [Data] = [Data(between), Data(between[0..<40]), crowdedAfter, Data(Self.jpeg(crowded)), Data(plain)]
        var fromIndex = 0
        for data in fixtures + made {
            let bytes = SourceBytes.memory(data)
            let index = JPEGIndex(bytes)
            var reader = ByteReader(bytes)
            var walked: [(UInt8, Range<Int>)] = [], visited: [(UInt8, Range<Int>)] = []
            let walkEnd = JPEGSegments.walkAll(&reader, untilScan: true) { _, segment in walked.append((segment.code, segment.payload)) }
            let visitEnd = index.visitToScan(bytes) { _, segment in visited.append((segment.code, segment.payload)) }
            // The index answers for every file with a frame header and no more segments than it
            // holds (the padding fixture has thousands before its frame header).
            let held = try ![crowdedAfter, Data(Self.jpeg(crowded)), Fixture.data("jpeg-padding-before-sof.jpg")].contains(data)
            if case .success = index.frame, held {
                #expect(visitEnd != nil, "\(data.count) bytes")
            } else {
                #expect(visitEnd == nil && visited.isEmpty, "\(data.count) bytes")
            }
            if let visitEnd {
                fromIndex += 1
                #expect(visitEnd == walkEnd && visited.elementsEqual(walked) { $0.0 == $1.0 && $0.1 == $1.1 },
                        "\(data.count) bytes: \(visited.map(\.0)) against \(walked.map(\.0))")
            }
            let census = JPEGMetadata.census(bytes, untilScan: true, index: index), again = JPEGMetadata.census(bytes, untilScan: true)
            #expect(census.bytes == again.bytes && census.segments == again.segments && census.iccBytes == again.iccBytes
                    && census.droppable == again.droppable && census.icc == again.icc && census.isComplete == again.isComplete)
            if case .success(let frame) = index.frame {
                #expect(JPEGSegments.decodesOneScan(in: bytes, frame: frame, index: index) == JPEGSegments.decodesOneScan(in: bytes, frame: frame))
            }
        }
        #expect(fromIndex == fixtures.count + made.count - 4, "every file but the empty one, the padded one and the two crowded")
        let census = JPEGMetadata.census(.memory(Data(between)), untilScan: true, index: JPEGIndex(.memory(Data(between))))
        #expect(census.iccBytes == 2 && census.icc.count == 1 && census.segments == 2 && census.isComplete)
    }

    @Test("a PNG's index hands over the chunks the walk visits, and stops where it stops; past its cap it walks again")
    func pngIndex() throws {
        let photo = try Fixture.data("orient-6.png")
        // 33 = 8 (signature) + 25 (IHDR): empty private ancillary chunks right after IHDR.
        for extra in [2, 5_000] {  // under the index's cap, and over it (walked again)
            var padded = Data(photo.prefix(33))
            for _ in 0..<extra { padded += [0, 0, 0, 0] + Array("prVt".utf8) + [0, 0, 0, 0] }
            padded += photo.dropFirst(33)
            let bytes = SourceBytes.memory(padded)
            let index = PNGIndex(bytes)
            for stopAt in ["IDAT", "IEND", "none"] {
                var reader = ByteReader(bytes)
                var walked: [String] = [], visited: [String] = []
                let walkEnd = PNGChunks.walk(&reader) { _, chunk in walked.append(chunk.type); return chunk.type != stopAt }
                let visitEnd = index.visit(bytes) { _, chunk in visited.append(chunk.type); return chunk.type != stopAt }
                #expect(walked == visited && walkEnd == visitEnd, "\(extra) chunks, stop at \(stopAt)")
            }
            let source = try ImageSource(data: padded)
            #expect(source.index?.png != nil)
            #expect(try source.properties().orientation == .right && source.header?.orientation == .right)
            #expect(try source.properties().pixelWidth == ImageSource(data: photo).properties().pixelWidth)
        }
        // Its tEXt chunks come before the image data: found from the index as by a walk.
        #expect(PNGChunks.hasTextBeforeImageData(.memory(photo), index: PNGIndex(.memory(photo))))
        let alpha = SourceBytes.memory(try Fixture.data("alpha.png"))  // tEXt after IDAT only
        #expect(!PNGChunks.hasTextBeforeImageData(alpha) && !PNGChunks.hasTextBeforeImageData(alpha, index: PNGIndex(alpha)))
    }

    @Test("a PNG's index crosses to a decode worker as runs of chunks, and gives there the chunks the walk visits")
    func pngIndexRuns() throws {
        // Image data in many IDATs of one length (as libpng and libvips write 8 KiB ones), IDATs of
        // many lengths, and a file of many empty chunks of one kind.
        let photo = try Fixture.data("orient-6.png"), idats = try Fixture.data("pnginflate-idats.png")
        let recut = Self.recut(photo, idat: 64)
        var padded = Data(photo.prefix(33))
        for _ in 0..<200 { padded += [0, 0, 0, 0] + Array("prVt".utf8) + [0, 0, 0, 0] }  // within the index's cap
        padded += photo.dropFirst(33)
        for data in [recut, idats, photo, padded] {
            let bytes = SourceBytes.memory(data)
            let index = PNGIndex(bytes)
            let (runs, end) = try #require(index.runs(most: WorkerRequest.maxPNGRuns))
            let chunks = runs.reduce(0) { $0 + $1.count }
            #expect(runs.count < 20 && (data == photo || data == idats || chunks > 2 * runs.count), "\(runs.count) runs of \(chunks) chunks")
            // Across the wire and back, as a worker reads its request.
            var request = WorkerRequest(operation: .image(index: 0), decoding: DecodingOptions(), fromMemory: false, path: "p.png",
                                        timeLeft: nil)
            request.pngChunks = (runs, end, data.count)
            let read = try request.encoded().withUnsafeBytes { try WorkerRequest($0) }
            let crossed = try #require(read.pngChunks)
            #expect(crossed.runs == runs && crossed.end == end && crossed.fileBytes == data.count)
            let rebuilt = try #require(PNGIndex(runs: crossed.runs, end: crossed.end, most: ContainerIndex.maxEntries(fileBytes: data.count)))
            var reader = ByteReader(bytes)
            var walked: [[Int]] = [], visited: [[Int]] = []
            let walkEnd = PNGChunks.walk(&reader) { _, chunk in walked.append([chunk.offset, chunk.length]); return true }
            let visitEnd = rebuilt.visit(bytes) { _, chunk in visited.append([chunk.offset, chunk.length]); return true }
            #expect(walked == visited && walkEnd == visitEnd && walked.count > 3)
            // A source opened on it is the one opened by a walk.
            let given = try ImageSource(bytes: bytes, options: DecodingOptions(), index: .png(rebuilt))
            #expect(try given.properties() == ImageSource(data: data).properties())
        }
        // More runs than a request carries: none is sent (the worker walks); more chunks than
        // the file's cap: refused.
        var varied = Data(photo.prefix(33))
        for length in 0..<300 { varied += [0, 0, UInt8(length >> 8), UInt8(length & 255)] + Array("prVt".utf8) + [UInt8](repeating: 0, count: length + 4) }
        varied += photo.dropFirst(33)
        #expect(PNGIndex(.memory(varied)).runs(most: WorkerRequest.maxPNGRuns) == nil)
        #expect(PNGIndex(runs: [PNGIndex.Run(type: "IDAT", length: 0, count: 1_000)], end: .imageEnd, most: 999) == nil)
        // A request with more runs than it may carry is malformed.
        var request = WorkerRequest(operation: .image(index: 0), decoding: DecodingOptions(), fromMemory: false, path: "p.png", timeLeft: nil)
        request.pngChunks = (Array(repeating: PNGIndex.Run(type: "IDAT", length: 1, count: 1), count: WorkerRequest.maxPNGRuns + 1), .imageEnd, 100)
        #expect(throws: WireReader.Malformed.self) { try request.encoded().withUnsafeBytes { try WorkerRequest($0) } }
    }

    /// `png` with its image data cut again into IDATs of `size` bytes (the last shorter).
    static func recut(_ png: Data, idat size: Int) -> Data {
        let bytes = [UInt8](png)
        var out = Array(bytes[0..<8]), data: [UInt8] = [], offset = 8, placed = false
        func chunk(_ type: [UInt8], _ body: ArraySlice<UInt8>) -> [UInt8] {
            let count = body.count
            return [UInt8(count >> 24), UInt8(count >> 16 & 255), UInt8(count >> 8 & 255), UInt8(count & 255)] + type + body
                + withUnsafeBytes(of: crc32(type + body).bigEndian) { Array($0) }
        }
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = Array(bytes[(offset + 4)..<(offset + 8)]), body = bytes[(offset + 8)..<(offset + 8 + length)]
            offset += 12 + length
            if type == Array("IDAT".utf8) {
                data += body
                // The run ends at the next chunk that is not IDAT.
                guard offset + 8 <= bytes.count, Array(bytes[(offset + 4)..<(offset + 8)]) != type, !placed else { continue }
                for start in stride(from: 0, to: data.count, by: size) { out += chunk(type, data[start..<min(start + size, data.count)]) }
                placed = true
                continue
            }
            out += chunk(type, body)
        }
        return Data(out)
    }

    @Test("a WebP's index hands over the chunks the walk visits; past its cap it walks again")
    func riffIndex() throws {
        let photo = try Fixture.data("orient-6.webp")  // VP8X, VP8L, EXIF
        for extra in [2, 5_000] {  // under the index's cap, and over it (walked again)
            // Empty unknown chunks after VP8X (12 + 8 + 10 bytes), which decoders step over.
            var padded = Data(photo.prefix(30))
            for _ in 0..<extra { padded += Array("XTRA".utf8) + [0, 0, 0, 0] }
            padded += photo.dropFirst(30)
            let riffLength = UInt32(padded.count - 8)
            padded.replaceSubrange(4..<8, with: withUnsafeBytes(of: riffLength.littleEndian) { Array($0) })
            let bytes = SourceBytes.memory(padded)
            let index = RIFFIndex(bytes)
            for stopAt in ["VP8L", "EXIF", "none"] {
                var reader = ByteReader(bytes), again = ByteReader(bytes)
                var walked: [String] = [], visited: [String] = []
                RIFFChunks.walk(&reader) { _, chunk in walked.append(chunk.id); return chunk.id != stopAt }
                index.visit(&again) { _, chunk in visited.append(chunk.id); return chunk.id != stopAt }
                #expect(walked == visited, "\(extra) chunks, stop at \(stopAt)")
            }
            let source = try ImageSource(data: padded)
            #expect(source.index?.webp != nil)
            #expect(try source.properties().orientation == .right && source.header?.orientation == .right)
            #expect(try source.properties().pixelWidth == ImageSource(data: photo).properties().pixelWidth)
        }
        let animated = try Fixture.source("anim-dispose.webp")
        #expect(animated.index?.webp != nil && animated.count > 1)
        // The frames ImageMagick's coder may see, cut from the index's chunks as from a walk's.
        let bytes = SourceBytes.memory(try Fixture.data("anim-dispose.webp"))
        for last in 0..<(animated.count - 1) {
            guard case .memory(let walked)? = bytes.webpFrames(through: last),
                  case .memory(let indexed)? = bytes.webpFrames(through: last, index: animated.index?.webp) else {
                Issue.record("frame \(last) of \(animated.count): nothing cut")
                continue
            }
            #expect(walked == indexed && walked.count < bytes.count, "through frame \(last)")
            #expect(try ImageSource(data: indexed).count == last + 1)
        }
        #expect(bytes.webpFrames(through: animated.count - 1, index: animated.index?.webp) == nil, "nothing left out")
    }

    @Test("a JPEG walk fails, never traps, on what libjpeg refuses too")
    func jpegFailures() {
        #expect(Self.walk([0x89, 0x50]).failure == .notJPEG)
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02]).failure == .noFrameHeader)
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xD9]).failure == .noFrameHeader)
        // A table's length under 2 stops libjpeg; an APPn's it steps over and reads on.
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x01]).failure == .malformed)
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]).failure == .truncated)
        #expect((try? Self.walk(Self.jpeg([0xFF, 0xE0, 0x00, 0x00])).get())?.width == 0x280, "an empty APP0 is stepped over")
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]).failure == .truncated)
        #expect(Self.walk(Array(Self.jpeg([]).prefix(12))).failure == .truncated)
        #expect(Self.walk([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x08, 8, 0, 1, 0, 1, 0]).failure == .malformed, "no components")
    }

    /// A little-endian TIFF of `pages` one-entry-short directories (width, height, samples, extra).
    static func tiff(big: Bool = false, pages: [(samples: Int, extra: Int)], loop: Bool = false) -> [UInt8] {
        func le(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(value >> (8 * $0) & 0xFF) } }
        let offsetSize = big ? 8 : 4, countSize = big ? 8 : 2, entrySize = big ? 20 : 12
        var bytes: [UInt8] = Array("II".utf8) + (big ? le(43, 2) + le(8, 2) + le(0, 2) + le(16, 8) : le(42, 2) + le(8, 4))
        var directories: [Int] = []
        for page in pages {
            directories.append(bytes.count)
            let entries = [(256, 3, 1, 300), (257, 3, 1, 200), (277, 3, 1, page.samples), (338, 3, page.extra, 2)]
                .filter { $0.0 != 338 || page.extra > 0 }
            bytes += le(entries.count, countSize)
            for (tag, type, count, value) in entries {
                bytes += le(tag, 2) + le(type, 2) + le(count, offsetSize) + le(value, offsetSize)
            }
            bytes += le(0, offsetSize)  // next, patched below
        }
        for (index, directory) in directories.enumerated() {
            let entries = Int(bytes[directory])
            let at = directory + countSize + entries * entrySize
            let next = index + 1 < directories.count ? directories[index + 1] : loop ? directories[0] : 0
            bytes.replaceSubrange(at..<at + offsetSize, with: le(next, offsetSize))
        }
        return bytes
    }

    @Test("TIFF and BigTIFF directories give the size and each page's alpha; a looping chain ends the walk")
    func tiffPages() throws {
        for big in [false, true] {
            let index = try #require(TIFFIndex(.memory(Data(Self.tiff(big: big, pages: [(4, 1), (3, 0), (2, 1)])))), "big: \(big)")
            let header = try #require(TIFFHeader.parse(index), "big: \(big)")
            #expect(header.width == 300 && header.height == 200)
            #expect(Self.pageAlpha(index) == [true, false, true])
        }
        #expect(TIFFIndex(.memory(Data(Self.tiff(pages: [(3, 0), (4, 1)], loop: true)))).map(Self.pageAlpha) == [false, true])
        #expect(TIFFIndex(.memory(Data([0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F]))).flatMap(TIFFHeader.parse) == nil)
    }

    static func pageAlpha(_ index: TIFFIndex) -> [Bool] {
        index.directories.map { $0.hasAlpha(photometricWhenAbsent: 1) }
    }

    @Test("a TIFF's chain is walked once at open: its index holds each page, its profiles and where IFD0 ends")
    func tiffIndex() throws {
        let pages = try Fixture.source("pages.tif")
        let walked = try #require(pages.index?.tiff)
        #expect(walked.directories.count == pages.count)
        #expect(walked.directories.map { $0.values[TIFFTag.imageWidth] } == pages.frames.map(\.pixelWidth))
        #expect(walked.directories.map { $0.values[TIFFTag.imageLength] } == pages.frames.map(\.pixelHeight))
        let icc = try Fixture.source("tiff-icc.tif")
        let index = try #require(icc.index?.tiff)
        let census = ContainerMetadata.tiff(index)
        #expect(census.iccBytes > 0 && census.iccBytes == index.directories[0].iccBytes && census.segments == 1)
        #expect(MetadataCensus.take(icc.bytes, format: .tiff, cap: 16 << 20) == census, "a walk anew counts the same")
        let bytes = [UInt8](try Fixture.data("tiff-icc.tif"))
        #expect(index.directories[0].end == IncrementalImageSourceTests.tiffFirstDirectoryEnd(bytes))
    }

    @Test("a GIF's one walk hands over each extension: the loop count's is counted for the census and kept")
    func gifExtensions() throws {
        let data = try Fixture.data("animated.gif")
        var reader = ByteReader(.memory(data))
        var blocks = GIFBlocks()
        var found: [GIFBlocks.Extension] = []
        blocks.advance(&reader, maxFrames: .max) { found.append($0) }
        #expect(blocks.ended && !blocks.strayed)
        #expect(found.filter { $0.label == 0xFF }.map(\.application) == ["NETSCAPE2.0"])
        #expect(found.filter { $0.label == 0xF9 }.count == blocks.frames.count)
        #expect(found.allSatisfy { data[$0.range.lowerBound] == 0x21 && data[$0.range.upperBound - 1] == 0 })
        let census = MetadataCensus.take(.memory(data), format: .gif, cap: 16 << 20)
        #expect(census.segments == 1 && census.droppable.isEmpty && census.isComplete)
    }

    @Test("PNG chunks are walked to IEND, a walk can stop, and a short file ends it as truncated")
    func pngChunks() {
        func chunk(_ type: String, _ length: Int) -> [UInt8] {
            [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + Array(type.utf8)
                + [UInt8](repeating: 7, count: length) + [0, 0, 0, 0]
        }
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", 13) + chunk("tEXt", 5) + chunk("IDAT", 3) + chunk("IEND", 0)
        var reader = ByteReader(.memory(Data(png)))
        var types: [String] = []
        #expect(PNGChunks.walk(&reader) { _, chunk in types.append(chunk.type); return true } == .imageEnd)
        #expect(types == ["IHDR", "tEXt", "IDAT", "IEND"])
        #expect(PNGChunks.walk(&reader) { _, chunk in chunk.type != "tEXt" } == .stopped)
        var short = ByteReader(.memory(Data(png.prefix(40))))
        #expect(PNGChunks.walk(&short) { _, _ in true } == .truncated)
        var lying = ByteReader(.memory(Data(png.prefix(8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("tEXt".utf8))))
        #expect(PNGChunks.walk(&lying) { _, _ in true } == .truncated, "a length past the end is not followed")
    }

    @Test("a peek reads what a window read reads, at every offset near the windows' edges and past the end, from memory and from a file")
    func peek() throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("magickio-peek-\(UUID()).bin")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try OpenFile(path: url.path)
        for source in [SourceBytes.memory(Data(bytes)), .file(file)] {
            var reader = ByteReader(source), plain = ByteReader(source)
            // Peeks alone (the small window), then after a window read (served from it), then past the end.
            let offsets = [0, 8, 500, 505, 511, 512, 1_000, 65_530, 65_536, 131_000, 199_992, 199_995, 200_000, -1]
            for offset in offsets {
                #expect(reader.peek(at: offset, 8) == plain.bytes(at: offset, 8), "at \(offset)")
            }
            #expect(reader.bytes(at: 60_000, 4) != nil)
            for offset in offsets {
                #expect(reader.peek(at: offset, 8) == plain.bytes(at: offset, 8), "at \(offset), after a window")
            }
            #expect(reader.peek(at: 100, 1_000) == Array(bytes[100..<1_100]), "longer than its window: read as bytes(at:)")
        }
    }

    @Test("a PNG whose image data comes in many small chunks has the same index from a file as from memory, and the same pixels")
    func pngManyChunks() throws {
        // The fixture's IDAT stream cut into 200-byte chunks (a 25 MP libvips PNG has 8,000 of 8 KiB).
        let original = try Fixture.data("pnginflate-noise-mixed-rgb.png")
        var stream = Data(), head = Data(), tail = Data()
        var reader = ByteReader(.memory(original))
        PNGChunks.walk(&reader) { reader, chunk in
            let whole = original[chunk.offset..<chunk.end]
            if chunk.type == "IDAT" { stream += reader.bytes(at: chunk.data.lowerBound, chunk.length) ?? [] }
            else if stream.isEmpty { head += whole } else { tail += whole }
            return true
        }
        func crc(_ bytes: Data) -> UInt32 {
            var value: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                value ^= UInt32(byte)
                for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            }
            return ~value
        }
        var png = Data(original.prefix(8)) + head
        var pieces = 0
        for start in stride(from: 0, to: stream.count, by: 200) {
            let body = Data("IDAT".utf8) + stream[start..<min(start + 200, stream.count)]
            png += withUnsafeBytes(of: UInt32(body.count - 4).bigEndian) { Data($0) } + body
            png += withUnsafeBytes(of: crc(body).bigEndian) { Data($0) }
            pieces += 1
        }
        png += tail
        #expect(pieces > 20)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("magickio-idats-\(UUID()).png")
        try png.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        func chunks(_ bytes: SourceBytes) -> ([String], [Int], PNGChunks.End) {
            var types: [String] = [], offsets: [Int] = []
            let end = PNGIndex(bytes).visit(bytes) { _, chunk in types.append(chunk.type); offsets.append(chunk.offset); return true }
            return (types, offsets, end)
        }
        let fromFile = chunks(.file(try OpenFile(path: url.path))), fromMemory = chunks(.memory(png))
        #expect(fromFile.0 == fromMemory.0 && fromFile.1 == fromMemory.1 && fromFile.2 == .imageEnd && fromMemory.2 == .imageEnd)
        #expect(fromFile.0.filter { $0 == "IDAT" }.count == pieces && fromFile.0.last == "IEND")
        // Decoded from the file, by ImageMagick and by the own rows, pixel for pixel the original.
        let source = try ImageSource(url: url), twin = try ImageSource(data: original)
        #expect(try source.properties().pixelWidth == twin.properties().pixelWidth)
        #expect(try source.image(at: 0).pixels(.rgba8).bytes == twin.image(at: 0).pixels(.rgba8).bytes)
        let thumbnail = try source.thumbnail(maxPixelSize: 20)
        #expect(thumbnail.decoderName == "libpng")
        #expect(try thumbnail.pixels(.rgba8).bytes == twin.thumbnail(maxPixelSize: 20).pixels(.rgba8).bytes)
    }

    @Test("RIFF chunks are walked with their padding; ISO BMFF boxes with 64-bit and to-the-end sizes")
    func riffAndBoxes() {
        let riff = Array("RIFF".utf8) + [30, 0, 0, 0] + Array("WEBP".utf8) + Array("VP8 ".utf8) + [3, 0, 0, 0, 1, 2, 3, 0]
            + Array("EXIF".utf8) + [2, 0, 0, 0, 9, 9]
        var reader = ByteReader(.memory(Data(riff)))
        var ids: [String] = []
        RIFFChunks.walk(&reader) { _, chunk in ids.append(chunk.id); return true }
        #expect(ids == ["VP8 ", "EXIF"])
        #expect(RIFFChunks.declaredLength(&reader) == 30)

        func u32(_ value: Int) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let boxes = u32(12) + Array("ftyp".utf8) + Array("heic".utf8) + u32(1) + Array("meta".utf8) + u32(0) + u32(20)
            + [0, 0, 0, 0] + u32(0) + Array("mdat".utf8) + [1, 2, 3]
        var boxReader = ByteReader(.memory(Data(boxes)))
        var found: [(String, Int)] = []
        ISOBMFFBoxes.walk(&boxReader, in: 0..<boxes.count) { _, box in found.append((box.type, box.size)) }
        #expect(found.map(\.0) == ["ftyp", "meta", "mdat"])
        #expect(found.map(\.1) == [12, 20, 11])
        var broken = ByteReader(.memory(Data(u32(4) + Array("free".utf8))))
        var any = false
        ISOBMFFBoxes.walk(&broken, in: 0..<8) { _, _ in any = true }
        #expect(!any, "a box smaller than its header ends the walk")
    }

    @Test("HEIF items: types, data, references, declared sizes and a grid's canvas, as libheif reads them")
    func heifItems() throws {
        func items(_ name: String) throws -> (HEIFItems, ByteReader) {
            var reader = ByteReader(.memory(try Fixture.data(name)))
            return (HEIFItems.read(&reader), reader)
        }
        var (avif, reader) = try items("avif-alpha.avif")
        let primary = try #require(avif.primary)
        #expect(avif.items[primary]?.type == "av01" && avif.items[primary]?.extents?.first?.method == 0)
        #expect((avif.items[primary]?.dataLength ?? 0) > 0)
        #expect(avif.declaredSize(of: primary, &reader).map { [$0.width, $0.height] } == [64, 48])
        let alpha = avif.referring("auxl", to: primary)
        #expect(alpha.count == 1 && avif.items[alpha[0]]?.type == "av01" && avif.property("auxC", of: alpha[0]) != nil)
        #expect(avif.inspect(decoding: primary, &reader) == HEIFItems.Inspection(problem: nil, largestPicture: 64 * 48))

        var (emptyAlpha, emptyReader) = try items("avif-alpha-no-coded-data.avif")
        #expect(emptyAlpha.items[alpha[0]]?.dataLength == 0)
        #expect(emptyAlpha.inspect(decoding: primary, &emptyReader).problem == "the HEIF item \(alpha[0]) (av01) has no coded data")

        var (grid, gridReader) = try items("heic-grid.heic")
        #expect(grid.primary == 2 && grid.items[2]?.type == "grid" && grid.items[2]?.extents?.first?.method == 1)
        #expect(grid.referenced("dimg", from: 2) == [1])
        #expect(grid.canvasSize(of: 2, type: "grid", &gridReader).map { [$0.width, $0.height] } == [96, 64])
        #expect(grid.inspect(decoding: 2, &gridReader) == HEIFItems.Inspection(problem: nil, largestPicture: 96 * 64))

        var (past, pastReader) = try items("heic-grid-canvas-past-ispe.heic")
        #expect(past.canvasSize(of: 2, type: "grid", &pastReader).map { [$0.width, $0.height] } == [20000, 20000])
        #expect(past.declaredSize(of: 2, &pastReader).map { [$0.width, $0.height] } == [96, 64])
        #expect(past.inspect(decoding: 2, &pastReader).largestPicture == 20000 * 20000)
        for name in ["heic-coded-past-ispe.heic", "avif-coded-past-ispe.avif"] {
            var (coded, codedReader) = try items(name)
            let item = try #require(coded.primary)
            #expect(coded.declaredSize(of: item, &codedReader).map { [$0.width, $0.height] } == [96, 64], "\(name)")
            #expect(coded.codedSize(of: item, type: coded.items[item]?.type ?? "", &codedReader).map { [$0.width, $0.height] } == [4096, 4096], "\(name)")
        }
        // libheif takes an SPS by its NAL unit header, whatever hvcC array lists it.
        var relabelled = [UInt8](try Fixture.data("orient-1.heic"))
        let sps = try #require((0..<relabelled.count - 1).first { relabelled[$0] & 0x3F == 33 && relabelled[$0 + 1] == 0 && relabelled[$0 + 2] == 1 })
        relabelled[sps] = relabelled[sps] & 0xC0 | 34  // listed as a PPS
        var relabelledReader = ByteReader(.memory(Data(relabelled)))
        let relabelledItems = HEIFItems.read(&relabelledReader)
        #expect(relabelledItems.codedSize(of: 1, type: "hvc1", &relabelledReader).map { [$0.width, $0.height] } == [96, 64])
        // Two meta boxes: libheif may read either (the last one before a box it cannot read).
        let twice = try Fixture.data("heic-grid.heic")
        let meta = try #require(twice.range(of: Data("meta".utf8)))
        let metaBox = twice[(meta.lowerBound - 4)...].prefix(twice.u16be(at: meta.lowerBound - 2))
        var twiceReader = ByteReader(.memory(twice + metaBox))
        #expect(HEIFItems.read(&twiceReader).inspect(decoding: 2, &twiceReader).problem == "the HEIF file has 2 meta boxes")
        let thrown = #expect(throws: MagickIOError.self) { _ = try ImageSource(data: twice + metaBox) }
        #expect(thrown?.kind == .corruptImage, "\(String(describing: thrown))")

        // Cut anywhere, the walk finds less and never traps.
        let whole = try Fixture.data("heic-grid.heic")
        for end in stride(from: 0, to: whole.count, by: 7) {
            var cut = ByteReader(.memory(whole.prefix(end)))
            let found = HEIFItems.read(&cut)
            _ = found.inspect(decoding: found.primary ?? 2, &cut)
        }
    }

    /// Bits written most significant first, for hand-made parameter sets.
    struct BitWriter {
        var bits: [Bool] = []
        mutating func put(_ value: Int, _ count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append(value >> shift & 1 == 1) }
        }
        /// ue(v): the value plus one in binary, after as many zeros as it has bits less one.
        mutating func golomb(_ value: Int) {
            let count = String(value + 1, radix: 2).count
            put(0, count - 1)
            put(value + 1, count)
        }
        var bytes: [UInt8] {
            stride(from: 0, to: bits.count, by: 8).map { start in
                (0..<8).reduce(UInt8(0)) { byte, index in byte << 1 | (start + index < bits.count && bits[start + index] ? 1 : 0) }
            }
        }
    }

    @Test("a coded picture's size is read from an HEVC SPS with sub-layers and emulation prevention, and from AV1 sequence headers")
    func codedSizes() {
        var sps = BitWriter()
        sps.put(0, 4); sps.put(2, 3); sps.put(1, 1)  // VPS id, three sub-layers, nesting
        sps.put(0, 96)  // general profile, tier and level: zeros, so emulation prevention is needed
        sps.put(0b11, 2); sps.put(0b01, 2)  // sub-layer 0: profile and level; sub-layer 1: level
        sps.put(0, 2 * 6)
        sps.put(0, 88 + 8); sps.put(0, 8)
        sps.golomb(0); sps.golomb(1); sps.golomb(4096); sps.golomb(3000); sps.put(1, 1)
        var nal: [UInt8] = [0x42, 0x01]  // NAL unit type 33
        var zeros = 0
        for byte in sps.bytes {
            if zeros >= 2, byte <= 3 { nal.append(3); zeros = 0 }
            nal.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        #expect(nal.count > sps.bytes.count + 2, "the SPS has emulation prevention bytes to remove")
        let hvcC = [UInt8](repeating: 0, count: 22) + [2]
            + [0xA0, 0, 1, 0, 2, 0x40, 0x01]  // a VPS array first (one 2-byte NAL unit)
            + [0xA1, 0, 1, UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal
        #expect(CodedSize.hevc(hvcC)?.map { [$0.width, $0.height] } == [[4096, 3000]])
        #expect(CodedSize.hevc(Array(hvcC.prefix(hvcC.count - nal.count / 2))) == nil, "a cut SPS is not guessed at")
        #expect(CodedSize.hevc(Array(hvcC.prefix(23))) == nil, "arrays the box does not hold")
        #expect(CodedSize.hevc(Array(hvcC.prefix(22)) + [0])?.isEmpty == true, "no arrays: no SPS there")

        // AV1: a temporal delimiter, then a sequence header with timing and decoder model info and
        // two operating points (the second with a decoder model and a display delay).
        var header = BitWriter()
        header.put(0, 3); header.put(0, 1); header.put(0, 1)  // profile, still picture, not reduced
        header.put(1, 1); header.put(0, 64); header.put(1, 1); header.golomb(5)  // timing, equal interval
        header.put(1, 1); header.put(9, 5); header.put(0, 32 + 5 + 5)  // decoder model, 10-bit delays
        header.put(1, 1); header.put(1, 5)  // initial display delay present, two operating points
        header.put(0, 12); header.put(8, 5); header.put(0, 1); header.put(0, 1); header.put(0, 1)  // level 8: tier
        header.put(0, 12); header.put(1, 5); header.put(1, 1); header.put(0, 2 * 10 + 1); header.put(1, 1); header.put(3, 4)
        header.put(11, 4); header.put(10, 4); header.put(1435, 12); header.put(729, 11)
        let body = header.bytes
        let obus: [UInt8] = [0x12, 0x00] + [0x0A, UInt8(body.count)] + body
        #expect(CodedSize.av1SequenceHeaders(obus)?.map { [$0.width, $0.height] } == [[1436, 730]])
        var still = BitWriter()  // a still picture's reduced header: 4-bit sizes, 8x8
        still.put(0, 3); still.put(1, 1); still.put(1, 1); still.put(0, 5); still.put(3, 4); still.put(3, 4); still.put(7, 4); still.put(7, 4)
        #expect(CodedSize.av1SequenceHeaders([0x0A, UInt8(still.bytes.count)] + still.bytes)?.map { [$0.width, $0.height] } == [[8, 8]])
        #expect(CodedSize.av1SequenceHeaders([0x32, 0])?.isEmpty == true, "no sequence header")
        for cut: [UInt8] in [[0x0C], [0x0E, 0], [0x0A, 0x85], [0x0A, 5, 0]] {
            #expect(CodedSize.av1SequenceHeaders(cut) == nil, "\(cut): an OBU past the end, or a header cut short")
        }
    }

    @Test("TIFF entries know every field type's size, so out-of-line values are found (GPS removal)")
    func tiffValueSizes() throws {
        #expect(TIFFDirectories.typeSizes[12] == 8 && TIFFDirectories.typeSizes[11] == 4 && TIFFDirectories.typeSizes[6] == 1)
        #expect(TIFFDirectories.typeSizes[8] == 2 && TIFFDirectories.typeSizes[13] == 4 && TIFFDirectories.typeSizes[16] == 8)
        // IFD0 points at a GPS IFD holding one DOUBLE[2] (type 12) stored out of line at 60.
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        var exif = Array("Exif\0\0".utf8) + Array("II".utf8) + le16(42) + le32(8)
        exif += le16(1) + le16(0x8825) + le16(4) + le32(1) + le32(26) + le32(0)  // IFD0 at 8: GPS IFD at 26
        exif += le16(1) + le16(2) + le16(12) + le32(2) + le32(44) + le32(0)  // GPS IFD at 26: latitude, out of line
        exif += [UInt8](repeating: 0xAB, count: 16)  // the two doubles, at 44
        let cleaned = EXIF.removingGPS(exif)
        #expect(cleaned.count == exif.count)
        #expect(cleaned[(6 + 44)..<(6 + 60)].allSatisfy { $0 == 0 }, "the DOUBLE values are zeroed")
        #expect(cleaned[6 + 26] == 0 && cleaned[6 + 27] == 0, "the GPS directory is empty")
    }

    @Test("the byte reader answers nil past the end, through its window and around it")
    func byteReader() {
        let data = Data((0..<200_000).map { UInt8($0 % 251) })
        var reader = ByteReader(.memory(data))
        #expect(reader.u8(at: 199_999) == UInt8(199_999 % 251))
        #expect(reader.u8(at: 200_000) == nil && reader.u8(at: -1) == nil)
        #expect(reader.bytes(at: 65_530, 10) == Array(data[65_530..<65_540]))
        #expect(reader.bytes(at: 100, 100_000)?.count == 100_000)
        #expect(reader.bytes(at: 199_995, 10) == nil)
        #expect(reader.bytes(at: Int.max - 2, 4) == nil)
        #expect(reader.u32be(at: 0) == 0x0001_0203)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
