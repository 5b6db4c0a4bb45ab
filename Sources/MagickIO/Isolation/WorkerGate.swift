internal import CWorker
import Foundation

/// The one admission across the wall: a decode in a worker takes its turn at its host's
/// ``AdmissionGate``, beside the host's other decodes in process and in workers, as it would in
/// process. A worker's own pool holds its one request only, so its gate could admit anything; the
/// host's sees every decode the program runs, so the shares of them all fit together in
/// ``ResourceLimits/memory``, and independent calls at once wait for each other instead of each
/// taking a pool of its own.
///
/// While it runs a request, a worker asks on its socket before its answer (one message each way,
/// in order, on the SOCK_SEQPACKET socket the request came on):
/// - ``Message/enter(bytes:)``, answered with whether a core is idle for it once the host admitted
///   it (or that the host stopped the wait: the call was cancelled or is past its time limit);
/// - ``Message/leave(bytes:)``, not answered.
/// The host gives back whatever a worker still holds when the call ends, however it ends.
enum WorkerGate {
    /// What a worker asks: 16 bytes, an operation and a byte count (the worker's answer is 8).
    enum Message: Equatable {
        case enter(bytes: Int)
        case leave(bytes: Int)

        static let length = 16

        var encoded: [UInt8] {
            var wire = WireWriter()
            switch self {
            case .enter(let bytes):
                wire.put(1)
                wire.put(bytes)
            case .leave(let bytes):
                wire.put(2)
                wire.put(bytes)
            }
            return wire.bytes
        }

        init(_ bytes: UnsafeRawBufferPointer) throws(WireReader.Malformed) {
            guard bytes.count == Self.length else { throw WireReader.Malformed() }
            var wire = WireReader(bytes)
            let operation = try wire.int(in: 1...2)
            let count = try wire.int(in: 0...Int.max)
            self = operation == 1 ? .enter(bytes: count) : .leave(bytes: count)
        }
    }

    /// The host's answer to ``Message/enter(bytes:)``: 8 bytes, 1 with a core idle, 2 without, 0
    /// when it stopped the wait.
    static func answer(idleCore: Bool?) -> Int64 {
        switch idleCore {
        case nil: 0
        case true?: 1
        case false?: 2
        }
    }

    /// What ``answer(idleCore:)`` said: whether a core is idle, or nil for a stopped wait (and
    /// for anything else).
    static func idleCore(answer: Int64) -> Bool? {
        switch answer {
        case 1: true
        case 2: false
        default: nil
        }
    }

    /// The worker's side: its host's socket, set once before the worker's first request.
    final class Host: Sendable {
        /// The socket the request came on, one question and its answer at a time.
        private let socket: Locked<Int32>

        init(socket: Int32) {
            self.socket = Locked(socket)
        }

        /// Waits for the host to admit `bytes`; whether a core is idle for the decode, or nil when
        /// the host stopped the wait (it ends this worker's call). A host that is gone ends the worker.
        func enter(_ bytes: Int) -> Bool? {
            socket.withLock { socket in
                Self.send(Message.enter(bytes: bytes).encoded, on: socket)
                var answer: Int64 = 0
                var descriptor: Int32 = -1
                let got = mio_worker_receive(socket, &answer, 8, &descriptor)
                if descriptor >= 0 { close(descriptor) }
                guard got == 8 else { _exit(0) }
                return WorkerGate.idleCore(answer: Int64(littleEndian: answer))
            }
        }

        /// Tells the host that `bytes` it admitted are given back.
        func leave(_ bytes: Int) {
            socket.withLock { Self.send(Message.leave(bytes: bytes).encoded, on: $0) }
        }

        /// Tests only: sends `bytes` to the host as a question, whatever they say.
        func sendUnread(_ bytes: [UInt8]) {
            socket.withLock { Self.send(bytes, on: $0) }
        }

        private static func send(_ bytes: [UInt8], on socket: Int32) {
            guard bytes.withUnsafeBytes({ mio_worker_send(socket, $0.baseAddress, $0.count, -1) }) == 0 else { _exit(0) }
        }
    }

    /// The host's side: the turn one call's worker holds at the gate (a worker asks for one at a
    /// time: its nested work runs on the turn it holds), given back when the worker says it is
    /// done, and at the latest when the call ends. A worker decodes untrusted bytes, so the host
    /// trusts nothing it says: what it may reserve is capped, it may ask only so often, and one
    /// that answers while it still holds its turn, or asks for a second, is ended.
    struct Held: ~Copyable {
        private var reservation: AdmissionGate.Reservation?
        private let gate: AdmissionGate
        /// The most a worker may reserve: its decode's budget, or the whole pool when that is more
        /// (a reservation over the pool only makes the decode wait to run alone).
        private let most: Int
        private var questions = 0
        /// The most questions one call answers: a worker asks twice for each input of a thumbnail
        /// it tries (a handful); one that keeps asking is stopped, not served without end.
        static let maxQuestions = 64

        init(_ gate: AdmissionGate, most: Int) {
            self.gate = gate
            self.most = most
        }

        /// Answers `message` from `worker`: admits its bytes (waiting its turn, as long as
        /// `interrupt` lets it) and answers, or gives them back. Throws what stopped the wait, or
        /// `corruptImage` for a worker that asks out of turn.
        mutating func serve(_ message: Message, worker: DecodeWorker, interrupt: Interrupt?) throws(MagickIOError) {
            questions += 1
            guard questions <= Self.maxQuestions else {
                throw MagickIOError(.corruptImage, "the decoder asked for the pixel cache more than \(Self.maxQuestions) times")
            }
            switch message {
            case .enter(let bytes):
                guard reservation == nil else {
                    throw MagickIOError(.corruptImage, "the decoder asked for a second turn at the pixel cache while it held one")
                }
                let taken = gate.hold(reserving: min(bytes, most), interrupt: interrupt)
                var answer = WorkerGate.answer(idleCore: taken?.idleCore).littleEndian
                _ = mio_worker_send(worker.socket, &answer, 8, -1)
                guard let taken else {
                    try interrupt?.check()
                    throw AdmissionGate.stopped
                }
                reservation = taken
            case .leave:
                if let reservation { gate.giveBack(reservation) }
                reservation = nil
            }
        }

        /// The worker answered: it must have given its turn back first (its decode is done).
        func answered() throws(MagickIOError) {
            guard reservation == nil else {
                throw MagickIOError(.corruptImage, "the decoder answered while it still held its turn at the pixel cache")
            }
        }

        deinit {
            if let reservation { gate.giveBack(reservation) }
        }
    }
}
