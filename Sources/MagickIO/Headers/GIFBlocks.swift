/// A GIF's blocks, walked as ImageMagick's GIF coder reads them (coders/gif.c, 6.9.11), and resumable
/// as more data arrives: the logical screen and global colour table, then extensions (a label and
/// sub-blocks), image descriptors (with a local colour table, the LZW code size and sub-blocks) and
/// the trailer; a byte that starts none of these is skipped, as ImageMagick skips it.
///
/// The one GIF walker: the frame properties, the frame count, the incremental source's complete
/// frames and the metadata census (each extension handed to a visitor) all come from it. Each step
/// moves past at least one byte, so a walk is bounded by the data; it stops after `maxFrames`
/// image descriptors.
struct GIFBlocks {
    /// An image descriptor: its rectangle on the logical screen, and whether a graphic control
    /// extension before it names a transparent colour (ImageMagick's `matte`).
    struct Frame: Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var hasAlpha: Bool
        /// Where its descriptor starts, and where its image data ends (once it has).
        var descriptor: Int
        var end: Int?
    }

    /// An extension, handed to ``advance(_:maxFrames:visit:)``'s visitor once its terminator is read.
    struct Extension {
        var label: UInt8
        /// From its introducer to past its terminator.
        var range: Range<Int>
        /// Its data sub-blocks, and their bytes.
        var blocks = 0
        var size = 0
        /// An application extension's identifier and authentication code (`NETSCAPE2.0`).
        var application: String?
        /// A byte that starts no block came before it (and was skipped).
        var followsStrayByte: Bool
    }

    /// The logical screen's size, once read.
    private(set) var screen: (width: Int, height: Int)?
    /// The image descriptors read so far (the last one's data may still be arriving).
    private(set) var frames: [Frame] = []
    /// The frames whose image data has ended, and the offset just past the last of them.
    private(set) var completeFrames = 0
    private(set) var completeEnd = 0
    /// Why ImageMagick's coder would refuse the file, as far as read.
    private(set) var corrupt: String?
    /// The trailer was reached.
    private(set) var ended = false
    /// The walk stopped at `maxFrames` descriptors.
    private(set) var capped = false

    private var offset = 0
    private var globalColours = 0
    /// The transparent index of the pending graphic control extension.
    private var transparent: Int?
    private enum Inside { case nothing, graphicControl, otherExtension, image }
    private var inside = Inside.nothing
    /// The extension being read.
    private var pending: Extension?
    /// A byte that starts no block was skipped.
    private(set) var strayed = false

    /// Walks on from where the last call stopped, handing each complete extension to `visit`; what
    /// is not complete yet waits for more data.
    mutating func advance(_ reader: inout ByteReader, maxFrames: Int, visit: (Extension) -> Void = { _ in }) {
        if screen == nil {
            guard let head = reader.bytes(at: 6, 7) else { return }
            globalColours = 1 << (Int(head[4] & 7) + 1)
            offset = 13 + (head[4] & 0x80 != 0 ? 3 * globalColours : 0)
            screen = (head.u16le(at: 0), head.u16le(at: 2))
        }
        while corrupt == nil, !ended, !capped {
            if inside != .nothing {
                guard let length = reader.u8(at: offset) else { return }
                guard length == 0 || reader.u8(at: offset + Int(length)) != nil else { return }
                if inside == .graphicControl, length >= 4, let block = reader.bytes(at: offset + 1, 4) {
                    // ImageMagick keeps the last sub-block of the extension.
                    transparent = block[0] & 1 == 1 ? Int(block[3]) : nil
                }
                if length > 0 {
                    pending?.blocks += 1
                    pending?.size += Int(length)
                }
                offset += 1 + Int(length)
                if length == 0 {
                    if var complete = pending {
                        complete.range = complete.range.lowerBound..<offset
                        if complete.label == 0xFF, let identifier = reader.bytes(at: complete.range.lowerBound + 3, 11) {
                            complete.application = String(decoding: identifier, as: UTF8.self)
                        }
                        visit(complete)
                        pending = nil
                    }
                    if inside == .image {
                        frames[frames.count - 1].end = offset
                        completeFrames = frames.count
                        completeEnd = offset
                    }
                    inside = .nothing
                }
                continue
            }
            guard let introducer = reader.u8(at: offset) else { return }
            switch introducer {
            case 0x3B:
                ended = true
            case 0x21:
                guard let label = reader.u8(at: offset + 1) else { return }
                pending = Extension(label: label, range: offset..<offset, followsStrayByte: strayed)
                offset += 2
                inside = label == 0xF9 ? .graphicControl : .otherExtension
            case 0x2C:
                guard let descriptor = reader.bytes(at: offset + 1, 9) else { return }
                let flags = descriptor[8]
                let colours = flags & 0x80 == 0 ? globalColours : 1 << (Int(flags & 7) + 1)
                let table = flags & 0x80 == 0 ? 0 : 3 * colours
                guard reader.u8(at: offset + 10 + table) != nil else { return }
                let frame = Frame(x: descriptor.u16le(at: 0), y: descriptor.u16le(at: 2),
                                  width: descriptor.u16le(at: 4), height: descriptor.u16le(at: 6),
                                  hasAlpha: transparent.map { $0 <= colours } ?? false, descriptor: offset)
                guard frame.width > 0, frame.height > 0 else {
                    corrupt = "GIF frame \(frames.count) has no pixels (\(frame.width)x\(frame.height))"
                    return
                }
                frames.append(frame)
                transparent = nil
                offset += 10 + table + 1  // the LZW minimum code size
                inside = .image
                capped = frames.count >= maxFrames
            default:
                strayed = true
                offset += 1
            }
        }
    }

    /// Marks what a complete file leaves unfinished as ImageMagick's coder would refuse it.
    mutating func finish(_ reader: inout ByteReader) {
        guard corrupt == nil, !capped else { return }
        if screen == nil {
            corrupt = "the GIF ends inside its logical screen descriptor"
        } else if reader.count < offset, inside == .nothing {
            corrupt = "the GIF ends inside its colour table"
        } else if frames.isEmpty {
            corrupt = "the GIF has no image descriptor"
        } else if inside == .nothing, !ended, let byte = reader.u8(at: offset), byte == 0x21 || byte == 0x2C {
            corrupt = "the GIF ends inside an extension or image descriptor"
        }
    }
}
