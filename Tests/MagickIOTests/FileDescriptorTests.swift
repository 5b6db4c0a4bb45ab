import Foundation
import Testing
@testable import MagickIO

@Suite("Descriptor and FileHandle sources")
struct FileDescriptorTests {
    @Test("a regular file's descriptor is streamed, and the caller may close its own at once")
    func regularFile() throws {
        let handle = try FileHandle(forReadingFrom: Fixture.url("orient-6.jpg"))
        let source = try ImageSource(fileHandle: handle)
        try handle.close()
        guard case .file = source.bytes else {
            Issue.record("a regular file was read into memory")
            return
        }
        #expect(try source.properties(at: 0).orientation == .right)
        try expectUprightQuadrants(try source.thumbnail(maxPixelSize: 48))
    }

    @Test("a pipe is read to its end, then decoded")
    func pipe() throws {
        var ends: [Int32] = [0, 0]
        #expect(makePipe(&ends) == 0)
        let bytes = try Fixture.data("photo.png")
        let writeEnd = ends[1], readEnd = ends[0]
        let writer = Thread {
            bytes.withUnsafeBytes { raw in
                var sent = 0
                while sent < raw.count {
                    let wrote = write(writeEnd, raw.baseAddress! + sent, raw.count - sent)
                    if wrote <= 0 { break }
                    sent += wrote
                }
            }
            close(writeEnd)
        }
        writer.start()
        let source = try ImageSource(fileDescriptor: readEnd)
        close(readEnd)
        #expect(source.format == .png)
        #expect(try source.thumbnail(maxPixelSize: 32).width == 32)
    }

    @Test("a pipe that gives more than the memory budget is refused as limitExceeded, not held")
    func pipeOverBudget() throws {
        var ends: [Int32] = [0, 0]
        #expect(makePipe(&ends) == 0)
        let writeEnd = ends[1], readEnd = ends[0]
        // An endless stream: the reader must stop at the budget and close its end.
        let writer = Thread {
            let chunk = [UInt8](repeating: 0xFF, count: 1 << 16)
            while chunk.withUnsafeBytes({ write(writeEnd, $0.baseAddress, $0.count) }) > 0 {}
            close(writeEnd)
        }
        signal(SIGPIPE, SIG_IGN)
        writer.start()
        let error = #expect(throws: MagickIOError.self) {
            try ImageSource(fileDescriptor: readEnd, options: DecodingOptions(memoryBudget: 1 << 20))
        }
        close(readEnd)
        #expect(error?.kind == .limitExceeded && error?.limit?.name == "memoryBudget", "\(String(describing: error))")
        #expect(error?.limit?.limit == 1 << 20)
    }

    @Test("a path that is a FIFO is refused as io at once, never blocking in open", .timeLimit(.minutes(10)))
    func fifoPath() throws {
        let directory = try TemporaryDirectory("fifo")
        let fifo = directory.url.appendingPathComponent("pipe.jpg")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(errorKind { _ = try ImageSource(url: fifo) } == .io)
        #expect(errorKind { _ = try ImageSource(url: directory.url) } == .io)
    }

    @Test("a descriptor that is not open is an io error")
    func badDescriptor() {
        #expect(errorKind { _ = try ImageSource(fileDescriptor: 9_999) } == .io)
    }
}

private func makePipe(_ ends: inout [Int32]) -> Int32 {
    ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) }

}
