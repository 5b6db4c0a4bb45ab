import Foundation

/// A TIFF's rows decoded on two threads at once, a band of whole strips each in turn, and read in
/// order by a third (the resampler's): strips are compressed apart, so two libtiff handles on one
/// file decode them apart, and libtiff's decode (about three quarters of a compressed TIFF's
/// thumbnail) is split between two cores. For one big image when a core is idle, as
/// ``PipelinedRows`` is, which it then stands in for (``TIFFRows/bandRows(_:)`` says which pages).
///
/// Band `b` goes to decoder `b % 2` and into slot `b % 3`: while the reader reads one band, each
/// decoder fills the next of its own. A decoder writes a slot only once the reader is done with
/// the band it held; after ``finish()`` (the reader wants no more rows) a decoder reads the rest
/// of its bands into a row of its own, so that damage at the end is seen as the one decoder would
/// see it. Both threads are joined before the decoders or the file can go away: by ``finish()``,
/// or by ``stop()`` (also run when this is released).
final class BandedRows: RowSource {
    /// Bands held at once: the one being read and one being decoded by each decoder.
    static let slots = 3
    /// The fewest rows in a band: a handoff between threads a band, not a row.
    static let minimumBandRows = 32
    /// The most the slots may hold together (``TIFFRows/bandRows(_:)``).
    static let maximumBandBytes = 8 << 20

    let width: Int
    let height: Int
    let channels: Int
    let iccProfile: [UInt8]?
    private let bands: Bands

    /// `first` and `second` opened on the same page, neither read yet; `bandRows` from
    /// ``TIFFRows/bandRows(_:)``.
    init(_ first: TIFFRows, _ second: TIFFRows, bandRows: Int) {
        width = first.width
        height = first.height
        channels = first.channels
        iccProfile = first.iccProfile
        bands = Bands(decoders: [first, second], bandRows: bandRows)
        let bands = bands
        for index in 0..<2 { PipelinedRows.startDecoderThread { bands.produce(index) } }
    }

    deinit {
        stop()
    }

    func readRow(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) {
        let decoder = bands.decoders[0]
        try bands.consume { raw in decoder.convert(raw, into: row) }
    }

    var givesRGBBytes: Bool { bands.decoders[0].givesRGBBytes }

    func readBytes(into row: UnsafeMutablePointer<UInt8>) throws(RowSourceFailure) {
        let count = width * 3
        try bands.consume { raw in row.update(from: raw.assumingMemoryBound(to: UInt8.self), count: count) }
    }

    func finish() throws(RowSourceFailure) {
        try bands.drain()
    }

    /// Stops both decoders at their next row and waits for them.
    func stop() {
        bands.abandon()
    }

    /// What the three threads share, under one lock.
    /// `@unchecked Sendable`: the counters are touched only under the lock; a slot is written by
    /// one decoder thread only while the reader is past the band it held (``produce(_:)``), and
    /// read by the reader only once its band is marked done; each decoder reads rows on its own
    /// thread alone until that thread is joined (the reader's `convert` of the first decoder
    /// reads only what was set when it opened: its layout and sizes).
    private final class Bands: @unchecked Sendable {
        let decoders: [TIFFRows]
        let bandRows: Int
        let height: Int
        let rowBytes: Int
        let bandCount: Int
        let buffer: UnsafeMutableRawPointer
        /// A row each decoder reads into once the reader wants no more (``drain()``).
        let spare: [UnsafeMutableRawPointer]
        let condition = NSCondition()
        /// The band each slot holds, complete, or -1.
        var ready = [Int](repeating: -1, count: BandedRows.slots)
        /// Rows the reader is done with: a whole number of bands, or the height.
        var released = 0
        /// The reader's next row (its own; no lock).
        var next = 0
        var draining = false
        var abandoned = false
        var ended = 0
        var failure: RowSourceFailure?

        init(decoders: [TIFFRows], bandRows: Int) {
            self.decoders = decoders
            self.bandRows = bandRows
            height = decoders[0].height
            rowBytes = (decoders[0].rawRowBytes + 63) / 64 * 64
            bandCount = (height + bandRows - 1) / bandRows
            buffer = .allocate(byteCount: BandedRows.slots * bandRows * rowBytes, alignment: 64)
            spare = decoders.map { UnsafeMutableRawPointer.allocate(byteCount: $0.rawRowBytes, alignment: 64) }
        }

        deinit {
            buffer.deallocate()
            spare.forEach { $0.deallocate() }
        }

        func row(_ y: Int) -> UnsafeMutableRawPointer {
            buffer + ((y / bandRows) % BandedRows.slots * bandRows + y % bandRows) * rowBytes
        }

        /// Decoder `index`'s thread: bands `index`, `index + 2`, ... into their slots, each once
        /// the reader is done with the band three before it.
        func produce(_ index: Int) {
            let decoder = decoders[index]
            var error: RowSourceFailure?
            var band = index
            while band < bandCount, error == nil {
                let first = band * bandRows, last = min(first + bandRows, height)
                condition.lock()
                while released < (band - BandedRows.slots + 1) * bandRows, !draining, !abandoned {
                    condition.wait()
                }
                let intoSlot = released >= (band - BandedRows.slots + 1) * bandRows
                let stop = abandoned
                condition.unlock()
                if stop { break }
                var complete = true
                do throws(RowSourceFailure) {
                    try decoder.seek(toRow: first)
                    for y in first..<last {
                        try decoder.readRawRow(into: intoSlot ? row(y) : spare[index])
                        if y % 8 == 7, isAbandoned() {
                            complete = false
                            break
                        }
                    }
                } catch let failed {
                    error = failed
                }
                condition.lock()
                if error == nil, complete, intoSlot { ready[band % BandedRows.slots] = band }
                condition.broadcast()
                condition.unlock()
                band += 2
            }
            condition.lock()
            if let error, failure == nil { failure = error }
            ended += 1
            condition.broadcast()
            condition.unlock()
        }

        private func isAbandoned() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            return abandoned
        }

        /// Hands the next row's bytes to `use` (on the reader's thread); a band's end frees its slot.
        func consume(_ use: (UnsafeRawPointer) -> Void) throws(RowSourceFailure) {
            guard next < height else { throw .fallback("no rows left") }
            let band = next / bandRows
            if next % bandRows == 0 {
                condition.lock()
                while ready[band % BandedRows.slots] != band, failure == nil, ended < 2 {
                    condition.wait()
                }
                guard ready[band % BandedRows.slots] == band else {
                    let failure = failure ?? .fallback("the decoder ended early")
                    condition.unlock()
                    throw failure
                }
                condition.unlock()
            }
            use(self.row(next))
            next += 1
            if next % bandRows == 0 || next == height {
                condition.lock()
                released = next
                condition.broadcast()
                condition.unlock()
            }
        }

        /// Lets both decoders read to the end, waits for them, and throws what either met.
        func drain() throws(RowSourceFailure) {
            condition.lock()
            draining = true
            condition.broadcast()
            while ended < 2 { condition.wait() }
            let failure = failure
            condition.unlock()
            if let failure { throw failure }
        }

        func abandon() {
            condition.lock()
            abandoned = true
            condition.broadcast()
            while ended < 2 { condition.wait() }
            condition.unlock()
        }
    }
}
