import Foundation
import Synchronization

/// A ``RawRowSource`` decoded on a second thread, a few rows ahead of its reader: the decoder and
/// the resampler then run on two cores at once (for one big image, when a core is idle, as
/// ``AdmissionGate``, which counts the decodes under way, says). The rows pass through a ring of
/// `slots` rows as the decoder gives them (bytes); the reader converts each to floats, so that the
/// decoder's thread only decodes. A decoder that lends its rows (``RowLender``) passes only where
/// each lies, and the ring is no longer than the rows a lent one outlives: no row is copied.
///
/// The decoder thread is always joined before the source can go away: by ``finish()``, which lets
/// it read to the end, or by ``stop()`` (also run when the pipeline is released), which makes it
/// stop at its next row.
final class PipelinedRows: RowSource {
    let width: Int
    let height: Int
    let channels: Int
    let iccProfile: [UInt8]?
    private let ring: Ring

    init(_ source: RawRowSource, slots: Int = 32) {
        width = source.width
        height = source.height
        channels = source.channels
        iccProfile = source.iccProfile
        ring = Ring(source: source, slots: slots)
        let ring = ring
        Self.startDecoderThread { ring.produce() }
    }

    /// Starts a thread that decodes rows (``BandedRows`` starts two): a small stack, as decoders
    /// keep their state on the heap.
    static func startDecoderThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit {
        stop()
    }

    func readRow(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) {
        try ring.consume(into: row)
    }

    var givesRGBBytes: Bool { ring.source.givesRGBBytes }

    func readBytes(into row: UnsafeMutablePointer<UInt8>) throws(RowSourceFailure) {
        try ring.consume { raw in row.update(from: raw.assumingMemoryBound(to: UInt8.self), count: width * 3) }
    }

    func finish() throws(RowSourceFailure) {
        try ring.drain()
    }

    /// Whether the rows pass where the decoder lent them (``RowLender``), not copied into the ring.
    var passesLentRows: Bool { if case .lent = ring.rows { true } else { false } }

    /// Stops the decoder thread at its next row and waits for it.
    func stop() {
        ring.abandon()
    }

    /// The state both threads share, under one lock.
    /// `@unchecked Sendable`: the counters are touched only under the lock; a slot (a row, or
    /// where a lent row lies) is written by the producer only while the counters, read under the
    /// lock, show the reader is off it; the decoder is used by the producer thread alone until it
    /// is joined.
    private final class Ring: @unchecked Sendable {
        let source: RawRowSource
        let slots: Int
        let rowBytes: Int
        /// Where the ring's rows lie.
        enum Rows {
            /// Each row copied into a slot of this buffer.
            case copied(UnsafeMutableRawPointer)
            /// The source lends its rows; where each of the ring's lies.
            case lent(RowLender, UnsafeMutablePointer<UnsafeRawPointer?>)
        }
        let rows: Rows
        let condition = NSCondition()
        var produced = 0
        var consumed = 0
        /// Rows a waiting side is let sleep through: the other wakes it when it has that many
        /// to go at (rows made, or slots free), not at each row. A wake-up a row was a context
        /// switch a row on each side, for a 24 MP TIFF about 14% of the thumbnail's CPU time.
        let batch: Int
        var readerWaiting = false
        var writerWaiting = false
        var draining = false
        var abandoned = false
        var ended = false
        var failure: RowSourceFailure?
        let done = DispatchSemaphore(value: 0)
        var joined = false

        init(source: RawRowSource, slots: Int) {
            self.source = source
            rowBytes = (source.rawRowBytes + 63) / 64 * 64
            if let lender = source as? RowLender, case let kept = lender.startLending(), kept > 0 {
                self.slots = min(slots, kept)
                let lent = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: self.slots)
                lent.initialize(repeating: nil, count: self.slots)
                rows = .lent(lender, lent)
            } else {
                self.slots = slots
                rows = .copied(.allocate(byteCount: slots * rowBytes, alignment: 64))
            }
            batch = max(1, self.slots / 4)
        }

        deinit {
            switch rows {
            case .copied(let buffer): buffer.deallocate()
            case .lent(_, let lent): lent.deallocate()
            }
        }

        /// Where row `y` is copied to in `buffer`.
        func slot(_ y: Int, in buffer: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer { buffer + (y % slots) * rowBytes }

        /// Where row `y` lies for the reader, once it is produced.
        func row(_ y: Int) -> UnsafeRawPointer {
            switch rows {
            case .copied(let buffer): UnsafeRawPointer(slot(y, in: buffer))
            case .lent(_, let lent): lent[y % slots].unsafelyUnwrapped
            }
        }

        /// The decoder thread: every row into the ring, then the rest of the file.
        func produce() {
            var y = 0
            var error: RowSourceFailure?
            while y < source.height {
                condition.lock()
                while produced - consumed >= slots, !draining, !abandoned {
                    writerWaiting = true
                    condition.wait()
                }
                writerWaiting = false
                let stop = abandoned
                condition.unlock()
                if stop { break }
                do throws(RowSourceFailure) {
                    // A lent row's slot is free: the reader is done with the row `slots` before,
                    // which the lender keeps (and no older one) while this one is made.
                    switch rows {
                    case .copied(let buffer): try source.readRawRow(into: slot(y, in: buffer))
                    case .lent(let lender, let lent): lent[y % slots] = try lender.lendRawRow()
                    }
                } catch let failed {
                    error = failed
                    break
                }
                condition.lock()
                produced += 1
                if readerWaiting, produced - consumed >= batch || produced == source.height { condition.broadcast() }
                condition.unlock()
                y += 1
            }
            if error == nil, y == source.height {
                do throws(RowSourceFailure) { try source.finish() } catch let failed { error = failed }
            }
            condition.lock()
            failure = error
            ended = true
            condition.broadcast()
            condition.unlock()
            done.signal()
        }

        func consume(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) {
            try consume { raw in source.convert(raw, into: row) }
        }

        /// Hands the next row's bytes to `use` (on the reader's thread), then frees its slot.
        func consume(_ use: (UnsafeRawPointer) -> Void) throws(RowSourceFailure) {
            condition.lock()
            while produced <= consumed, !ended {
                readerWaiting = true
                condition.wait()
            }
            readerWaiting = false
            guard produced > consumed else {
                let failure = failure ?? .fallback("the decoder ended early")
                condition.unlock()
                throw failure
            }
            condition.unlock()
            use(row(consumed))
            condition.lock()
            consumed += 1
            if writerWaiting, produced - consumed <= slots - batch { condition.broadcast() }
            condition.unlock()
        }

        func drain() throws(RowSourceFailure) {
            condition.lock()
            draining = true
            condition.broadcast()
            while !ended { condition.wait() }
            let failure = failure
            condition.unlock()
            join()
            if let failure { throw failure }
        }

        func abandon() {
            condition.lock()
            abandoned = true
            condition.broadcast()
            condition.unlock()
            join()
        }

        private func join() {
            condition.lock()
            let wait = !joined
            joined = true
            condition.unlock()
            if wait { done.wait() }
        }
    }
}
