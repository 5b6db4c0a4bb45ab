import Foundation
import Testing
@testable import MagickIO

/// ImageMagick's pixel cache is one pool for the whole process: decodes that each fit alone must
/// not fail together, and the thumbnailer's budget must agree with the pool's limit.
@Suite("Parallel decoding", .serialized)
struct ParallelDecodingTests {
    struct Line: Decodable {
        var input: String
        var width: Int?
        var height: Int?
        var error: [String: String]?
    }

    /// Five copies of the phone HEIC (12 MP, ~200 MiB to decode) in a folder of their own.
    static func phoneFolder() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory("phone-heics")
        for index in 1...5 {
            try FileManager.default.copyItem(at: Fixture.url("phone-12mp.heic"), to: folder.url.appendingPathComponent("phone-\(index).heic"))
        }
        return folder
    }

    @Test("phone HEICs thumbnail at --jobs 2 and --jobs 4, every one upright", .timeLimit(.minutes(10)),
          arguments: [2, 4])
    func phoneHEICsInParallel(jobs: Int) throws {
        let folder = try Self.phoneFolder()
        let output = folder.url.appendingPathComponent("out")
        let run = try runChild(try builtProduct("thumbnail"),
                               [folder.url.path, "--jobs", "\(jobs)", "--json", "--output", output.path, "--format", "png",
                                "--time-limit", "0"],
                               timeout: .seconds(600))
        let lines = try String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Line.self, from: Data($0.utf8))
        }
        #expect(run.status == 0, "\(lines)")
        #expect(lines.count == 5)
        for line in lines {
            #expect(line.error == nil, "\(line.input): \(line.error ?? [:])")
            #expect(line.width == 256 && line.height == 192)
        }
        for index in 1...5 {
            try expectUprightQuadrants(try ImageSource(url: output.appendingPathComponent("phone-\(index).png")).image(at: 0))
        }
    }

    @Test("--embedded if-absent serves a phone HEIC from its thumbnail item", .timeLimit(.minutes(10)))
    func embeddedFlag() throws {
        let folder = try Self.phoneFolder()
        let output = folder.url.appendingPathComponent("out")
        let run = try runChild(try builtProduct("thumbnail"),
                               [folder.url.appendingPathComponent("phone-1.heic").path, "--embedded", "if-absent",
                                "--json", "--output", output.path, "--format", "png",
                                "--time-limit", "0"],
                               timeout: .seconds(600))
        #expect(run.status == 0)
        let thumbnail = try ImageSource(url: output.appendingPathComponent("phone-1.png")).image(at: 0).pixels(.rgba8)
        #expect(thumbnail.width == 256 && thumbnail.height == 192)
        let topLeft = thumbnail.rgba(x: 64, y: 48)
        #expect(topLeft.r > 200 && topLeft.b > 200 && topLeft.g < 60, "magenta: the item, not the picture: \(topLeft)")
    }

    @Test("independent calls at once never fail where one alone succeeds: four plain calls and two handlers sharing a Thumbnailer, 24 MP -> 4096",
          .timeLimit(.minutes(10)))
    func independentCallsAtOnce() throws {
        // Each 4096-px thumbnail is 11 MP: about 90 MB of ImageMagick's 256 MiB pool for the picture
        // and as much for a copy while it is built, held again while the caller encodes it. In a
        // process of its own, so that no other test's images share the pool.
        let input = try LargeImages.cached("24mp.jpg") {
            try LargeImages.writeJPEG(to: $0, width: 6000, height: 4000)
        }
        let run = try runChild(try builtProduct("StressRunner"), ["independent", input.path, "4096"], timeout: .seconds(600))
        #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
        let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        #expect(report["succeeded"] as? Int == 12, "\(report["errors"] ?? [])")
    }

    @Test("a Thumbnailer finishes every phone HEIC; with a budget one of them exceeds, each fails at once as limitExceeded",
          .timeLimit(.minutes(10)))
    func thumbnailerBudget() async throws {
        let folder = try Self.phoneFolder()
        let urls = (1...5).map { folder.url.appendingPathComponent("phone-\($0).heic") }
        var done = 0
        for await result in Thumbnailer(maxConcurrentJobs: 4).thumbnails(of: urls, maxPixelSize: 128) {
            let image = try result.result.get()
            #expect(image.width == 128 && image.height == 96)
            done += 1
        }
        #expect(done == 5)
        for await result in Thumbnailer(maxConcurrentJobs: 4, memoryBudget: 64 << 20).thumbnails(of: urls, maxPixelSize: 128) {
            guard case .failure(let error) = result.result else {
                Issue.record("a 12 MP HEIC thumbnailed under a 64 MiB budget (libheif alone holds 4.5 bytes a pixel of it)")
                continue
            }
            #expect(error.kind == .limitExceeded)
        }
    }

    @Test("thumbnail --memory-budget governs a batch: above ImageMagick's pool, a job that needs more than the pool but not in it runs",
          .timeLimit(.minutes(10)))
    func budgetNotClampedToThePool() throws {
        // 100 MP progressive: about 300 MB of DCT coefficients in libjpeg, whatever the scale, and
        // only the thumbnail in ImageMagick's pool (256 MiB). In a child: its 300 MB must not raise
        // this process's peak, which other tests' children are measured against.
        let input = try LargeImages.cached("100mp-progressive.jpg") {
            try LargeImages.writeJPEG(to: $0, width: 10_000, height: 10_000, quality: 90, progressive: true)
        }
        let cost = try ImageSource(url: input, options: DecodingOptions(memoryBudget: 1 << 30))
            .thumbnailCost(.maxPixelSize(256), at: 0, allowUpscale: false)
        #expect(cost > MagickCache.limit, "\(cost >> 20) MiB against a pool of \(MagickCache.limit >> 20) MiB")
        let folder = try TemporaryDirectory("budget-not-clamped")
        func run(budget: Int) throws -> Line {
            let run = try runChild(try builtProduct("thumbnail"),
                                   [input.path, "--memory-budget", "\(budget)", "--json", "--output", folder.url.path, "--time-limit", "0"],
                                   timeout: .seconds(600))
            return try JSONDecoder().decode(Line.self, from: Data(try #require(run.stdoutText.split(separator: "\n").first).utf8))
        }
        let admitted = try run(budget: 1024)
        #expect(admitted.error == nil && admitted.width == 256 && admitted.height == 256, "\(admitted)")
        let refused = try run(budget: 256)
        #expect(refused.error?["kind"] == "limitExceeded", "\(refused)")
        #expect(refused.error?["message"]?.contains("memoryBudget") == true, "\(refused)")
    }

    @Test("running out of ImageMagick's pixel cache is limitExceeded, never corruptImage",
          .enabled(if: !runningUnderSanitizer, "a sanitizer's allocator and leak report change what the child prints"),
          .timeLimit(.minutes(10)))
    func exhaustionIsLimitExceeded() throws {
        // In a process of its own: the images it holds fill the pool for everything else. RGBA, so
        // that each takes 8 bytes a pixel in both lines' Q16 caches (ImageMagick 7 keeps only the
        // channels an image has: an RGB image would take 6, and three would fit).
        let input = try LargeImages.cached("12mp-rgba.png") { try LargeImages.writePNG(to: $0, width: 4000, height: 3000, alpha: true) }
        let run = try runChild(try builtProduct("DecodeProbe"), [input.path, "hold"], timeout: .seconds(600))
        struct Outcomes: Decodable { var outcomes: [String] }
        let outcomes = try JSONDecoder().decode(Outcomes.self, from: run.stdout).outcomes
        #expect(outcomes == ["4000", "4000", "limitExceeded"], "93 MiB each in a 256 MiB pool")
    }

    @Test("decodes that each fit in ImageMagick's pixel cache but not all at once all succeed, from many threads",
          .timeLimit(.minutes(10)))
    func poolExhaustionRetriedAlone() throws {
        // Four threads decoding a 12 MP PNG at once: 93 MiB of cache each, 372 MiB together
        // against a 256 MiB pool. (Threads of their own: a dispatch queue would run two at a time.)
        let input = try LargeImages.cached("12mp.png") { try LargeImages.writePNG(to: $0, width: 4000, height: 3000) }
        let source = try ImageSource(url: input, options: DecodingOptions(memoryBudget: 1 << 30))
        let widths = Locked<[Int]>([])
        let errors = Locked<[MagickIOError]>([])
        let group = DispatchGroup()
        let ready = DispatchSemaphore(value: 0), start = DispatchSemaphore(value: 0)
        for _ in 0..<4 {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                ready.signal()
                start.wait()
                do {
                    let image = try source.thumbnail(maxPixelSize: 256)
                    widths.withLock { $0.append(image.width) }
                } catch {
                    errors.withLock { $0.append(error as? MagickIOError ?? MagickIOError(.io, "\(error)")) }
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        for _ in 0..<4 { ready.wait() }
        for _ in 0..<4 { start.signal() }
        group.wait()
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0 })")
        #expect(widths.withLock { $0 } == Array(repeating: 256, count: 4))
    }

    @Test("phone HEICs thumbnailed on eight threads at once all succeed, and give back every byte of the pixel cache",
          .timeLimit(.minutes(10)))
    func heicPoolGivenBack() throws {
        // In a process of its own, so that the pool's count is the probe's alone; each thumbnail
        // decoded whole into the pool (the streamed path would put only the thumbnail there).
        // ImageMagick's HEIC coder took 186 MiB of a 256 MiB pool at its peak for this file, and
        // when the pool could not take it, lost the image's first 93 MiB for good: after two such
        // failures every later decode failed (seen in CI). Three runs: the failure depended on
        // timing.
        struct Probe: Decodable { var outcomes: [String]; var cacheBefore: Int; var cacheAfter: Int }
        for _ in 0..<3 {
            let run = try runChild(try builtProduct("DecodeProbe"), [Fixture.url("phone-12mp.heic").path, "parallel", "8"],
                                   timeout: .seconds(600))
            guard let probe = try? JSONDecoder().decode(Probe.self, from: run.stdout) else {
                Issue.record("the probe exited with \(run.status): \(String(decoding: run.stdout, as: UTF8.self)) \(String(decoding: run.stderr.suffix(2000), as: UTF8.self))")
                return
            }
            #expect(probe.outcomes == Array(repeating: "256", count: 8))
            #expect(probe.cacheAfter == probe.cacheBefore, "\(probe.cacheAfter - probe.cacheBefore) bytes of ImageMagick's pool lost")
        }
    }

    @Test("the cache gate runs decodes side by side only while their reservations and what is held outside fit the pool")
    func gateAdmission() throws {
        // A pool of 256 units with 40 held outside the gate: a 100-unit decode runs beside another
        // (240 in all); a 200-unit one waits until the pool is its own.
        let gate = AdmissionGate(pool: { (inUse: 40, limit: 256) })
        let releaseFirst = try Self.holdOpen(gate, reserving: 100)

        let secondIn = DispatchSemaphore(value: 0), secondOut = DispatchSemaphore(value: 0)
        Thread {
            gate.shared(reserving: 100) { _ = secondIn.signal() }
            secondOut.signal()
        }.start()
        #expect(secondIn.passes(), "a second 100-unit decode fits beside the first")
        #expect(secondOut.passes())

        try Self.expectWaits(gate, reserving: 200, until: releaseFirst,
                             "a 200-unit decode must not start beside a running 100-unit one",
                             whileWaiting: { #expect(gate.reservedBytes == 100) })
        #expect(gate.runningCount == 0 && gate.reservedBytes == 0)
    }

    @Test("images held outside the gate count even while a running decode has not allocated yet")
    func gateCountsHeldImages() throws {
        // 100 units held by a caller when the first decode starts, which then takes nothing yet:
        // the pool's use equals its reservation, yet a second 100-unit decode must wait (300).
        let gate = AdmissionGate(pool: { (inUse: 100, limit: 256) })
        let releaseFirst = try Self.holdOpen(gate, reserving: 100)
        try Self.expectWaits(gate, reserving: 100, until: releaseFirst, "100 held + 100 reserved + 100 asked is over 256")
    }

    /// Starts a decode reserving `bytes` that stays inside `gate` until the returned semaphore is
    /// signalled; returns once it is inside.
    static func holdOpen(_ gate: AdmissionGate, reserving bytes: Int) throws -> DispatchSemaphore {
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        Thread { gate.shared(reserving: bytes) { _ = inside.signal(); release.wait() } }.start()
        #expect(inside.passes())
        return release
    }

    /// Expects a decode reserving `bytes` to wait in `gate` (checked once it is queued, with
    /// `whileWaiting` run then), and to run once `release` lets the one held open finish.
    static func expectWaits(_ gate: AdmissionGate, reserving bytes: Int, until release: DispatchSemaphore,
                            _ why: Comment, whileWaiting: () -> Void = {},
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ran = Locked(false), out = DispatchSemaphore(value: 0)
        Thread {
            gate.shared(reserving: bytes) { ran.withLock { $0 = true } }
            out.signal()
        }.start()
        try waitUntil { gate.waitingCount == 1 }
        #expect(!ran.withLock { $0 }, why, sourceLocation: sourceLocation)
        whileWaiting()
        release.signal()
        #expect(out.passes(), "released, it runs", sourceLocation: sourceLocation)
        #expect(ran.withLock { $0 }, sourceLocation: sourceLocation)
    }

    @Test("a decode bigger than the pool's free part still runs when it is alone and nothing held is given back")
    func gateAlone() {
        let gate = AdmissionGate(pool: { (inUse: 250, limit: 256) }, heldImagesPatience: .milliseconds(50))
        #expect(gate.shared(reserving: 1 << 30) { 7 } == 7)
        #expect(gate.exclusive(reserving: 1 << 30) { 8 } == 8)
    }

    @Test("with no decode running, a decode that does not fit beside held images waits until they are given back")
    func gateWaitsForHeldImages() throws {
        // 200 units held by a caller (a result not yet encoded): a 100-unit decode waits, however
        // long, while the holder keeps giving images back; once the pool has room it runs.
        let held = Locked(200)
        let gate = AdmissionGate(pool: { (inUse: held.withLock { $0 }, limit: 256) }, heldImagesPatience: .seconds(600))
        let ran = Locked(false), out = DispatchSemaphore(value: 0)
        Thread {
            gate.shared(reserving: 100) { ran.withLock { $0 = true } }
            out.signal()
        }.start()
        try waitUntil { gate.waitingCount == 1 }
        gate.poolChanged()  // something given back, but not enough
        #expect(!ran.withLock { $0 }, "200 held + 100 asked is over 256")
        held.withLock { $0 = 100 }
        gate.poolChanged()
        #expect(out.passes(), "given back, it runs")
        #expect(ran.withLock { $0 })
    }

    @Test("one gate lets waiting threads and waiting tasks in by one queue, in the order they asked",
          .timeLimit(.minutes(10)))
    func gateServesThreadsAndTasksInOrder() async throws {
        // A budget of one place, held by a thread: a task, a thread and a task queue behind it, and
        // each goes in only when the one before it has left.
        let gate = AdmissionGate(places: 1, bytes: 100)
        let release = try Self.holdOpen(gate, reserving: 10)
        let order = Locked<[String]>([])
        let first = Task {
            try await gate.enter(cost: 10)
            order.withLock { $0.append("task 1") }
            gate.leave(cost: 10)
        }
        try await waitUntil { gate.waitingCount == 1 }
        let threadOut = DispatchSemaphore(value: 0)
        Thread {
            gate.shared(reserving: 10) { order.withLock { $0.append("thread") } }
            threadOut.signal()
        }.start()
        try await waitUntil { gate.waitingCount == 2 }
        let second = Task {
            try await gate.enter(cost: 10)
            order.withLock { $0.append("task 2") }
            gate.leave(cost: 10)
        }
        try await waitUntil { gate.waitingCount == 3 }
        #expect(order.withLock { $0 }.isEmpty, "nothing goes in while the one place is held")
        release.signal()
        try await first.value
        try await second.value
        #expect(threadOut.passes())
        #expect(order.withLock { $0 } == ["task 1", "thread", "task 2"])
        #expect(gate.runningCount == 0 && gate.waitingCount == 0 && gate.reservedBytes == 0)
    }

    @Test("a task cancelled at the head of the queue lets the one behind it in at once", .timeLimit(.minutes(10)))
    func gateCancelledHeadLetsNextIn() async throws {
        // 50 of 100 bytes under way: a 60-byte job waits, and a 10-byte one, which would fit,
        // waits behind it (first come, first served) until it is cancelled.
        let gate = AdmissionGate(places: 4, bytes: 100)
        try await gate.enter(cost: 50)
        let big = Task { try await gate.enter(cost: 60) }
        try await waitUntil { gate.waitingTaskCount == 1 }
        let small = Task { try await gate.enter(cost: 10) }
        try await waitUntil { gate.waitingTaskCount == 2 }  // both wait, not only hold a ticket
        #expect(gate.runningCount == 1, "the 10-byte job waits behind the 60-byte one")
        big.cancel()
        let error = await #expect(throws: MagickIOError.self) { try await big.value }
        #expect(error?.kind == .cancelled)
        try await small.value
        #expect(gate.runningCount == 2 && gate.waitingCount == 0 && gate.reservedBytes == 60)
        gate.leave(cost: 10)
        gate.leave(cost: 50)
        #expect(gate.runningCount == 0 && gate.reservedBytes == 0)
    }

    @Test("many tasks and threads at one budget, some cancelled: the budget and the places always hold, and every one that was not cancelled gets in",
          .timeLimit(.minutes(10)))
    func gateUnderLoad() async throws {
        let gate = AdmissionGate(places: 3, bytes: 100)
        let inside = Locked<(count: Int, bytes: Int, peakCount: Int, peakBytes: Int)>((0, 0, 0, 0))
        let admitted = Locked(0), cancelled = Locked(0)
        @Sendable func work(_ cost: Int) {
            inside.withLock {
                $0.count += 1
                $0.bytes += cost
                $0.peakCount = max($0.peakCount, $0.count)
                $0.peakBytes = max($0.peakBytes, $0.bytes)
            }
            usleep(UInt32(200 + cost * 10))
            inside.withLock {
                $0.count -= 1
                $0.bytes -= cost
            }
            admitted.withLock { $0 += 1 }
        }
        var generator = SystemRandomNumberGenerator()
        let costs = (0..<300).map { _ in Int.random(in: 0...100, using: &generator) }
        let threadsDone = DispatchGroup()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, cost) in costs.enumerated() {
                if number % 5 == 0 {
                    // A thread among the tasks, in the same queue.
                    threadsDone.enter()
                    Thread {
                        gate.shared(reserving: cost) { work(cost) }
                        threadsDone.leave()
                    }.start()
                    continue
                }
                let task = Task {
                    do throws(MagickIOError) {
                        try await gate.enter(cost: cost)
                    } catch {
                        #expect(error.kind == .cancelled)
                        cancelled.withLock { $0 += 1 }
                        return
                    }
                    work(cost)
                    gate.leave(cost: cost)
                }
                if number % 7 == 0 { task.cancel() }
                group.addTask { await task.value }
            }
            try await group.waitForAll()
        }
        threadsDone.wait()
        let seen = inside.withLock { $0 }
        #expect(seen.peakCount <= 3 && seen.peakBytes <= 100, "at most 3 places and 100 bytes: \(seen)")
        #expect(admitted.withLock { $0 } + cancelled.withLock { $0 } == costs.count)
        #expect(gate.runningCount == 0 && gate.waitingCount == 0 && gate.reservedBytes == 0 && gate.waitingTaskCount == 0)
    }

    @Test("a decode waiting for the pool stops when its interrupt does, and leaves the queue")
    func gateWaitStops() throws {
        let gate = AdmissionGate(pool: { (inUse: 200, limit: 256) }, heldImagesPatience: .seconds(600))
        let interrupt = Interrupt()
        let outcome = Locked<MagickIOError?>(nil), out = DispatchSemaphore(value: 0)
        Thread {
            do throws(MagickIOError) {
                _ = try gate.admitting(100, interrupt: interrupt) { (_: Bool) throws(MagickIOError) in Issue.record("it ran") }
            } catch {
                outcome.withLock { $0 = error }
            }
            out.signal()
        }.start()
        try waitUntil { gate.waitingCount == 1 }
        interrupt.cancel()
        #expect(out.passes())
        #expect(outcome.withLock { $0 }?.kind == .cancelled)
        #expect(gate.waitingCount == 0 && gate.runningCount == 0)
    }
}
