internal import CWorker
import Foundation

/// The decode worker's side (see ``Isolation``): a process started from the host's own
/// executable, which the C constructor in `CWorker` sends here before the program's `main`. It
/// answers requests one at a time until its host closes the socket: opens the source from the
/// descriptor that came with the request, runs the operation in process (the worker is the wall)
/// and writes the answer, pixels included, into a memory file it hands back.
enum Worker {
    /// Whether this process is a decode worker (its decodes never ask for another).
    nonisolated(unsafe) static var isWorker = false
    /// Whether the worker's seccomp filter is in force (``mio_worker_sandbox``): not where the
    /// kernel or the architecture has none.
    nonisolated(unsafe) static var isSandboxed = false

    /// The largest request a host sends (its path is the only part of any length).
    static let maxRequest = 1 << 16

    static func serve(_ socket: Int32) -> Never {
        isWorker = true
        mio_worker_handle_crashes()
        isSandboxed = mio_worker_sandbox(ImageMagick.writesTemporaryFiles ? 1 : 0) == 0
        // The host's gate admits this worker's decodes, and says whether a core is idle for them.
        AdmissionGate.host = WorkerGate.Host(socket: socket)
        var buffer = [UInt8](repeating: 0, count: maxRequest)
        while true {
            var descriptor: Int32 = -1
            let length = buffer.withUnsafeMutableBytes { mio_worker_receive(socket, $0.baseAddress, $0.count, &descriptor) }
            // The host closed the socket (or ended): nothing of the program's own exit is the worker's to run.
            guard length > 0 else { _exit(0) }
            let request = buffer.withUnsafeBytes { try? WorkerRequest(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
            let answer: (WorkerResponse, Image?)
            if let request, descriptor >= 0 {
                answer = run(request, descriptor: descriptor)
            } else {
                answer = (.failure(MagickIOError(.io, "the decode worker could not read its request")), nil)
            }
            if descriptor >= 0 { close(descriptor) }
            send(answer.0, image: answer.1, on: socket)
        }
    }

    private static func run(_ request: WorkerRequest, descriptor: Int32) -> (WorkerResponse, Image?) {
        do throws(MagickIOError) {
            if ResourceLimits.current != request.resources {
                _ = ResourceLimits.apply(request.resources)
            }
            let source = try open(request, descriptor: descriptor)
            let interrupt = request.timeLeft.map { Interrupt(timeLimit: .nanoseconds($0)) }
            let image: Image
            switch request.operation {
            case let .thumbnail(thumbnail, index, allowUpscale, options):
                image = try source.thumbnail(thumbnail, at: index, allowUpscale: allowUpscale, options: options, interrupt: interrupt)
            case .image(let index):
                image = try source.image(at: index, interrupt: interrupt)
            case .misbehave(.escape):
                throw escapeReport()
            case .misbehave(.answerHoldingTurn):
                _ = AdmissionGate.host?.enter(1 << 20)
                throw MagickIOError(.io, "answered holding a turn")
            case .misbehave(let misbehaviour):
                misbehave(misbehaviour)
            }
            var snapshot = try image.storage.snapshot()
            if let frames = image.animation {
                snapshot.animation = .init(width: frames.width, height: frames.height, loopCount: frames.loopCount,
                                           delays: frames.delays.map(WorkerRequest.nanoseconds))
            }
            return (.image(snapshot, orientation: image.orientation, warnings: image.warnings, decoder: image.decoder,
                           cropRect: image.cropRect), image)
        } catch {
            return (.failure(error), nil)
        }
    }

    /// Tests only: what a decoder that tried to reach the network, run a program or write a file
    /// would get, as an `io` error: "sandboxed: true; socket: EPERM; exec: EPERM; new file: EPERM".
    private static func escapeReport() -> MagickIOError {
        var socket: Int32 = 0, exec: Int32 = 0, create: Int32 = 0
        mio_worker_try_escape(&socket, &exec, &create)
        func said(_ code: Int32) -> String { code == 0 ? "allowed" : code == EPERM ? "EPERM" : "errno \(code)" }
        return MagickIOError(.io, "sandboxed: \(isSandboxed); socket: \(said(socket)); exec: \(said(exec)); new file: \(said(create))")
    }

    /// Tests only: ends as a decoder that crashes, allocates without bound or loops would.
    private static func misbehave(_ misbehaviour: WorkerRequest.Misbehaviour) -> Never {
        switch misbehaviour {
        case .crash:
            abort()
        case .exhaustMemory:
            var blocks: [UnsafeMutableRawPointer] = []
            while true {
                guard let block = malloc(8 << 20) else { abort() }
                memset(block, 1, 8 << 20)
                blocks.append(block)
            }
        case .spin:
            while true { sched_yield() }
        case .floodGate:
            while true { AdmissionGate.host?.leave(0) }
        case .malformedQuestion:
            AdmissionGate.host?.sendUnread([UInt8](repeating: 3, count: WorkerGate.Message.length))
            while true { pause() }
        case .escape, .answerHoldingTurn:
            abort()  // answered in run(_:descriptor:)
        }
    }

    /// The source, as the host had it: an in-memory source's bytes mapped from the memory file,
    /// a file's own descriptor otherwise; a PNG's chunks as the host walked them, where it sent them
    /// and the file is still of the size it walked (else the file changed: it is walked again).
    private static func open(_ request: WorkerRequest, descriptor: Int32) throws(MagickIOError) -> ImageSource {
        let bytes = try sourceBytes(request, descriptor: descriptor)
        let index = request.pngChunks.flatMap { chunks in
            chunks.fileBytes != bytes.count ? nil
                : PNGIndex(runs: chunks.runs, end: chunks.end, most: ContainerIndex.maxEntries(fileBytes: bytes.count)).map(ContainerIndex.png)
        }
        return try ImageSource(bytes: bytes, options: request.decoding, index: index)
    }

    private static func sourceBytes(_ request: WorkerRequest, descriptor: Int32) throws(MagickIOError) -> SourceBytes {
        if request.fromMemory {
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_size > 0,
                  let mapped = mmap(nil, Int(status.st_size), PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
                throw MagickIOError(.io, "the decode worker could not map its source")
            }
            let size = Int(status.st_size)
            let data = Data(bytesNoCopy: mapped, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
            return .memory(data)
        }
        return .file(try OpenFile(duplicating: descriptor, path: request.path))
    }

    /// Writes the answer into a memory file (its header, then from a page boundary the pixels) and
    /// sends the header's length with the file. A worker that cannot answer ends (its host
    /// reports the decode as failed).
    private static func send(_ response: WorkerResponse, image: Image?, on socket: Int32) {
        var response = response
        var size = 0
        if case let .image(snapshot, orientation, warnings, decoder, cropRect) = response, image != nil {
            var placed = snapshot
            // The header's length does not depend on the offsets it holds (fixed-size fields).
            placed.pixelOffset = (response.encoded().count + 4095) & ~4095
            let animationOffset = (placed.pixelOffset + placed.pixelBytes + 4095) & ~4095
            placed.animation?.offset = animationOffset
            size = placed.animation.map { $0.offset + $0.bytes } ?? placed.pixelOffset + placed.pixelBytes
            response = .image(placed, orientation: orientation, warnings: warnings, decoder: decoder, cropRect: cropRect)
        }
        let header = response.encoded()
        guard let answer = AnswerFile.take(max(size, header.count)) else { _exit(71) }
        defer { answer.done() }
        header.withUnsafeBytes { answer.bytes.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        if case let .image(snapshot, _, _, _, _) = response, let image {
            do throws(MagickIOError) {
                try image.storage.exportPixels(snapshot, into: answer.bytes + snapshot.pixelOffset)
                // Written, not mapped: the frames' copy in the memory file is not this process's memory.
                if let animation = snapshot.animation, let frames = image.animation,
                   frames.pixels.withUnsafeBytes({ pwrite(answer.descriptor, $0.baseAddress, animation.bytes, off_t(animation.offset)) }) != animation.bytes {
                    _exit(71)
                }
            } catch {
                send(.failure(error), image: nil, on: socket)
                return
            }
        }
        var length = Int64(header.count).littleEndian
        guard mio_worker_send(socket, &length, 8, answer.descriptor) == 0 else { _exit(0) }
    }

    /// The memory file an answer is written into. One file serves answer after answer while they
    /// fit in ``reused`` bytes (its host has read an answer before it asks again): no new file,
    /// mapping and pages for each thumbnail. A larger answer has a file of its own, whose pages go
    /// when its host is done with it.
    struct AnswerFile {
        let descriptor: Int32
        /// The whole file, mapped (an animation's frames are written to the file, not through the
        /// mapping).
        let bytes: UnsafeMutableRawPointer
        let mapped: Int
        let isKept: Bool

        /// The largest answer written into the kept file (the 16-bit pixels of a 590 px square RGB
        /// thumbnail, a 510 px RGBA one): what an idle worker holds for the next.
        static let reused = 2 << 20
        /// Touched only by the worker's one thread that answers.
        nonisolated(unsafe) private static var kept: AnswerFile?

        /// A file of at least `size` bytes; nil when the kernel gives none.
        static func take(_ size: Int) -> AnswerFile? {
            let size = (size + 4095) & ~4095
            if let kept, kept.mapped >= size { return kept }
            if size <= reused, let file = make(size: size, kept: true) {
                if let kept {
                    munmap(kept.bytes, kept.mapped)
                    close(kept.descriptor)
                }
                kept = file
                return file
            }
            return make(size: size, kept: false)
        }

        private static func make(size: Int, kept: Bool) -> AnswerFile? {
            // Its size sealed: the host maps it only so (``DecodeWorkers/read(_:headerLength:most:)``).
            let file = mio_answer_file("magickio-answer", size)
            guard file >= 0 else { return nil }
            guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0), mapped != MAP_FAILED else {
                close(file)
                return nil
            }
            return AnswerFile(descriptor: file, bytes: mapped, mapped: size, isKept: kept)
        }

        /// Done with the answer: a file of its own is closed (its host holds its own descriptor).
        func done() {
            guard !isKept else { return }
            munmap(bytes, mapped)
            close(descriptor)
        }
    }
}

@_cdecl("magickio_worker_main")
func magickioWorkerMain(_ socket: Int32) {
    Worker.serve(socket)
}
