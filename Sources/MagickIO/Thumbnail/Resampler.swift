internal import CResample
import Foundation

/// Lanczos-3 resampling in Swift (its inner loops in C, `Sources/CResample`), which the thumbnail
/// pipeline uses in place of `MagickResizeImage` for RGB images.
///
/// ImageMagick 6's resize filters one channel of one 16-bit pixel at a time in double precision,
/// and writes a whole intermediate image between its two passes: it was half of a 12 MP -> 256
/// thumbnail's time and most of a 24 MP -> 1024 one's. This one streams the image through: each
/// source row is exported once as floats (`MagickExportImagePixels`) and added, weighted, into
/// the sums of the few output rows whose filter windows hold it; an output row whose window is
/// complete is filtered across and written out. It keeps 16-bit precision (floats throughout),
/// weighs colour by alpha as ImageMagick does, and holds a handful of rows, whatever the
/// reduction, beside the output image.
///
/// The filter is the one Pillow's and libvips' Lanczos use (the windowed sinc of radius 3,
/// stretched by the reduction factor when reducing), so that a thumbnail matches a Lanczos
/// resize of the full image.
enum Resampler {
    /// Where each output pixel's inputs start, how many there are and their weights (`span` a
    /// pixel, a multiple of 8, padded with zeros), along one axis.
    struct Taps {
        let first: [Int]
        let count: [Int]
        let weights: [Float]
        let span: Int

        init(from input: Int, to output: Int) {
            let scale = Double(input) / Double(output)
            let stretch = max(scale, 1)
            let support = 3 * stretch
            let most = min(Int(support.rounded(.up)) * 2 + 1, input)
            span = (most + 7) / 8 * 8
            var first = [Int](repeating: 0, count: output)
            var count = [Int](repeating: 0, count: output)
            var weights = [Float](repeating: 0, count: output * span)
            for index in 0..<output {
                let centre = (Double(index) + 0.5) * scale
                let low = max(Int((centre - support + 0.5).rounded(.down)), 0)
                var high = min(Int((centre + support + 0.5).rounded(.down)), input)
                high = min(max(high, low + 1), low + most)
                var taps = (low..<high).map { Resampler.lanczos3((Double($0) - centre + 0.5) / stretch) }
                let total = taps.reduce(0, +)
                if total != 0 {
                    taps = taps.map { $0 / total }
                } else {
                    taps = taps.indices.map { $0 == 0 ? 1 : 0 }  // never seen: keep the nearest input
                }
                first[index] = low
                count[index] = taps.count
                for (offset, weight) in taps.enumerated() {
                    weights[index * span + offset] = Float(weight)
                }
            }
            self.first = first
            self.count = count
            self.weights = weights
        }

        /// The taps for `input` to `output`, from the few kept from the last resamples: a batch of
        /// thumbnails from one camera resamples the same sizes each time, and working out the
        /// weights (two sines a tap) was a third of a millisecond of a 12 MP -> 256 one.
        static func cached(from input: Int, to output: Int) -> Taps {
            if let taps = recent.withLock({ $0.first { $0.input == input && $0.output == output }?.taps }) { return taps }
            let taps = Taps(from: input, to: output)
            recent.withLock { recent in
                if recent.count == 8 { recent.removeFirst() }
                recent.append((input, output, taps))
            }
            return taps
        }

        // `Locked`, not `Mutex`: ThreadSanitizer cannot see the futex under `Mutex` on Linux.
        private static let recent = Locked<[(input: Int, output: Int, taps: Taps)]>([])

        /// The most output positions whose windows are open at once when the inputs are taken in
        /// order, `group` at a time, and each output is finished, in order, once its window is
        /// past: how many sums the resampler keeps.
        func mostOpenAtOnce(inputCount: Int, group: Int = 1) -> Int {
            var opened = 0, finished = 0, most = 1
            let output = first.count
            for start in stride(from: 0, to: inputCount, by: group) {
                let last = min(start + group, inputCount) - 1
                while opened < output, first[opened] <= last { opened += 1 }
                most = max(most, opened - finished)
                while finished < opened, first[finished] + count[finished] <= last + 1 { finished += 1 }
            }
            return most
        }
    }

    /// Streams an `input` image through a resize to `output`, `channels` floats a pixel (3, or 4
    /// with straight alpha as the last), one source row at a time: `read` fills row `y`, `write`
    /// takes finished output row `y`, `progress` is called every 16 source rows (it may throw to
    /// stop). Down first, then across: each source row is added, weighted, into the sums of the
    /// output rows whose windows hold it (about seven when reducing; four source rows at a time
    /// when reducing by two or more, up to sixteen of 8-bit RGB), and an output row whose window
    /// is complete is filtered across and written. The sums run over whole contiguous rows,
    /// which vectorises; the horizontal filter runs on output rows only; memory is a few rows of
    /// the input's width whatever the reduction. Returns how many source rows it read (the last
    /// rows no window holds are never asked for).
    @discardableResult
    static func stream<E: Error>(input: (width: Int, height: Int), output: (width: Int, height: Int), channels: Int,
                                 read: (_ y: Int, _ row: UnsafeMutablePointer<Float>) throws(E) -> Void,
                                 write: (_ y: Int, _ row: UnsafeMutablePointer<Float>) throws(E) -> Void,
                                 progress: (_ y: Int, _ of: Int) throws(E) -> Void) throws(E) -> Int {
        if input == output {
            // Nothing to resize: the rows pass through as they are (also the colour under
            // transparent pixels, which filtering would lose).
            let row = UnsafeMutablePointer<Float>.allocate(capacity: input.width * channels + 1)
            defer { row.deallocate() }
            for y in 0..<input.height {
                try read(y, row)
                try write(y, row)
                if y % 16 == 15 { try progress(y, input.height) }
            }
            return input.height
        }
        let group = input.height >= 2 * output.height ? groupRows : 1
        let inputRow = input.width * channels
        // One float to spare after each row and sum: the four-lane loop reads an RGB pixel as
        // four floats (mio_rs_filter_across, when a span is not a multiple of 8).
        let rows = UnsafeMutablePointer<Float>.allocate(capacity: group * (inputRow + 1))
        rows.initialize(repeating: 0, count: group * (inputRow + 1))
        let taking = UnsafeMutablePointer<UnsafePointer<Float>?>.allocate(capacity: group)
        defer {
            rows.deallocate()
            taking.deallocate()
        }
        for index in 0..<group {
            taking[index] = UnsafePointer(rows + index * (inputRow + 1))
        }
        return try streamDown(input: input, output: output, channels: channels, group: group, weightScale: 1,
            take: { (start, count) throws(E) in
                for index in 0..<count {
                    let row = rows + index * (inputRow + 1)
                    try read(start + index, row)
                    if channels == 4 {
                        premultiply(row, pixels: input.width)
                    }
                    if (start + index) % 16 == 15 { try progress(start + index, input.height) }
                }
            },
            add: { sums, weights, fresh, count in
                addWeighted(taking, count: group, weights, into: sums, count: count, length: inputRow, fresh: fresh)
            },
            write: write)
    }

    /// ``stream(input:output:channels:read:write:progress:)`` for RGB rows of 8-bit samples, as
    /// libjpeg-turbo gives them: reducing by two or more, the pass down holds the bytes (a quarter
    /// of the floats' memory, up to 16 rows of them, ``byteGroupRows(input:output:)``) and
    /// converts them 256 columns at a time as it adds them; otherwise each row is converted and
    /// streamed as floats.
    @discardableResult
    static func streamBytes<E: Error>(input: (width: Int, height: Int), output: (width: Int, height: Int),
                                      read: (_ y: Int, _ row: UnsafeMutablePointer<UInt8>) throws(E) -> Void,
                                      write: (_ y: Int, _ row: UnsafeMutablePointer<Float>) throws(E) -> Void,
                                      progress: (_ y: Int, _ of: Int) throws(E) -> Void) throws(E) -> Int {
        let inputRow = input.width * 3
        let group = byteGroupRows(input: input, output: output)
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: group * inputRow)
        bytes.initialize(repeating: 0, count: group * inputRow)
        defer { bytes.deallocate() }
        guard group > 1 else {
            return try stream(input: input, output: output, channels: 3,
                              read: { (y, row) throws(E) in
                                  try read(y, bytes)
                                  SampleConversion.convert(bytes, count: inputRow, into: row)
                              },
                              write: write, progress: progress)
        }
        let taking = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: group)
        defer { taking.deallocate() }
        for index in 0..<group {
            taking[index] = UnsafePointer(bytes + index * inputRow)
        }
        return try streamDown(input: input, output: output, channels: 3, group: group, weightScale: 1 / 255,
            take: { (start, count) throws(E) in
                for index in 0..<count {
                    try read(start + index, bytes + index * inputRow)
                    if (start + index) % 16 == 15 { try progress(start + index, input.height) }
                }
            },
            add: { sums, weights, fresh, count in mio_rs_add_weighted_bytes(taking, group, weights, sums, count, inputRow, fresh) },
            write: write)
    }

    /// The passes down and across, on rows that `take` reads `group` at a time (the first
    /// `count` of the group's places, from source row `start`), and that `add` adds into the
    /// `count` output rows' sums they weigh in, with `group` weights for each sum in turn (0 for a
    /// row outside the output's window, and for the places past the last row taken), each times
    /// `weightScale` (1/255 for 8-bit samples). A sum just opened is `fresh` (nonzero) for the
    /// first group it takes: `add` writes it as zeros plus the group, so it is never zeroed first
    /// (a pass over every output row's sum, 2.3 MB for a 12 MP JPEG's thumbnail).
    private static func streamDown<E: Error>(
        input: (width: Int, height: Int), output: (width: Int, height: Int), channels: Int, group: Int,
        weightScale: Float,
        take: (_ start: Int, _ count: Int) throws(E) -> Void,
        add: (_ sums: UnsafePointer<UnsafeMutablePointer<Float>?>, _ weights: UnsafePointer<Float>, _ fresh: UnsafePointer<UInt8>,
              _ count: Int) -> Void,
        write: (_ y: Int, _ row: UnsafeMutablePointer<Float>) throws(E) -> Void
    ) throws(E) -> Int {
        let across = Taps.cached(from: input.width, to: output.width)
        let down = Taps.cached(from: input.height, to: output.height)
        // Reducing by two or more, the pass down takes source rows `group` at a time (4, or up to
        // 16 of 8-bit RGB): each sum is then read and written once for the group, not once a row
        // (the pass is bound by moving the sums, not by the arithmetic).
        let pending = down.mostOpenAtOnce(inputCount: input.height, group: group)
        let inputRow = input.width * channels
        let sums = UnsafeMutablePointer<Float>.allocate(capacity: pending * (inputRow + 1))
        sums.initialize(repeating: 0, count: pending * (inputRow + 1))
        let finished = UnsafeMutablePointer<Float>.allocate(capacity: output.width * channels)
        let weights = UnsafeMutablePointer<Float>.allocate(capacity: pending * group)
        let adding = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: pending)
        // Per sum, whether it holds nothing yet; per sum given to `add`, the same.
        let opening = UnsafeMutablePointer<UInt8>.allocate(capacity: pending)
        opening.initialize(repeating: 0, count: pending)
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: pending)
        fresh.initialize(repeating: 0, count: pending)
        let planes = Self.planes(input: input.width, taps: across, channels: channels)
        defer {
            sums.deallocate()
            finished.deallocate()
            weights.deallocate()
            adding.deallocate()
            opening.deallocate()
            fresh.deallocate()
            planes.deallocate()
        }
        func sum(_ y: Int) -> UnsafeMutablePointer<Float> { sums + (y % pending) * (inputRow + 1) }

        let lastRow = zip(down.first, down.count).map { $0 + $1 }.max() ?? input.height
        var opened = 0, done = 0
        for start in stride(from: 0, to: lastRow, by: group) {
            let taken = min(group, lastRow - start)
            try take(start, taken)
            let last = start + taken - 1
            while opened < output.height, down.first[opened] <= last {
                opening[opened % pending] = 1
                opened += 1
            }
            // The group goes into every open sum whose window it reaches, in one pass over the group.
            var count = 0
            for y in done..<opened where start < down.first[y] + down.count[y] {
                for index in 0..<group {
                    let tap = start + index - down.first[y]
                    weights[count * group + index] = index < taken && tap >= 0 && tap < down.count[y]
                        ? down.weights[y * down.span + tap] * weightScale : 0
                }
                adding[count] = sum(y)
                fresh[count] = opening[y % pending]
                opening[y % pending] = 0
                count += 1
            }
            add(adding, weights, fresh, count)
            while done < opened, down.first[done] + down.count[done] <= last + 1 {
                if opening[done % pending] != 0 {
                    // Never given a group (no window is so): its zeros.
                    sum(done).update(repeating: 0, count: inputRow)
                    opening[done % pending] = 0
                }
                filterAcross(sum(done), into: finished, taps: across, input: input.width, width: output.width,
                             channels: channels, planes: planes)
                finish(finished, pixels: output.width, channels: channels)
                try write(done, finished)
                done += 1
            }
        }
        return lastRow
    }

    /// How many source rows the pass down takes at a time when reducing by two or more (rows of
    /// 8-bit RGB: ``byteGroupRows(input:output:)``): each takes one more row of the input's width.
    static let groupRows = 4

    /// How many rows of 8-bit RGB the pass down takes at a time: when reducing by two or more, as
    /// many as 16 (each sum then read and written once for 16 rows, not 4: the pass is bound by
    /// moving the sums) or 8 while no more sums are open at once than the estimate counts (8),
    /// else ``groupRows``; not reducing by two, one. Sixteen such rows are 48 bytes a pixel, fewer
    /// than the 4 float rows of 16 that ``DecodeEstimate`` counts for ``groupRows``.
    static func byteGroupRows(input: (width: Int, height: Int), output: (width: Int, height: Int)) -> Int {
        guard input.height >= 2 * output.height, input != output else { return 1 }
        let down = Taps.cached(from: input.height, to: output.height)
        return [16, 8].first { down.mostOpenAtOnce(inputCount: input.height, group: $0) <= 8 } ?? groupRows
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let pi = Double.pi
        return 3 * sin(pi * x) * sin(pi * x / 3) / (pi * pi * x * x)
    }

    // The inner loops are CResample's (built for AVX2 with FMA where the processor has it);
    // the loops left here run on output pixels only, written on Float pointers with while loops,
    // which stay usable in a debug build, where generic SIMD operators are not inlined.

    static func premultiply(_ row: UnsafeMutablePointer<Float>, pixels: Int) {
        var pixel = row, x = 0
        while x < pixels {
            let alpha = pixel[3]
            pixel[0] *= alpha
            pixel[1] *= alpha
            pixel[2] *= alpha
            pixel += 4
            x += 1
        }
    }

    /// Filters `row` (`input` pixels, a float to spare after the last) across into `target`,
    /// `channels` (3 or 4) floats a pixel: an RGBA pixel's four sums at once; an RGB row as three
    /// planes in `planes` (``planes(input:taps:channels:)``), each output a dot product eight floats wide.
    static func filterAcross(_ row: UnsafeMutablePointer<Float>, into target: UnsafeMutablePointer<Float>,
                             taps: Resampler.Taps, input: Int, width: Int, channels: Int, planes: UnsafeMutablePointer<Float>) {
        taps.first.withUnsafeBufferPointer { first in
            taps.count.withUnsafeBufferPointer { count in
                taps.weights.withUnsafeBufferPointer { weights in
                    mio_rs_filter_across(row, target, first.baseAddress, count.baseAddress, weights.baseAddress,
                                         taps.span, width, channels, input, planes)
                }
            }
        }
    }

    /// The planes a row of `input` pixels is filtered across in: for RGB, three of `input` floats,
    /// each followed by the zeros its last windows read past the row; for RGBA, which is filtered
    /// as it is, a single float (deallocated by the caller either way).
    static func planes(input: Int, taps: Taps, channels: Int) -> UnsafeMutablePointer<Float> {
        let count = channels == 3 ? 3 * (input + taps.span) : 1
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: count)
        planes.initialize(repeating: 0, count: count)
        return planes
    }

    /// `targets[j] += rows[0] * weights[j * rows] + ...` over `length` floats, for `rows` rows
    /// and `count` targets; a target whose `fresh[j]` is nonzero is written as if it held zeros.
    static func addWeighted(_ rows: UnsafePointer<UnsafePointer<Float>?>, count rowCount: Int, _ weights: UnsafePointer<Float>,
                            into targets: UnsafePointer<UnsafeMutablePointer<Float>?>, count: Int, length: Int,
                            fresh: UnsafePointer<UInt8>) {
        mio_rs_add_weighted_rows(rows, rowCount, weights, targets, count, length, fresh)
    }

    /// Clamps to 0...1 after Lanczos' negative lobes, dividing the colour by alpha again first.
    static func finish(_ pixels: UnsafeMutablePointer<Float>, pixels count: Int, channels: Int) {
        mio_rs_clamp(pixels, count * channels)
        guard channels == 4 else { return }
        var pixel = pixels, x = 0
        while x < count {
            let alpha = pixel[3]
            if alpha > 0 {
                pixel[0] = min(pixel[0] / alpha, 1)
                pixel[1] = min(pixel[1] / alpha, 1)
                pixel[2] = min(pixel[2] / alpha, 1)
            } else {
                pixel[0] = 0
                pixel[1] = 0
                pixel[2] = 0
            }
            pixel += 4
            x += 1
        }
    }
}
