import Foundation
import Testing
@testable import MagickIO

/// Decodes behind the wall (``Isolation``): what a decode worker gives is what the same decode in
/// process gives, and a worker that crashes, runs out of memory or runs past its time gives a typed
/// error while this process (the worker's host) goes on serving.
@Suite("Decode workers", .serialized)
struct IsolationTests {
    /// Every committed fixture that is an image, by name. Under a sanitizer, not the HEIC whose
    /// slice is cut short: libde265 leaves most of its picture unwritten, which only glibc's
    /// zeroed heap makes the same in every process (``HeapScrub``), and a sanitizer's allocator
    /// stands in for glibc's (ContainerOdditiesTests holds that fixture in the plain run).
    static let fixtures: [String] = {
        let folder = Fixture.url("")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasSuffix(".sh") && !$0.hasSuffix(".py") && !$0.hasSuffix(".json") && !$0.hasPrefix(".") }
            .filter { HeapScrub.isEffective || $0 != "heic-slice-cut-short.heic" }.sorted()
    }()

    /// What a call gave, comparable: the image's size, orientation, decoder, warnings, crop, RGBA
    /// pixels, properties and PNG encoding, or the error's kind and message.
    struct Outcome: Equatable, CustomStringConvertible {
        var image: [String]?
        var pixels: [UInt8]?
        var png: Data?
        var error: String?

        init(_ make: () throws -> Image) {
            do {
                let image = try make()
                let properties = image.properties
                self.image = ["\(image.width)x\(image.height)", "\(image.orientation)", image.decoder.rawValue, "\(image.warnings)",
                              "\(String(describing: image.cropRect))", properties.colorSpace, "\(properties.hasAlpha)",
                              "\(properties.bitDepth)", "\(properties.exif.count)", "\(String(describing: properties.resolution))"]
                pixels = try image.pixels(.rgba8).bytes
                png = try image.encoded(as: .png)
            } catch {
                self.error = "\(error)"
            }
        }

        var description: String { error ?? "\(image ?? []), \(pixels?.count ?? 0) pixel bytes, \(png?.count ?? 0) PNG bytes" }
    }

    static func both(_ name: String, _ options: DecodingOptions = DecodingOptions(),
                     _ call: (ImageSource) throws -> Image) -> (process: Outcome, inProcess: Outcome) {
        let url = Fixture.url(name)
        var isolated = options
        isolated.isolation = .process
        return (Outcome { try call(try ImageSource(url: url, options: isolated)) },
                Outcome { try call(try ImageSource(url: url, options: options.inProcess)) })
    }

    @Test("a thumbnail made in a decode worker is the one made in process, for every fixture", .timeLimit(.minutes(10)))
    func thumbnailsMatch() throws {
        #expect(Self.fixtures.count > 100)
        for name in Self.fixtures {
            let (process, inProcess) = Self.both(name) { try $0.thumbnail(maxPixelSize: 64) }
            #expect(process == inProcess, "\(name): worker \(process), in process \(inProcess)")
        }
    }

    @Test("the host's gate tells a worker whether a core is idle, and a big TIFF comes out the same either way",
          .timeLimit(.minutes(10)))
    func idleCoreCrosses() throws {
        for message in [WorkerGate.Message.enter(bytes: 123_456_789), .leave(bytes: 0)] {
            let encoded = message.encoded
            #expect(encoded.count == WorkerGate.Message.length)
            #expect(try encoded.withUnsafeBytes { try WorkerGate.Message($0) } == message)
        }
        #expect([true, false, nil].map { WorkerGate.answer(idleCore: $0) } == [1, 2, 0])
        #expect([1, 2, 0, 3, -1].map { WorkerGate.idleCore(answer: $0) } == [true, false, nil, nil, nil])
        // A worker's answer is 8 bytes; a question of another length or operation is refused.
        #expect(throws: WireReader.Malformed.self) { try [UInt8](repeating: 0, count: 8).withUnsafeBytes { try WorkerGate.Message($0) } }
        #expect(throws: WireReader.Malformed.self) { try [UInt8](repeating: 3, count: 16).withUnsafeBytes { try WorkerGate.Message($0) } }
        // 6000x4000 LZW in strips: two decoders (BandedRows) with a core to spare, one without.
        let source = try ImageSource(url: try OwnTIFFDecoderTests.large("24mp-lzw.tif"))
        let spare = try AdmissionGate.$idleCoreOverride.withValue(true) { try source.thumbnail(maxPixelSize: 300) }
        let busy = try AdmissionGate.$idleCoreOverride.withValue(false) { try source.thumbnail(maxPixelSize: 300) }
        #expect(spare.decoder == .libtiff && busy.decoder == .libtiff)
        #expect(try spare.pixels(.rgba8) == busy.pixels(.rgba8))
    }

    @Test("a decode in a worker takes its turn at this process's pixel-cache gate, beside the decodes in process",
          .timeLimit(.minutes(5)))
    func workerDecodesPassTheGate() throws {
        let source = try ImageSource(url: Fixture.url("photo.jpg"))
        #expect(source.isolatesDecodes)
        _ = try source.thumbnail(maxPixelSize: 32)  // a worker started and idle
        // A decode in process holds the gate alone (as one whose estimate fell short retries):
        // the worker's decode waits for it, and runs once it ends.
        let done = Locked<Result<Image, any Error>?>(nil), out = DispatchSemaphore(value: 0)
        let waitingBefore = AdmissionGate.shared.waitingCount
        AdmissionGate.shared.exclusive(reserving: 0) {
            Thread {
                let result = Result<Image, any Error> { try source.thumbnail(maxPixelSize: 48) }
                done.withLock { $0 = result }
                out.signal()
            }.start()
            try? waitUntil { AdmissionGate.shared.waitingCount > waitingBefore }
            Thread.sleep(forTimeInterval: 0.3)
            #expect(done.withLock { $0 } == nil, "the worker's decode ran while the gate was held")
        }
        #expect(out.passes())
        let thumb = try #require(try done.withLock { $0 }?.get())
        #expect(thumb.width == 48 && thumb.height == 36)
        Self.expectNoTurnLeft()
    }

    /// Every turn at the gate is given back: one that runs alone gets in once the decodes under
    /// way (other suites' too) are done, which a turn never given back would stop for good.
    static func expectNoTurnLeft(sourceLocation: SourceLocation = #_sourceLocation) {
        let alone = DispatchSemaphore(value: 0)
        Thread { AdmissionGate.shared.exclusive(reserving: 0) { _ = alone.signal() } }.start()
        #expect(alone.passes(), "a turn at the gate was never given back", sourceLocation: sourceLocation)
    }

    @Test("a worker waiting at the gate is stopped by its call's time limit and given no turn", .timeLimit(.minutes(5)))
    func workerGateWaitStops() throws {
        // The worker is warm (the test before left it idle), so it asks within the limit.
        let source = try ImageSource(url: Fixture.url("photo.jpg"), options: DecodingOptions(timeLimit: .seconds(1)))
        let error = AdmissionGate.shared.exclusive(reserving: 0) {
            #expect(throws: MagickIOError.self) { try source.thumbnail(maxPixelSize: 48) }
        }
        #expect(error?.kind == .cancelled && error?.limit?.name == "timeLimit", "\(String(describing: error))")
        Self.expectNoTurnLeft()
        // The next call gets a worker that answers.
        #expect(try ImageSource(url: Fixture.url("photo.jpg")).thumbnail(maxPixelSize: 48).width == 48)
    }

    @Test("metadata, colour profiles, fills and crops cross from the worker unchanged", .timeLimit(.minutes(10)),
          arguments: ["orient-6.jpg", "gps.jpg", "xmp-gps.jpg", "text.jpg", "adobe-rgb.jpg", "cmyk.jpg", "webp-icc.webp",
                      "own-gray.png", "own-rgba16.png", "tiff-grey16-tiled.tif", "tiff-rgba16-deflate.tif", "photo.jpg",
                      "heic-alpha.heic"])
    func metadataMatches(name: String) throws {
        let keep = ThumbnailOptions(colorProfile: .keep, metadata: .keepAll)
        for call: (ImageSource) throws -> Image in [
            { try $0.thumbnail(maxPixelSize: 48, options: keep) },
            { try $0.thumbnail(size: ImageSize(width: 40, height: 40), mode: .fill, options: ThumbnailOptions(crop: .attention)) },
            { try $0.image(at: 0) },
        ] {
            let (process, inProcess) = Self.both(name, DecodingOptions(), call)
            #expect(process == inProcess, "\(name): worker \(process), in process \(inProcess)")
        }
    }

    @Test("an animated thumbnail crosses from the worker with every frame, delay and the loop count",
          .timeLimit(.minutes(5)), arguments: ["anim-300.gif", "anim-dispose.gif", "anim-dispose.webp", "anim-once.gif", "animated.gif"])
    func animationMatches(name: String) throws {
        let animated = ThumbnailOptions(animated: true)
        let (process, inProcess) = Self.both(name) { try $0.thumbnail(maxPixelSize: 48, options: animated) }
        #expect(process == inProcess && process.error == nil, "\(name): worker \(process), in process \(inProcess)")
        func frames(_ options: DecodingOptions) throws -> (String, [UInt8], Data) {
            let image = try ImageSource(url: Fixture.url(name), options: options).thumbnail(maxPixelSize: 48, options: animated)
            let frames = try #require(image.animation)
            return ("\(frames.width)x\(frames.height) \(frames.delays) loop \(frames.loopCount)", frames.pixels,
                    try image.encoded(as: .gif))
        }
        let (workerFrames, inProcessFrames) = (try frames(DecodingOptions()), try frames(DecodingOptions().inProcess))
        #expect(workerFrames.0 == inProcessFrames.0, "\(name): \(workerFrames.0) against \(inProcessFrames.0)")
        #expect(workerFrames.1 == inProcessFrames.1 && workerFrames.2 == inProcessFrames.2, "\(name): the frames' pixels or GIF differ")
    }

    @Test("a decoder that crashes is corruptImage, and the next decode works", .timeLimit(.minutes(5)))
    func crash() throws {
        let source = try Fixture.source("photo.jpg")
        let error = #expect(throws: MagickIOError.self) { try DecodeWorkers.run(.misbehave(.crash), source: source, interrupt: nil) }
        #expect(error?.kind == .corruptImage && error?.message.contains("crashed") == true, "\(String(describing: error))")
        #expect(try source.thumbnail(maxPixelSize: 32).width == 32)
    }

    @Test("a worker that misuses the gate (answers holding its turn, asks without end, sends what cannot be read) is ended: corruptImage, the turn given back",
          .timeLimit(.minutes(5)), arguments: [WorkerRequest.Misbehaviour.answerHoldingTurn, .floodGate, .malformedQuestion])
    func gateMisuse(misbehaviour: WorkerRequest.Misbehaviour) throws {
        let source = try Fixture.source("photo.jpg")
        let error = #expect(throws: MagickIOError.self) { try DecodeWorkers.run(.misbehave(misbehaviour), source: source, interrupt: nil) }
        let expected = switch misbehaviour {
        case .answerHoldingTurn: "answered while it still held its turn"
        case .floodGate: "asked for the pixel cache more than 64 times"
        default: "sent a message MagickIO cannot read"
        }
        #expect(error?.kind == .corruptImage && error?.message.contains(expected) == true, "\(String(describing: error))")
        Self.expectNoTurnLeft()
        #expect(try source.thumbnail(maxPixelSize: 32).width == 32)
    }

    @Test("an idle worker that was killed meanwhile (by the OOM killer, by hand) is passed over: the next call works",
          .timeLimit(.minutes(5)))
    func idleWorkerKilled() throws {
        let source = try Fixture.source("photo.jpg")
        _ = try source.thumbnail(maxPixelSize: 32)
        let idle = DecodeWorkers.idleIDs
        #expect(!idle.isEmpty)
        for pid in idle { kill(pid, SIGKILL) }
        // Each has ended once /proc says so (a zombie, not yet reaped).
        try waitUntil {
            idle.allSatisfy { pid in
                let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                return stat.isEmpty || stat.split(separator: ")").last?.dropFirst().first == "Z"
            }
        }
        let thumb = try source.thumbnail(maxPixelSize: 48)
        #expect(thumb.width == 48 && thumb.height == 36)
    }

    @Test("a worker runs without glibc's per-thread cache of small chunks, which a zeroed heap (HeapScrub) does not reach",
          .enabled(if: !runningUnderSanitizer, "a sanitizer's allocator stands in for glibc's, whose tunable does nothing there"))
    func workerWithoutTcache() throws {
        let worker = try DecodeWorker(dataLimit: 1 << 30)
        // /proc shows an empty environment until the new program is in place (CI's Debian 13 read
        // it empty at once): read until it is there, for at most 10 s.
        var environment: [String] = []
        for _ in 0..<1000 where environment.isEmpty {
            environment = ((try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(worker.pid)/environ"))) ?? Data())
                .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if environment.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
        }
        let tunables = environment.filter { $0.hasPrefix("GLIBC_TUNABLES=") }
        // One setting, ours last, so that it wins over any the host was given.
        #expect(tunables.count == 1 && tunables[0].hasSuffix("glibc.malloc.tcache_count=0"), "\(tunables)")
        #expect(environment.contains { $0.hasPrefix("PATH=") } == (ProcessInfo.processInfo.environment["PATH"] != nil))
    }

    @Test("a decoder that allocates without bound is stopped by the kernel: limitExceeded, limit memory",
          .enabled(if: !runningUnderSanitizer, "a sanitizer's shadow memory is outside any data-segment limit, which is then not set"),
          .timeLimit(.minutes(5)))
    func memory() throws {
        let source = try ImageSource(url: Fixture.url("photo.jpg"), options: DecodingOptions(memoryBudget: 32 << 20))
        let error = #expect(throws: MagickIOError.self) { try DecodeWorkers.run(.misbehave(.exhaustMemory), source: source, interrupt: nil) }
        #expect(error?.kind == .limitExceeded && error?.limit?.name == "memory", "\(String(describing: error))")
        #expect(try source.thumbnail(maxPixelSize: 32).width == 32)
    }

    @Test("a decoder that runs past the time limit is killed: limitExceeded, limit time", .timeLimit(.minutes(5)))
    func time() throws {
        let source = try ImageSource(url: Fixture.url("photo.jpg"), options: DecodingOptions(timeLimit: .milliseconds(100)))
        let error = #expect(throws: MagickIOError.self) {
            try DecodeWorkers.run(.misbehave(.spin), source: source, interrupt: Interrupt(timeLimit: .milliseconds(100)))
        }
        #expect(error?.kind == .limitExceeded && error?.limit?.name == "time", "\(String(describing: error))")
        let again = try ImageSource(url: Fixture.url("photo.jpg"), options: DecodingOptions(timeLimit: .seconds(60)))
        #expect(try again.thumbnail(maxPixelSize: 32).width == 32)
    }

    @Test("a decoder in a worker can open no network socket, run no program and create no file (seccomp), and the next decode works",
          .timeLimit(.minutes(5)))
    func sandbox() throws {
        let source = try Fixture.source("photo.jpg")
        let error = #expect(throws: MagickIOError.self) { try DecodeWorkers.run(.misbehave(.escape), source: source, interrupt: nil) }
        #expect(error?.kind == .io)
        // ImageMagick 7's TIFF coder reads EXIF through a temporary file: its workers may create files.
        let newFile = ImageMagick.writesTemporaryFiles ? "allowed" : "EPERM"
        #expect(error?.message == "sandboxed: true; socket: EPERM; exec: EPERM; new file: \(newFile)", "\(String(describing: error))")
        #expect(try source.thumbnail(maxPixelSize: 32).width == 32)
        // In process (trusted input) nothing is filtered: the same attempts work here.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(probe >= 0, "the test process itself may open a socket")
        if probe >= 0 { close(probe) }
    }

    @Test("cancelling a call kills its worker mid-decode: cancelled", .timeLimit(.minutes(5)))
    func cancel() throws {
        let source = try Fixture.source("photo.jpg")
        let interrupt = Interrupt()
        Thread {
            Thread.sleep(forTimeInterval: 0.2)
            interrupt.cancel()
        }.start()
        let error = #expect(throws: MagickIOError.self) { try DecodeWorkers.run(.misbehave(.spin), source: source, interrupt: interrupt) }
        #expect(error?.kind == .cancelled, "\(String(describing: error))")
        #expect(try source.thumbnail(maxPixelSize: 32).width == 32)
    }

    @Test("answers of every size, one after another, are the ones made in process (a worker writes the small ones into one memory file)",
          .timeLimit(.minutes(5)))
    func answersOfEverySize() throws {
        // 64 px, then 800x600 (16-bit RGB, 2.9 MB: a file of its own), 560x420 (1.4 MB: the kept
        // file grows), an error (its answer in the kept file, over the last), 64 px again, 400x300
        // (in the kept file, past what it last held).
        let calls = [("photo.png", 64), ("photo.png", 800), ("photo.png", 560), ("png-zlib-broken.png", 64),
                     ("photo.png", 64), ("photo.png", 400)]
        for (name, size) in calls {
            let (process, inProcess) = Self.both(name) { try $0.thumbnail(maxPixelSize: size, allowUpscale: true) }
            #expect(process == inProcess && (process.error == nil) == (name == "photo.png"),
                    "\(name), \(size) px: worker \(process), in process \(inProcess)")
        }
    }

    /// A worker keeps the descriptor of the file it answers in; were the file's size not sealed, a
    /// worker taken over by a hostile file could cut it while its host reads the mapping.
    @Test("an answer is read only from a memory file whose size the worker sealed")
    func sealedAnswers() throws {
        let header = WorkerResponse.failure(MagickIOError(.unsupportedFormat, "the worker's own words")).encoded()
        let answer = try #require(Worker.AnswerFile.take(Worker.AnswerFile.reused + 1))
        defer { answer.done() }
        header.withUnsafeBytes { answer.bytes.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        #expect(ftruncate(answer.descriptor, 4096) != 0 && errno == EPERM, "the answer file can be cut")
        let read = try DecodeWorkers.read(answer.descriptor, headerLength: header.count, most: 1 << 30)
        guard case .failure(let error) = read else { Issue.record("an image from a failure's answer"); return }
        #expect(error.kind == .unsupportedFormat && error.message == "the worker's own words")

        let unsealed = try MemoryFile.make("unsealed-answer", head: header, then: .memory(Data()))
        defer { close(unsealed) }
        let refused = #expect(throws: MagickIOError.self) { try DecodeWorkers.read(unsealed, headerLength: header.count, most: 1 << 30) }
        #expect(refused?.kind == .corruptImage && refused?.message.contains("cannot read") == true)
    }

    /// The host copies an animation's frames into its own memory: a worker cannot make it take
    /// more than the worker itself could have held.
    @Test("an answer's animation frames are read up to the worker's data limit, and refused past it")
    func animationAnswerBound() throws {
        let made = try ImageSource(data: Fixture.data("photo.png"), options: DecodingOptions().inProcess).thumbnail(maxPixelSize: 32)
        var snapshot = try made.storage.reading { ImageSnapshot($0) }
        snapshot.animation = ImageSnapshot.Animation(width: 100, height: 100, loopCount: 0, delays: [0, 0])
        var response = WorkerResponse.image(snapshot, orientation: .up, warnings: [], decoder: .imageMagick, cropRect: nil)
        snapshot.pixelOffset = (response.encoded().count + 4095) & ~4095
        let framesOffset = (snapshot.pixelOffset + snapshot.pixelBytes + 4095) & ~4095
        snapshot.animation?.offset = framesOffset
        response = .image(snapshot, orientation: .up, warnings: [], decoder: .imageMagick, cropRect: nil)
        let header = response.encoded()
        let frames = try #require(snapshot.animation)
        #expect(frames.bytes == 80_000)
        let answer = try #require(Worker.AnswerFile.take(frames.offset + frames.bytes))
        defer { answer.done() }
        header.withUnsafeBytes { answer.bytes.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        try made.storage.reading { wand throws(MagickIOError) in try snapshot.exportPixels(wand, into: answer.bytes + snapshot.pixelOffset) }

        let read = try DecodeWorkers.read(answer.descriptor, headerLength: header.count, most: frames.bytes)
        guard case .success(let image) = read else { Issue.record("no image: \(read)"); return }
        #expect(image.width == 32 && image.height == 24 && image.animation?.pixels.count == frames.bytes)
        let refused = #expect(throws: MagickIOError.self) {
            try DecodeWorkers.read(answer.descriptor, headerLength: header.count, most: frames.bytes - 1)
        }
        #expect(refused?.kind == .corruptImage)
    }

    @Test("an in-memory source decodes in a worker as it does in process")
    func memorySource() throws {
        let data = try Fixture.data("orient-6.jpg")
        let process = Outcome { try ImageSource(data: data).thumbnail(maxPixelSize: 40) }
        let inProcess = Outcome { try ImageSource(data: data, options: DecodingOptions().inProcess).thumbnail(maxPixelSize: 40) }
        #expect(process == inProcess && process.error == nil, "\(process) against \(inProcess)")
    }
}
