import Foundation

extension ImageSource {
    /// The thumbnail a camera stored in a JPEG's EXIF data (IFD1's `JPEGInterchangeFormat`), opened
    /// as a source of its own that carries the main image's orientation, or nil.
    func embeddedThumbnail() -> ImageSource? {
        guard format == .jpeg, let range = header?.exifRange, !range.isEmpty,
              let thumbnail = EXIF.thumbnailRange(bytes.read(at: range.lowerBound, length: range.count)) else { return nil }
        let data = bytes.read(at: range.lowerBound + thumbnail.lowerBound, length: thumbnail.count)
        guard data.count == thumbnail.count,
              var source = try? ImageSource(bytes: .memory(Data(data)), options: options),
              source.format == .jpeg else { return nil }
        // The stored thumbnail has no orientation of its own: it is stored as the image is.
        let orientation = frames.first?.orientation ?? .up
        for index in source.frames.indices { source.frames[index].orientation = orientation }
        return source
    }
}
