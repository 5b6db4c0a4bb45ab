import Foundation

// The frames a decode may show a coder: ImageMagick 6's WebP coder decodes every frame of an
// animated WebP into an image of its own, whatever subimage it is asked for (measured: `[0]` of 50
// frames of 2500x2500 fills a 512 MiB pixel cache), so a 100 KB file of 2,000 frames keeps a core
// busy for minutes. Its GIF and TIFF coders stop after the subimage asked for, and need no copy.

extension SourceBytes {
    /// An animated WebP cut after its frame `last`: the RIFF header rewritten, every chunk before
    /// the frames and after them kept (`VP8X`, `ANIM`, `ICCP`, `EXIF`, `XMP `), the `ANMF` chunks
    /// past `last` left out. Nil when nothing would be left out. `index`: the walk of these bytes
    /// their source took when it opened (walked here when there is none).
    func webpFrames(through last: Int, index: RIFFIndex? = nil) -> SourceBytes? {
        var reader = ByteReader(self)
        var kept: [Range<Int>] = []
        var frames = 0
        var dropped = false
        let keep = { (reader: inout ByteReader, chunk: RIFFChunks.Chunk) -> Bool in
            let end = min(chunk.end, reader.count)
            if chunk.id == "ANMF" {
                frames += 1
                guard frames <= last + 1 else {
                    dropped = true
                    return true
                }
            }
            kept.append(chunk.offset..<end)
            return end > chunk.offset
        }
        if let index { index.visit(&reader, keep) } else { RIFFChunks.walk(&reader, visit: keep) }
        guard dropped else { return nil }
        var data = Data(capacity: 12 + kept.reduce(0) { $0 + $1.count })
        data.append(contentsOf: Array("RIFF".utf8))
        let length = UInt32(clamping: 4 + kept.reduce(0) { $0 + $1.count })
        withUnsafeBytes(of: length.littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: Array("WEBP".utf8))
        for range in kept {
            data.append(contentsOf: read(at: range.lowerBound, length: range.count))
        }
        return .memory(data)
    }
}
