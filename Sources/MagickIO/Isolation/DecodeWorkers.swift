internal import CWorker
import Foundation

/// One decode worker: a process started from this program's own executable (see ``Worker``),
/// its socket, and the data-segment limit the kernel holds it to.
/// `@unchecked Sendable`: its process, socket and limit are set when it starts and never change;
/// one call uses it at a time, and only that call (or its end, `deinit`) reaps it.
final class DecodeWorker: @unchecked Sendable {
    let pid: pid_t
    let socket: Int32
    /// RLIMIT_DATA's hard limit, set when it started: a request that needs more gets a new worker
    /// (a process cannot raise its own hard limit, and neither can its host without privileges).
    let dataLimit: Int
    /// Its wait status once reaped: its pid is then no longer its own, and is never signalled again.
    private var status: Int32?

    init(dataLimit: Int) throws(MagickIOError) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw MagickIOError.errno("cannot make a decode worker's socket")
        }
        let pid = mio_worker_spawn(pair[1])
        close(pair[1])
        guard pid > 0 else {
            close(pair[0])
            throw MagickIOError.errno("cannot start a decode worker")
        }
        self.pid = pid
        socket = pair[0]
        self.dataLimit = dataLimit
        if !Self.underSanitizer {
            mio_worker_limit(pid, UInt64(dataLimit), 0)
        }
    }

    /// A sanitizer's shadow memory counts in the data segment: under one, no limit is set (the
    /// sanitizer runs test the workers' other walls; the plain run tests this one).
    static let underSanitizer = mio_under_sanitizer() != 0

    /// Ends the worker now, whatever it is doing (its end is reaped by whoever waits for it).
    func kill() {
        if status == nil { Glibc.kill(pid, SIGKILL) }
    }

    /// Whether the worker has not ended (an idle one may have been killed meanwhile, by the
    /// kernel's OOM killer or by hand); one that has is reaped.
    var isAlive: Bool {
        guard status == nil else { return false }
        var ended: Int32 = 0
        guard waitpid(pid, &ended, WNOHANG) == pid else { return true }
        status = ended
        return false
    }

    /// Waits for the worker's end and gives its wait status (the same again on later calls).
    func reap() -> Int32 {
        if let status { return status }
        var ended: Int32 = 0
        while waitpid(pid, &ended, 0) < 0, errno == EINTR {}
        status = ended
        return ended
    }

    deinit {
        close(socket)  // an idle worker ends at the end of its stream
        kill()
        _ = reap()
    }
}

/// The decode workers MagickIO keeps (``Isolation/process``): started when a decode needs one and
/// none is idle, reused, and replaced when one dies or is killed. A decode takes an idle worker, or
/// starts one; so the number running follows the decodes running (a ``Thumbnailer``'s places), and
/// their decoders take their turns at this process's gate (``WorkerGate``).
enum DecodeWorkers {
    private static let idle = Locked<[DecodeWorker]>([])
    /// Idle workers kept for the next decodes; more than this end when their decode is done.
    static let keptIdle = max(ProcessInfo.processInfo.activeProcessorCount, 2)
    /// What a worker's data segment holds before it decodes anything (the Swift runtime,
    /// ImageMagick, the codecs, its threads' stacks), on top of which its decode's budget goes.
    static let baseline = 192 << 20
    /// How long past the time limit a worker may run before it is killed: the worker stops itself
    /// at its time limit between rows; this is for the work that cannot be stopped there.
    static let grace: Duration = .seconds(1)
    /// How often a waiting host looks at cancellation and at the worker's memory.
    private static let tick: Int32 = 20

    /// Runs `request` on `source`'s bytes in a worker and returns the image it made, or the error
    /// it threw, or what its end means (see ``Isolation``).
    static func run(_ operation: WorkerRequest.Operation, source: ImageSource, interrupt: Interrupt?) throws(MagickIOError) -> Image {
        let options = source.decodingOptions
        let dataLimit = baseline.saturatingPlus(options.memoryBudget)
        let worker = try take(dataLimit: dataLimit)
        var returned = false
        defer { if returned { give(worker) } }

        let (descriptor, fromMemory, path) = try describe(source.bytes)
        defer { if fromMemory { close(descriptor) } }
        var timeLeft: Int?
        if let limit = options.timeLimit {
            let elapsed = interrupt?.elapsed ?? .zero
            timeLeft = WorkerRequest.nanoseconds(max(limit - elapsed, .zero))
        }
        var request = WorkerRequest(operation: operation, decoding: options, fromMemory: fromMemory, path: path, timeLeft: timeLeft)
        request.pngChunks = source.index?.png?.runs(most: WorkerRequest.maxPNGRuns).map { ($0.runs, $0.end, source.bytes.count) }
        let message = request.encoded()
        guard message.withUnsafeBytes({ mio_worker_send(worker.socket, $0.baseAddress, $0.count, descriptor) }) == 0 else {
            // Ended already, almost surely (its end is what it was); a signal to a process not yet
            // reaped changes no status, and keeps the wait below from lasting for one still alive.
            worker.kill()
            throw ended(worker, limit: dataLimit, peak: 0)
        }
        // The worker's turns at this process's gate, given back however the call ends.
        var held = WorkerGate.Held(AdmissionGate.shared, most: max(options.memoryBudget, MagickCache.limit))
        let deadline = timeLeft.map { ContinuousClock.now + .nanoseconds($0) + grace }
        var peak = 0
        var lastLook: ContinuousClock.Instant?  // none yet: the first message is looked after
        var length: Int64 = 0
        var answer: Int32 = -1
        while true {
            var poll = pollfd(fd: worker.socket, events: Int16(POLLIN), revents: 0)
            let message = Glibc.poll(&poll, 1, tick) > 0
            if message {
                // The answer (its length, with the memory file), or a question for the gate.
                var received = [UInt8](repeating: 0, count: WorkerGate.Message.length)
                let count = received.withUnsafeMutableBytes { mio_worker_receive(worker.socket, $0.baseAddress, $0.count, &answer) }
                // The worker ended (crashed, or was stopped for memory) before it answered.
                if count == 0 { throw ended(worker, limit: dataLimit, peak: peak) }
                do throws(MagickIOError) {
                    if count == 8, answer >= 0 {
                        try held.answered()
                        length = received.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
                        break
                    }
                    guard count == WorkerGate.Message.length, answer < 0,
                          let question = try? received.withUnsafeBytes({ try WorkerGate.Message($0) }) else {
                        throw MagickIOError(.corruptImage, "the decoder sent a message MagickIO cannot read")
                    }
                    try held.serve(question, worker: worker, interrupt: interrupt)
                } catch {
                    if answer >= 0 { close(answer) }
                    worker.kill()
                    throw error
                }
            }
            // The time limit and cancellation are looked at after each message too (a worker that
            // keeps asking cannot outrun its limits); its data segment (`/proc`, some 20 us a look)
            // once a tick, however many messages come.
            let now = ContinuousClock.now
            if !message || lastLook.map({ now - $0 >= .milliseconds(tick) }) ?? true {
                peak = max(peak, Int(mio_data_segment(worker.pid)))
                lastLook = now
            }
            if let deadline, now > deadline, let limit = options.timeLimit {
                worker.kill()
                throw MagickIOError(.limitExceeded, "the decoder ran past the time limit of \(WorkerRequest.nanoseconds(limit) / 1_000_000) ms and was stopped",
                                    limit: .init(name: "time", requested: WorkerRequest.nanoseconds(limit + grace) / 1_000_000,
                                                 limit: WorkerRequest.nanoseconds(limit) / 1_000_000))
            }
            if case .cancelled = interrupt?.stopReason {
                worker.kill()
                throw MagickIOError(.cancelled, "the operation was cancelled")
            }
        }
        defer { close(answer) }
        let image = try read(answer, headerLength: Int(Int64(littleEndian: length)), most: dataLimit)
        returned = true
        return try image.get()
    }

    /// At the program's exit, the idle workers end and are reaped, so that what they used counts in
    /// the program's own resource usage (a parent's `wait4`, `/usr/bin/time`), as a decode in
    /// process would.
    private static let endsAtExit: Void = {
        atexit { DecodeWorkers.endIdle() }
    }()

    static func endIdle() {
        let workers = idle.withLock { workers in
            defer { workers.removeAll() }
            return workers
        }
        _ = workers  // each ends and is reaped as it goes (DecodeWorker.deinit)
    }

    /// An idle worker whose limit is `dataLimit`, or a new one.
    private static func take(dataLimit: Int) throws(MagickIOError) -> DecodeWorker {
        endsAtExit
        while let found = idle.withLock({ workers -> DecodeWorker? in
            guard let index = workers.lastIndex(where: { $0.dataLimit == dataLimit }) else { return nil }
            return workers.remove(at: index)
        }) {
            // One that ended while it was idle is dropped (and reaped), not given the call.
            if found.isAlive { return found }
        }
        return try DecodeWorker(dataLimit: dataLimit)
    }

    /// The idle workers' process IDs (tests).
    static var idleIDs: [pid_t] {
        idle.withLock { $0.map(\.pid) }
    }

    private static func give(_ worker: DecodeWorker) {
        idle.withLock { workers in
            if workers.count >= keptIdle { workers.removeFirst() }
            workers.append(worker)
        }
    }

    /// The descriptor the worker reads: a file source's own, or a memory file holding an
    /// in-memory source's bytes (closed by the caller).
    private static func describe(_ bytes: SourceBytes) throws(MagickIOError) -> (Int32, fromMemory: Bool, path: String) {
        switch bytes {
        case .file(let file):
            return (file.descriptor, false, file.path)
        case .memory:
            let file = try MemoryFile.make("magickio-source", then: bytes)
            return (file, true, "")
        }
    }

    /// Why a worker that did not answer ended: stopped for memory (it said so as it crashed, see
    /// `mio_worker_handle_crashes`; or the kernel's OOM killer ended it; or its data segment was
    /// seen at its limit), or crashed on the file. Reaps it.
    private static func ended(_ worker: DecodeWorker, limit: Int, peak: Int) -> MagickIOError {
        let status = worker.reap()
        let signal = status & 0x7F, exitStatus = status >> 8 & 0xFF
        if (signal == 0 && exitStatus == MIO_WORKER_EXIT_MEMORY) || signal == SIGKILL || peak >= limit / 10 * 9 {
            return MagickIOError(.limitExceeded, "the decoder needed more memory than its limit of \(limit >> 20) MiB and was stopped",
                                 limit: .init(name: "memory", requested: limit, limit: limit))
        }
        return MagickIOError(.corruptImage, "the decoder crashed on this file (\(signal != 0 ? "signal \(signal)" : "exit \(exitStatus)"))")
    }

    /// The most pixel bytes of an answer kept as the worker gave them (``Image/Storage``), outside
    /// ImageMagick's pixel cache until something needs it: a 1024 px square RGB thumbnail's 16-bit
    /// pixels (6 MiB); a larger image is made into a wand when it arrives.
    static let keptAnswerBytes = 6 << 20

    /// The answer in the memory file `file`: the error, or the image, kept as the worker gave it
    /// when it is small (``keptAnswerBytes``) and else made again here from its pixels (or why it
    /// could not be). Throws only for an answer that cannot be read: the
    /// worker that gave it is not used again. A file whose size is not sealed is not mapped: the
    /// worker keeps its descriptor and could cut it as this process reads (SIGBUS here). An
    /// animation's frames, copied into this process's memory, are refused past `most` bytes (the
    /// worker's own data limit: a worker that held them had no more).
    static func read(_ file: Int32, headerLength: Int, most: Int) throws(MagickIOError) -> Result<Image, MagickIOError> {
        var status = stat()
        let malformed = MagickIOError(.corruptImage, "the decoder gave an answer MagickIO cannot read")
        guard mio_size_sealed(file) != 0, fstat(file, &status) == 0, headerLength > 0, headerLength <= Int(status.st_size) else {
            throw malformed
        }
        let size = Int(status.st_size)
        guard let mapped = mmap(nil, size, PROT_READ, MAP_SHARED, file, 0), mapped != MAP_FAILED else { throw malformed }
        defer { munmap(mapped, size) }
        let response: WorkerResponse
        do {
            response = try WorkerResponse(UnsafeRawBufferPointer(start: mapped, count: headerLength))
        } catch {
            throw malformed
        }
        switch response {
        case .failure(let error):
            return .failure(error)
        case let .image(snapshot, orientation, warnings, decoder, cropRect):
            guard snapshot.pixelOffset >= headerLength, snapshot.pixelBytes <= size - snapshot.pixelOffset else { throw malformed }
            var frames: AnimationFrames?
            if let animation = snapshot.animation {
                let start = snapshot.pixelOffset + snapshot.pixelBytes
                guard animation.offset >= start, animation.offset <= size, animation.bytes <= size - animation.offset,
                      animation.bytes <= most else { throw malformed }
                // Read, not touched through the mapping: only the frames' own copy is this process's memory.
                let pixels = try [UInt8](unsafeUninitializedCapacity: animation.bytes) { buffer, count throws(MagickIOError) in
                    guard pread(file, buffer.baseAddress, animation.bytes, off_t(animation.offset)) == animation.bytes else { throw malformed }
                    count = animation.bytes
                }
                frames = AnimationFrames(width: animation.width, height: animation.height, pixels: pixels,
                                         delays: animation.delays.map { .nanoseconds($0) }, loopCount: animation.loopCount)
            }
            // A thumbnail-sized image stays the worker's snapshot and pixels until something needs
            // ImageMagick (``Image/Storage``): a JPEG of it is written without making it again here.
            if snapshot.pixelBytes <= keptAnswerBytes {
                let pixels = try [UInt8](unsafeUninitializedCapacity: snapshot.pixelBytes) { buffer, count throws(MagickIOError) in
                    guard pread(file, buffer.baseAddress, snapshot.pixelBytes, off_t(snapshot.pixelOffset)) == snapshot.pixelBytes else {
                        throw malformed
                    }
                    count = snapshot.pixelBytes
                }
                var image = Image(answer: snapshot, pixels: pixels, orientation: orientation, warnings: warnings, decoder: decoder,
                                  animation: frames)
                image.cropRect = cropRect
                return .success(image)
            }
            // A larger image takes this process's pixel cache (8 bytes a pixel) now: through the gate,
            // as any image made here. Its failure is this process's, not the worker's, which answered.
            let cacheBytes = snapshot.width.saturatingTimes(snapshot.height).saturatingTimes(8)
            return Result { () throws(MagickIOError) -> Image in
                try AdmissionGate.shared.retryingAlone(cacheBytes) { () throws(MagickIOError) -> Image in
                    let wand = Wand()
                    try snapshot.restore(into: wand, pixels: mapped + snapshot.pixelOffset)
                    var image = Image(wand: wand, orientation: orientation, warnings: warnings, decoder: decoder, animation: frames)
                    image.cropRect = cropRect
                    return image
                }
            }
        }
    }
}
