/// A WebP's frames from its RIFF chunks, as ImageMagick's coder (coders/webp.c, 6.9.11, through
/// libwebp's features and demuxer) gives them, without decoding any frame: a still image is the
/// VP8X canvas or the bitstream's size, with alpha from the VP8X flag or the VP8L header; an
/// animation is one frame per `ANMF` chunk on the canvas, with alpha when the frame carries an
/// `ALPH` chunk or a VP8L bitstream with alpha. The orientation is MagickIO's reading of the `EXIF`
/// chunk (``ImageHeader``), which ImageMagick 6 ignores.
enum WebPProperties {
    static func read(_ bytes: SourceBytes, header: ImageHeader?, index: RIFFIndex, maxFrames: Int) throws(MagickIOError) -> [ImageProperties] {
        guard let header else { throw MagickIOError(.corruptImage, "the WebP has no VP8, VP8L or VP8X header") }
        var reader = ByteReader(bytes)
        var still = ImageProperties(format: .webp, width: header.width, height: header.height)
        still.hasAlpha = header.hasAlpha
        still.orientation = header.orientation ?? .up
        guard reader.bytes(at: 12, 4) == Array("VP8X".utf8), let flags = reader.u8(at: 20), flags & 0x02 != 0 else {
            return [still]
        }
        var frames: [ImageProperties] = []
        index.visit(&reader) { reader, chunk in
            guard chunk.id == "ANMF" else { return true }
            guard let head = reader.bytes(at: chunk.data.lowerBound, 16), chunk.length >= 16 else { return false }
            var frame = ImageProperties(format: .webp, width: head.u24le(at: 6) + 1, height: head.u24le(at: 9) + 1)
            frame.orientation = still.orientation
            var inner = chunk.data.lowerBound + 16
            while inner + 8 <= chunk.data.upperBound, let id = reader.bytes(at: inner, 4), let length = reader.u32le(at: inner + 4) {
                if id == Array("ALPH".utf8) { frame.hasAlpha = true }
                if id == Array("VP8L".utf8), let bits = reader.u32le(at: inner + 9), (bits >> 28) & 1 == 1 { frame.hasAlpha = true }
                inner = inner.saturatingPlus(8).saturatingPlus(length).saturatingPlus(length & 1)
            }
            frame.place(onCanvas: (header.width, header.height), x: 2 * head.u24le(at: 0), y: 2 * head.u24le(at: 3))
            frames.append(frame)
            return frames.count < maxFrames
        }
        guard !frames.isEmpty else { throw MagickIOError(.corruptImage, "the animated WebP has no ANMF frame") }
        return frames
    }
}
