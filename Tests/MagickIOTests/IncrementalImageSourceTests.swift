import Foundation
import Testing
@testable import MagickIO

@Suite("IncrementalImageSource")
struct IncrementalImageSourceTests {
    typealias Status = IncrementalImageSource.Status

    /// What the source said after one append.
    struct Step {
        var received: Int
        var status: Status
        var count: Int
    }

    static let chunkSizes = [1, 7, 64, 1000]

    /// Appends `data` in chunks of `chunk` bytes, none of them final, recording each step.
    static func feed(_ data: Data, chunk: Int, into source: IncrementalImageSource) -> [Step] {
        var steps: [Step] = []
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            source.append(data[offset..<end])
            steps.append(Step(received: end, status: source.status, count: source.count))
            offset = end
        }
        return steps
    }

    static func rank(_ status: Status) -> Int {
        switch status {
        case .waitingForHeader: 0
        case .headerComplete: 1
        case .complete: 2
        case .failed: 3
        }
    }

    /// The offset just past a JPEG's first SOF segment, by the library's JPEG walker.
    static func jpegFrameHeaderEnd(_ bytes: [UInt8]) -> Int? {
        guard let sof = jpegFrameHeader(bytes) else { return nil }
        return sof + 2 + bytes.u16be(at: sof + 2)
    }

    /// The offset of a JPEG's first SOF marker, by the library's JPEG walker.
    static func jpegFrameHeader(_ bytes: [UInt8]) -> Int? {
        Corpus.jpegSOF(bytes)
    }

    /// The offset just past the length and type of a PNG's first IDAT chunk, by the library's
    /// PNG walker.
    static func pngFirstImageDataStart(_ bytes: [UInt8]) -> Int? {
        var reader = ByteReader(.memory(Data(bytes)))
        var start: Int?
        PNGChunks.walk(&reader) { _, chunk in
            if chunk.type == "IDAT" { start = chunk.offset + 8 }
            return start == nil
        }
        return start
    }

    /// The offsets just past each frame of a GIF (its image data's terminating sub-block), by the
    /// library's own GIF walker.
    static func gifFrameEnds(_ bytes: [UInt8]) -> [Int] {
        var reader = ByteReader(.memory(Data(bytes)))
        var blocks = GIFBlocks()
        blocks.advance(&reader, maxFrames: .max)
        return blocks.frames.compactMap(\.end)
    }

    /// The offset past a TIFF's first directory and every value it points to, by the library's
    /// TIFF walker.
    static func tiffFirstDirectoryEnd(_ bytes: [UInt8]) -> Int {
        guard var tiff = TIFFDirectories(.memory(Data(bytes))), let directory = tiff.firstDirectory() else { return 0 }
        let entries = tiff.entries(at: directory)
        var end = directory + 2 + 12 * entries.count + 4
        for entry in entries where !entry.isInline {
            if let at = tiff.value(at: entry.valueField, size: tiff.offsetSize) { end = max(end, at + entry.valueSize) }
        }
        return end
    }

    static func failure(_ status: Status) -> MagickIOError.Kind? {
        if case .failed(let error) = status { return error.kind }
        return nil
    }

    // MARK: - When the header is complete

    @Test("JPEG: the header is complete exactly once the SOF segment has arrived",
          arguments: ["photo.jpg", "progressive.jpg", "orient-6.jpg"], chunkSizes)
    func jpegHeaderAtFrameHeader(name: String, chunk: Int) throws {
        let data = try Fixture.data(name)
        let sofEnd = try #require(Self.jpegFrameHeaderEnd([UInt8](data)))
        let whole = try ImageSource(data: data)
        let source = IncrementalImageSource()
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            source.append(data[offset..<end])
            if end < sofEnd {
                #expect(source.status == .waitingForHeader, "\(end) of \(sofEnd) bytes of the header")
                let thrown = #expect(throws: MagickIOError.self) { try source.properties(at: 0) }
                #expect(thrown?.kind == .frameOutOfRange, "\(String(describing: thrown))")
            } else {
                #expect(source.status == .headerComplete, "\(end) bytes, the SOF ends at \(sofEnd)")
                #expect(try source.properties(at: 0) == whole.properties(at: 0))
                #expect(source.count == 1)
            }
            offset = end
        }
        #expect(source.format == .jpeg)
        source.append(Data(), isFinal: true)
        #expect(source.status == .complete)
        #expect(try source.properties(at: 0) == whole.properties(at: 0))
    }

    @Test("checkHeader: false until the header is in, true within the pixel count, limitExceeded past it, and the failure once failed")
    func checkHeader() throws {
        let data = try Fixture.data("photo.jpg")  // 320x240
        let sofEnd = try #require(Self.jpegFrameHeaderEnd([UInt8](data)))
        let within = IncrementalImageSource(options: DecodingOptions(maxPixelCount: 320 * 240))
        let over = IncrementalImageSource(options: DecodingOptions(maxPixelCount: 320 * 240 - 1))
        for source in [within, over] {
            source.append(data.prefix(sofEnd - 1))
            #expect(try source.checkHeader() == false)
            source.append(data[(sofEnd - 1)..<sofEnd])
        }
        #expect(try within.checkHeader())
        let error = #expect(throws: MagickIOError.self) { try over.checkHeader() }
        #expect(error?.kind == .limitExceeded && error?.limit?.name == "maxPixelCount" && error?.limit?.requested == 320 * 240,
                "\(String(describing: error))")
        let text = IncrementalImageSource()
        text.append(Data(String(repeating: "<html>", count: 100).utf8))
        let notAnImage = #expect(throws: MagickIOError.self) { try text.checkHeader() }
        #expect(notAnImage?.kind == .unsupportedFormat, "\(String(describing: notAnImage))")
    }

    @Test("PNG: the header is complete once the first IDAT chunk has begun",
          arguments: ["photo.png", "alpha.png"], chunkSizes)
    func pngHeaderAtImageData(name: String, chunk: Int) throws {
        let data = try Fixture.data(name)
        let point = try #require(Self.pngFirstImageDataStart([UInt8](data)))
        let whole = try ImageSource(data: data)
        let steps = Self.feed(data, chunk: chunk, into: IncrementalImageSource())
        for step in steps {
            #expect(step.status == (step.received < point ? .waitingForHeader : .headerComplete),
                    "\(step.received) bytes, IDAT begins at \(point)")
        }
        let source = IncrementalImageSource()
        source.append(data.prefix(point))
        #expect(source.status == .headerComplete)
        #expect(try source.properties(at: 0) == whole.properties(at: 0))
        #expect(try source.properties(at: 0).hasAlpha == (name == "alpha.png"))
    }

    @Test("every fixture: status only moves forward, the header comes before the last byte, complete only after the final append",
          arguments: ["photo.jpg", "progressive.jpg", "orient-6.jpg", "photo.png", "alpha.png", "animated.gif",
                      "quadrants.webp", "orient-6.tif"], chunkSizes)
    func statusSequence(name: String, chunk: Int) throws {
        let data = try Fixture.data(name)
        let whole = try ImageSource(data: data)
        let source = IncrementalImageSource()
        let steps = Self.feed(data, chunk: chunk, into: source)
        for (previous, next) in zip(steps, steps.dropFirst()) {
            #expect(Self.rank(previous.status) <= Self.rank(next.status), "\(previous.status) then \(next.status)")
            #expect(previous.count <= next.count)
        }
        #expect(!steps.contains { $0.status == .complete }, "complete before the final append")
        #expect(steps.last?.status == .headerComplete)
        for index in 0..<source.count {
            #expect(try source.properties(at: index) == whole.properties(at: index), "frame \(index)")
        }
        #expect(source.format == whole.format)

        source.append(Data(), isFinal: true)
        #expect(source.status == .complete)
        #expect(source.count == whole.count)
        #expect(source.source?.count == whole.count)
        for index in 0..<whole.count {
            #expect(try source.properties(at: index) == whole.properties(at: index))
        }
    }

    @Test("the last chunk may carry isFinal itself")
    func finalWithLastChunk() throws {
        let data = try Fixture.data("photo.jpg")
        let source = IncrementalImageSource()
        source.append(data.prefix(1000))
        source.append(data.dropFirst(1000), isFinal: true)
        #expect(source.status == .complete)
        #expect(try source.image(at: 0).width == 320)
    }

    @Test("GIF, TIFF, WebP: the header is complete once the first frame, the first directory and its values, or the whole RIFF chunk are in",
          arguments: ["animated.gif", "orient-6.tif", "quadrants.webp"], chunkSizes)
    func gifTIFFAndWebPHeaderPoints(name: String, chunk: Int) throws {
        let data = try Fixture.data(name)
        let bytes = [UInt8](data)
        let point = switch name {
        case "animated.gif": try #require(Self.gifFrameEnds(bytes).first)
        case "orient-6.tif": Self.tiffFirstDirectoryEnd(bytes)
        default: bytes.u32le(at: 4) + 8  // RIFF size
        }
        #expect(point <= data.count)
        let whole = try ImageSource(data: data)
        let source = IncrementalImageSource()
        for step in Self.feed(data, chunk: chunk, into: source) {
            #expect(step.status == (step.received < point ? .waitingForHeader : .headerComplete),
                    "\(step.received) bytes, the header point is \(point)")
        }
        #expect(try source.properties(at: 0) == whole.properties(at: 0))
    }

    @Test("GIF: the frame count grows as frames arrive and is final once complete")
    func gifFramesKnownSoFar() throws {
        let data = try Fixture.data("animated.gif")
        let ends = Self.gifFrameEnds([UInt8](data))
        #expect(ends.count == 3)
        let source = IncrementalImageSource()
        let steps = Self.feed(data, chunk: 1, into: source)
        for step in steps {
            let arrived = ends.filter { $0 <= step.received }.count
            #expect(step.count <= arrived, "\(step.received) bytes")
            if step.received == ends[0] { #expect(step.count == 1) }
        }
        let counts = steps.map(\.count)
        #expect(counts == counts.sorted())
        #expect(counts.last == 3)
        let thrown = #expect(throws: MagickIOError.self) { try source.properties(at: 3) }
        #expect(thrown?.kind == .frameOutOfRange, "\(String(describing: thrown))")
        source.append(Data(), isFinal: true)
        #expect(source.count == 3)
        for index in 0..<3 {
            #expect(try source.properties(at: index).pixelWidth == 24)
        }
    }

    @Test("orient-6.jpg: size and orientation as soon as the header is complete")
    func orientationWithHeader() throws {
        let data = try Fixture.data("orient-6.jpg")
        let source = IncrementalImageSource()
        var offset = 0
        while source.status == .waitingForHeader, offset < data.count {
            source.append(data[offset..<offset + 1])
            offset += 1
        }
        #expect(offset == Self.jpegFrameHeaderEnd([UInt8](data)))
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 64)
        #expect(p.pixelHeight == 96)
        #expect(p.orientation == .right)
        #expect(p.orientedWidth == 96)
        #expect(p.orientedHeight == 64)
    }

    // MARK: - Pixels once complete

    @Test("image and thumbnail throw until complete, then the thumbnail is upright",
          arguments: ["orient-6.jpg", "orient-6.tif", "quadrants.webp", "quadrants.png"])
    func thumbnailOnceComplete(name: String) throws {
        let data = try Fixture.data(name)
        let source = IncrementalImageSource()
        _ = Self.feed(data, chunk: 64, into: source)
        #expect(source.status == .headerComplete)
        #expect(source.source == nil)
        #expect(errorKind { _ = try source.thumbnail(maxPixelSize: 48) } == .corruptImage)
        #expect(errorKind { _ = try source.image(at: 0) } == .corruptImage)

        source.append(Data(), isFinal: true)
        #expect(source.status == .complete)
        let thumb = try source.thumbnail(maxPixelSize: 48)
        #expect(thumb.width == 48)
        #expect(thumb.height == 32)
        try expectUprightQuadrants(thumb, "\(name)")
    }

    @Test("a truncated JPEG, once final, behaves as an ImageSource of the same bytes does")
    func truncatedJPEG() throws {
        let data = try Fixture.data("truncated.jpg")
        let source = IncrementalImageSource()
        _ = Self.feed(data, chunk: 1000, into: source)
        #expect(source.status == .headerComplete)
        source.append(Data(), isFinal: true)
        do {
            let whole = try ImageSource(data: data)
            #expect(source.status == .complete)
            #expect(try source.properties(at: 0) == whole.properties(at: 0))
            let expected = errorKind { _ = try whole.image(at: 0) }
            #expect(expected == .corruptImage)
            #expect(errorKind { _ = try source.image(at: 0) } == expected)
            #expect(errorKind { _ = try source.thumbnail(maxPixelSize: 64) } == errorKind { _ = try whole.thumbnail(maxPixelSize: 64) })
        } catch let error as MagickIOError {
            #expect(Self.failure(source.status) == error.kind)
        }
    }
}
