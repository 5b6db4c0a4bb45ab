/// The marker segments of a JPEG up to its first frame header, walked the way libjpeg reads them
/// (`next_marker` in jdmarker.c): bytes that are not a marker are skipped until the next 0xFF (a
/// "extraneous bytes" warning, not an error), any number of 0xFF fill bytes may precede a marker
/// code, and any number of segments may come before the frame header. The walk is bounded by the
/// source's bytes, never by a count of steps, so a header libjpeg reads is a header MagickIO reads.
enum JPEGSegments {
    /// A frame header (SOFn).
    struct Frame: Sendable, Hashable {
        /// The SOF marker code (0xC0 baseline, 0xC2 progressive, ...).
        var code: UInt8
        var precision: Int
        var width: Int
        var height: Int
        /// Each component's horizontal and vertical sampling factors.
        var sampling: [(horizontal: Int, vertical: Int)]
        /// Each component's identifier.
        var componentIDs: [UInt8]
        /// Where the frame header segment starts (its 0xFF) and ends in the data.
        var segmentStart: Int
        var segmentEnd: Int

        /// Progressive or lossless-progressive: libjpeg keeps every coefficient of the image.
        var isProgressive: Bool { [0xC2, 0xC6, 0xCA, 0xCE].contains(code) }

        static func == (a: Frame, b: Frame) -> Bool {
            a.code == b.code && a.precision == b.precision && a.width == b.width && a.height == b.height
                && a.sampling.map(\.horizontal) == b.sampling.map(\.horizontal)
                && a.sampling.map(\.vertical) == b.sampling.map(\.vertical)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(code)
            hasher.combine(width)
            hasher.combine(height)
        }
    }

    /// A segment with a length: its marker code and where its payload (after the length) lies.
    struct Segment: Sendable {
        var code: UInt8
        var payload: Range<Int>
    }

    /// Why the walk found no frame header.
    enum Failure: Error, Equatable {
        /// The data does not start with SOI.
        case notJPEG
        /// A scan or the end of the image came before any frame header (libjpeg refuses it too).
        case noFrameHeader
        /// The source ended before the frame header (a partial file: the decoder decides).
        case truncated
        /// A segment length below 2, or a frame header too short for its components.
        case malformed
    }

    /// Walks from SOI to the first frame header, handing every segment before it to `visit`.
    static func frame(in reader: inout ByteReader, visit: (inout ByteReader, Segment) -> Void = { _, _ in })
        -> Result<Frame, Failure> {
        guard reader.u8(at: 0) == 0xFF, reader.u8(at: 1) == 0xD8 else { return .failure(.notJPEG) }
        var offset = 2
        while true {
            // next_marker: skip to a 0xFF, then past fill bytes; FF 00 is data, not a marker.
            var code: UInt8 = 0
            repeat {
                while true {
                    guard let byte = reader.u8(at: offset) else { return .failure(.truncated) }
                    offset += 1
                    if byte == 0xFF { break }
                }
                while true {
                    guard let byte = reader.u8(at: offset) else { return .failure(.truncated) }
                    offset += 1
                    code = byte
                    if byte != 0xFF { break }
                }
            } while code == 0x00
            switch code {
            case 0xD8, 0xD0...0xD7, 0x01:
                continue  // no length
            case 0xD9, 0xDA:
                return .failure(.noFrameHeader)
            default:
                break
            }
            guard let length = reader.u16be(at: offset) else { return .failure(.truncated) }
            guard length >= 2 else {
                // As in ``walkAll(_:from:untilScan:visit:)``: libjpeg reads on after a skipped marker's
                // short length.
                guard isSkipped(code) else { return .failure(.malformed) }
                offset += 2
                continue
            }
            let payload = (offset + 2)..<(offset + length)
            if (0xC0...0xCF).contains(code), code != 0xC4, code != 0xC8, code != 0xCC {
                return frameHeader(code: code, marker: offset - 2, payload: payload, reader: &reader)
            }
            visit(&reader, Segment(code: code, payload: payload))
            offset += length
        }
    }

    /// Walks every marker segment from SOI to EOI, handing each to `visit` (the frame header and
    /// each scan header included), across the entropy-coded data of every scan: there a 0xFF
    /// followed by 0x00 (a stuffed byte) or an RSTn is data, as in libjpeg's `next_marker`, so
    /// segments between scans and after the last one are seen too. `untilScan` stops after the
    /// first scan header (what libjpeg's `jpeg_read_header`, and so a ping, reads). Bounded by
    /// the source's bytes; true when it reached EOI (or, `untilScan`, the first scan). `from`: where
    /// a walk that already visited the segments before goes on (the end of the last one; that walk
    /// checked SOI).
    static func walkAll(_ reader: inout ByteReader, from start: Int = 2, untilScan: Bool = false,
                        visit: (inout ByteReader, Segment) -> Void) -> Bool {
        guard start > 2 || (reader.u8(at: 0) == 0xFF && reader.u8(at: 1) == 0xD8) else { return false }
        var offset = max(start, 2)
        while true {
            guard let marker = reader.firstIndex(of: 0xFF, from: offset) else { return false }
            offset = marker + 1
            var code: UInt8 = 0xFF
            while code == 0xFF {
                guard let byte = reader.u8(at: offset) else { return false }
                offset += 1
                code = byte
            }
            switch code {
            case 0x00, 0xD0...0xD7, 0x01, 0xD8:
                continue  // stuffing, a restart marker, TEM, a stray SOI: no length
            case 0xD9:
                return true
            default:
                break
            }
            guard let length = reader.u16be(at: offset) else { return false }
            guard length >= 2 else {
                // libjpeg skips a marker it only steps over (APPn, COM, and the rest it does not
                // use) by its length less two: for a length of 0 or 1, nothing, and it reads on
                // from the next byte. A table, frame or scan header that short stops the decode.
                guard Self.isSkipped(code) else { return false }
                offset += 2
                continue
            }
            visit(&reader, Segment(code: code, payload: (offset + 2)..<(offset + length)))
            if untilScan, code == 0xDA { return true }
            offset += length
        }
    }

    /// Markers libjpeg steps over by their length (`skip_variable`, `get_interesting_appn`,
    /// `save_marker`) rather than parse: APPn, COM, and what it does not use (JPG0-JPG13, DNL,
    /// DHP, EXP).
    static func isSkipped(_ code: UInt8) -> Bool {
        (0xE0...0xEF).contains(code) || (0xF0...0xFE).contains(code) || (0xDC...0xDF).contains(code)
    }

    private static func frameHeader(code: UInt8, marker: Int, payload: Range<Int>, reader: inout ByteReader) -> Result<Frame, Failure> {
        guard payload.count >= 6, let head = reader.bytes(at: payload.lowerBound, 6) else { return .failure(.truncated) }
        let components = Int(head[5])
        guard components > 0, payload.count >= 6 + 3 * components else { return .failure(.malformed) }
        guard let specs = reader.bytes(at: payload.lowerBound + 6, 3 * components) else { return .failure(.truncated) }
        var sampling: [(horizontal: Int, vertical: Int)] = []
        var ids: [UInt8] = []
        for component in 0..<components {
            let factors = specs[component * 3 + 1]
            sampling.append((horizontal: Int(factors >> 4), vertical: Int(factors & 0x0F)))
            ids.append(specs[component * 3])
        }
        let width = head.u16be(at: 3), height = head.u16be(at: 1)
        return .success(Frame(code: code, precision: Int(head[0]), width: width, height: height, sampling: sampling,
                              componentIDs: ids, segmentStart: marker, segmentEnd: payload.upperBound))
    }
}
