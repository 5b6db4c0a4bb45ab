import Foundation
import Testing
@testable import MagickIO

/// IncrementalImageSource: failing early, and only when nothing can help.
extension IncrementalImageSourceTests {
    // MARK: - Failing early, and only when nothing can help

    @Test("content that is no image fails as unsupportedFormat once 32 bytes have arrived",
          arguments: ["text.jpg", "random.bin"])
    func notAnImageFailsEarly(name: String) throws {
        let data = try Fixture.data(name)
        let source = IncrementalImageSource()
        let steps = Self.feed(data.prefix(40), chunk: 1, into: source)
        for step in steps {
            if step.received < 32 {
                #expect(step.status == .waitingForHeader, "\(step.received) bytes")
            } else {
                #expect(Self.failure(step.status) == .unsupportedFormat, "\(step.received) bytes")
            }
        }
        #expect(source.format == nil)
        #expect(errorKind { _ = try source.properties(at: 0) } == .unsupportedFormat)
        #expect(errorKind { _ = try source.thumbnail(maxPixelSize: 64) } == .unsupportedFormat)
        source.append(data.dropFirst(40), isFinal: true)
        #expect(Self.failure(source.status) == .unsupportedFormat)
    }

    @Test("an ISO ftyp box waits for its brands (64 bytes) before it is judged")
    func isoBoxWaitsForBrands() {
        var bytes: [UInt8] = [0, 0, 0, 24] + Array("ftypmp42".utf8) + [0, 0, 0, 0] + Array("isommp42".utf8)
        bytes += [UInt8](repeating: 0, count: 100 - bytes.count)
        let source = IncrementalImageSource()
        let steps = Self.feed(Data(bytes), chunk: 1, into: source)
        for step in steps {
            #expect(Self.rank(step.status) == (step.received < 64 ? 0 : 3), "\(step.received) bytes: \(step.status)")
        }
        #expect(Self.failure(source.status) == .unsupportedFormat)
    }

    @Test("an empty final append fails with emptyData")
    func emptyFinal() {
        let source = IncrementalImageSource()
        source.append(Data())
        #expect(source.status == .waitingForHeader)
        source.append(Data(), isFinal: true)
        #expect(Self.failure(source.status) == .emptyData)
        #expect(errorKind { _ = try source.image(at: 0) } == .emptyData)
    }

    @Test("a final append before the header fails as ImageSource would")
    func finalBeforeHeader() throws {
        let data = try Fixture.data("photo.jpg")
        let source = IncrementalImageSource()
        source.append(data.prefix(100), isFinal: true)
        let expected = errorKind { _ = try ImageSource(data: data.prefix(100)) }
        #expect(expected != nil)
        #expect(Self.failure(source.status) == expected)
    }

    @Test("a huge claimed size: header complete with that size; once complete, the thumbnail is refused")
    func hugeClaimedSize() throws {
        var bytes = [UInt8](try Fixture.data("orient-1.jpg"))
        let sof = try #require(Self.jpegFrameHeader(bytes))
        bytes[sof + 5] = UInt8(60000 >> 8); bytes[sof + 6] = UInt8(60000 & 0xFF)  // height
        bytes[sof + 7] = UInt8(60000 >> 8); bytes[sof + 8] = UInt8(60000 & 0xFF)  // width
        let data = Data(bytes)
        let source = IncrementalImageSource()
        let steps = Self.feed(data, chunk: 7, into: source)
        let sofEnd = try #require(Self.jpegFrameHeaderEnd(bytes))
        #expect(steps.first { $0.status == .headerComplete }?.received == (sofEnd + 6) / 7 * 7)
        let p = try source.properties(at: 0)
        #expect(p.pixelWidth == 60000)
        #expect(p.pixelHeight == 60000)
        source.append(Data(), isFinal: true)
        #expect(source.status == .complete)
        #expect(errorKind { _ = try source.thumbnail(maxPixelSize: 256) } == .limitExceeded)
    }

    @Test("properties: frameOutOfRange while the header is awaited")
    func propertiesBeforeHeader() throws {
        let source = IncrementalImageSource()
        #expect(errorKind { _ = try source.properties(at: 0) } == .frameOutOfRange)
        source.append(try Fixture.data("photo.jpg").prefix(40))
        #expect(source.format == .jpeg)
        #expect(source.count == 0)
        #expect(errorKind { _ = try source.properties(at: 0) } == .frameOutOfRange)
    }

    @Test("appends after the final one, or after failing, are ignored")
    func appendsAfterTheEndAreIgnored() throws {
        let data = try Fixture.data("orient-6.jpg")
        let source = IncrementalImageSource()
        source.append(data, isFinal: true)
        let before = try source.properties(at: 0)
        source.append(Data("trailing garbage".utf8))
        source.append(Data(), isFinal: true)
        #expect(source.status == .complete)
        #expect(try source.properties(at: 0) == before)
        #expect(try source.image(at: 0).width == 64)

        let failed = IncrementalImageSource()
        failed.append(Data(), isFinal: true)
        failed.append(data, isFinal: true)
        #expect(Self.failure(failed.status) == .emptyData)
    }

    // MARK: - Sendable

    @Test("appends and reads from several tasks at once")
    func concurrentUse() async throws {
        let data = try Fixture.data("photo.jpg")
        let source = IncrementalImageSource()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var offset = 0
                while offset < data.count {
                    let end = min(offset + 97, data.count)
                    source.append(data[offset..<end], isFinal: end == data.count)
                    offset = end
                    await Task.yield()
                }
            }
            for _ in 0..<8 {
                group.addTask {
                    while true {
                        let status = source.status
                        _ = source.count
                        _ = source.format
                        _ = try? source.properties(at: 0)
                        if status == .complete {
                            #expect((try? source.thumbnail(maxPixelSize: 32))?.width == 32)
                            return
                        }
                        #expect(Self.failure(status) == nil)
                        await Task.yield()
                    }
                }
            }
        }
        #expect(source.status == .complete)

        // Chunks appended by many tasks at once land in some order: no crash, a definite end.
        let scrambled = IncrementalImageSource()
        await withTaskGroup(of: Void.self) { group in
            for start in stride(from: 0, to: data.count, by: 4096) {
                group.addTask {
                    scrambled.append(data[start..<min(start + 4096, data.count)])
                    _ = scrambled.status
                    _ = try? scrambled.properties(at: 0)
                }
            }
        }
        scrambled.append(Data(), isFinal: true)
        #expect(Self.rank(scrambled.status) >= 2)
    }
}
