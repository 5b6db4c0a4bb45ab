import Dispatch
import Foundation
import Testing
@testable import MagickIO

/// The backstop under the estimate: ImageMagick's own heap is counted per decode, a coder's request
/// past the decode's share ends that decode with `limitExceeded`, and the thread (and process)
/// goes on serving.
@Suite("ImageMagick's heap is held to each decode's share")
struct HeapBackstopTests {
    /// Options whose heap share is `share` bytes, whatever the memory budget says.
    static func options(share: Int) -> DecodingOptions {
        var options = DecodingOptions()
        options.heapShareForTesting = share
        return options
    }

    static func expectBudgetRefusal(_ decode: () throws -> Image, coder: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let image = try decode()
            Issue.record("decoded \(image.width)x\(image.height) past the share", sourceLocation: sourceLocation)
        } catch let error as MagickIOError {
            #expect(error.kind == .limitExceeded, "\(error)", sourceLocation: sourceLocation)
            #expect(error.limit?.name == "memoryBudget", "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains("ImageMagick's \(coder) coder asked for"), "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("ImageMagick's allocations on the decoding thread are counted while a decode reads")
    func countsTheHeap() throws {
        let source = try Fixture.source("orient-1.tif")
        let (result, outcome) = HeapBudget.measure(share: .max) { () throws(MagickIOError) in
            try Wand.withThreadWand { wand throws(MagickIOError) in
                try wand.read(source.bytes, format: .tiff, ping: false)
            }
        }
        _ = try result.get()
        #expect(outcome.peak > 4096, "peak \(outcome.peak) bytes: the counting methods are not installed")
        #expect(outcome.refused == nil)
    }

    @Test("a TIFF coder's 1 GiB strip buffer past the decode's heap share is refused, and the next decode on the thread works")
    func wideSampleTIFF() throws {
        // 2000x2000, RGB and 13 float64 extra samples in one deflate strip. The cost model counts
        // the strip (about 1 GiB) and refuses it at the default budget; with a budget that admits
        // it, a heap share of 64 MiB stands for an estimate that would have missed it.
        var options = DecodingOptions(memoryBudget: 4 << 30)
        options.heapShareForTesting = 64 << 20
        let source = try ImageSource(url: HostileFixtures.url("tiff-float64-extras.tif"), options: options)
        try source.checkLimits(frame: 0, jpegHint: nil)
        Self.expectBudgetRefusal({ try source.image(at: 0) }, coder: "TIFF")
        Self.expectBudgetRefusal({ try source.thumbnail(maxPixelSize: 256) }, coder: "TIFF")
        let photo = try Fixture.source("orient-1.tif").image(at: 0)
        #expect(photo.width == 96 && photo.height == 64)
        try expectUprightQuadrants(photo)
    }

    /// A TIFF whose strip buffer ImageMagick's TIFF coder takes from its heap on both lines: 100x75
    /// RGB in strips of 16 rows (4,800 bytes). ImageMagick 7 reads a small palette TIFF (such as
    /// orient-1.tif: 96x64 at 4 bits) with a strip buffer under the 4 KiB never refused, and takes
    /// its row buffer with AcquireVirtualMemory, which its memory resource bounds, not the heap.
    static let heapTIFF = "tiff-rgb8-lzw.tif"

    @Test("a shrunk share refuses normal files in TIFF's and PNG's coders (libpng's buffers included); the thread then decodes them whole",
          arguments: [heapTIFF, "orient-1.png"])
    func shrunkShare(name: String) throws {
        let coder = name.hasSuffix("tif") ? "TIFF" : "PNG"
        for _ in 0..<3 {
            let starved = try ImageSource(url: Fixture.url(name), options: Self.options(share: 0))
            Self.expectBudgetRefusal({ try starved.image(at: 0) }, coder: coder)
            let image = try Fixture.source(name).image(at: 0)
            if coder == "PNG" {
                try expectUprightQuadrants(image)
            } else {
                #expect(image.width == 100 && image.height == 75)
            }
        }
    }

    @Test("with no share at all, every fixture decodes or fails as memoryBudget, and the process lives on")
    func noShareNeverFatal() throws {
        // ImageMagick's fatal paths (_exit) would end this test process: none may see a refusal.
        let folder = Fixture.url("")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            .filter { !$0.hasPrefix("phone-") && !$0.hasSuffix(".sh") && !$0.hasSuffix(".py") && !$0.hasSuffix(".json") }
        var refused = 0
        for name in names {
            guard let source = try? ImageSource(url: Fixture.url(name), options: Self.options(share: 0)) else { continue }
            do {
                _ = try source.image(at: 0)
            } catch let error as MagickIOError where error.limit?.name == "memoryBudget" {
                refused += 1
            } catch {}
        }
        #expect(refused >= 10, "\(refused) of \(names.count) fixtures refused")
    }

    @Test("budgets are per thread: starved and normal decodes at once each get their own outcome")
    func perThread() throws {
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let starved = index % 2 == 0
            do {
                let source = try ImageSource(url: Fixture.url(Self.heapTIFF), options: Self.options(share: starved ? 0 : 256 << 20))
                let image = try source.image(at: 0)
                outcomes.add("\(starved) \(image.width)")
            } catch let error as MagickIOError {
                outcomes.add("\(starved) \(error.limit?.name ?? error.kind.rawValue)")
            } catch {
                outcomes.add("\(starved) \(error)")
            }
        }
        #expect(outcomes.sorted == Array(repeating: "false 100", count: 4) + Array(repeating: "true memoryBudget", count: 4))
    }
}

/// Strings gathered from several threads.
/// `@unchecked Sendable`: the list is touched only under `lock`.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []

    func add(_ outcome: String) {
        lock.withLock { list.append(outcome) }
    }

    var sorted: [String] {
        lock.withLock { list.sorted() }
    }
}
