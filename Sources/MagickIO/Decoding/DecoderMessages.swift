/// What a decoder's terse message says was wrong with the file, in a sentence: libjpeg's warnings
/// and errors (jerror.h) reach the caller as ImageMagick words them ("Premature end of JPEG file
/// `photo.jpg' @ warning/jpeg.c/JPEGWarningHandler/389"), which name libjpeg's concern, not the
/// file's fault.
enum DecoderMessages {
    /// libjpeg's message texts (jerror.h) and what each means for the file, first match wins.
    private static let libjpeg: [(text: String, meaning: String)] = [
        ("premature end of jpeg file", "the file ends before its last row: it is truncated, and the missing rows would be grey"),
        ("premature end of data segment", "the compressed data stops before a segment's end: the file is truncated or damaged there"),
        ("bad huffman code", "the compressed data is damaged (a code no Huffman table holds): some blocks would be wrong"),
        ("bad arithmetic code", "the compressed data is damaged (an impossible arithmetic code): some blocks would be wrong"),
        ("instead of rst", "a restart marker is missing from the compressed data: it is damaged there"),
        ("extraneous bytes before marker", "stray bytes lie between two of the file's segments"),
        ("inconsistent progression sequence", "the progressive scans contradict each other: the file is damaged"),
        ("bad icc marker", "an ICC profile segment is malformed"),
        ("unsupported marker type", "the file holds a marker no JPEG has: it is damaged or not a JPEG"),
        ("bogus marker length", "a segment's length is impossible: the file is damaged"),
        ("was not defined", "a scan uses a table the file never defines: it is damaged"),
        ("not a jpeg file", "the data does not start as a JPEG does"),
        ("empty input file", "the file is empty"),
        ("corrupt jpeg data", "the compressed data is damaged"),
    ]

    /// `message` led by what it means for the file when it is one of libjpeg's (from a JPEG, or
    /// from a TIFF's JPEG-compressed strips); `message` itself otherwise.
    /// `by` names who reported it.
    static func explained(_ message: String, format: ImageFormat, by reporter: String = "libjpeg through ImageMagick") -> String {
        let text = message.lowercased()
        guard format == .jpeg || (format == .tiff && text.contains("jpeglib")),
              let known = libjpeg.first(where: { text.contains($0.text) }) else { return message }
        return "\(known.meaning) (\(reporter): \(message))"
    }
}
