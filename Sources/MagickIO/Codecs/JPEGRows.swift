internal import CCodecs
import Foundation

/// A JPEG's rows through libjpeg-turbo, at a DCT scale of `k`/8, as ImageMagick's JPEG coder
/// would decode them: YCbCr (or plain RGB) with three components only, ISLOW DCT, fancy
/// upsampling. Anything else (CMYK, YCCK, grey, an Adobe marker), any error and any warning but
/// damage the strictness refuses (which ends the decode) is a ``RowSourceFailure/fallback(_:)``:
/// ImageMagick decodes the file instead.
final class JPEGRows: RawRowSource {
    private let decoder: OpaquePointer
    private var info = mio_jpeg_info()
    private let interrupt: Interrupt?
    private let strictness: Strictness
    private(set) var width = 0
    private(set) var height = 0
    let channels = 3
    private(set) var iccProfile: [UInt8]?
    private var rowsRead = 0
    /// One row of libjpeg's 8-bit output.
    private var scratch: UnsafeMutablePointer<UInt8>?
    /// The file mapped for libjpeg to read in place (``mapsFile(size:)``), unmapped after the decoder.
    private var mapping: FileMapping?

    /// The header of `input` read, the file checked to be one this path decodes exactly, and
    /// decompression started at `scale`/8. libjpeg may allocate at most `memoryLimit` bytes.
    /// `mapsFile`: whether a file (`descriptor`) is mapped rather than read (``mapsFile(size:)``
    /// unless a test says).
    init(input: UnsafePointer<UInt8>?, descriptor: Int32, size: Int, scale: Int, memoryLimit: Int,
         strictness: Strictness, interrupt: Interrupt?, mapsFile: Bool? = nil) throws(RowSourceFailure) {
        let stop: mio_stop_callback = { context in
            guard let context else { return 0 }
            return Unmanaged<Interrupt>.fromOpaque(context).takeUnretainedValue().progressPoint() ? 0 : 1
        }
        let context = interrupt.map { Unmanaged.passUnretained($0).toOpaque() }
        // The guard's limit on the scans' work, held again inside libjpeg as each scan starts.
        guard let decoder = mio_jpeg_create(memoryLimit, Int64(JPEGSegments.maxBlockScans), interrupt == nil ? nil : stop,
                                            context) else {
            throw .fallback("libjpeg could not start")
        }
        self.decoder = decoder
        self.interrupt = interrupt
        self.strictness = strictness
        if input == nil, mapsFile ?? Self.mapsFile(size: size) {
            mapping = FileMapping(descriptor: descriptor, size: size, access: .whole)
        }
        try check(mio_jpeg_open(decoder, input ?? mapping?.bytes, descriptor, size, &info))
        guard info.components == 3, info.colorspace == MIO_JPEG_YCBCR || info.colorspace == MIO_JPEG_RGB,
              info.adobe == 0 else {
            throw .fallback("a JPEG with \(info.components) components (colour space \(info.colorspace.rawValue), Adobe marker \(info.adobe))")
        }
        var length = 0
        if let icc = mio_jpeg_icc(decoder, &length), length > 0 {
            iccProfile = Array(UnsafeBufferPointer(start: icc, count: length))
        }
        try check(mio_jpeg_start(decoder, Int32(scale), 0, &info))
        guard info.output_components == 3 else { throw .fallback("libjpeg gave \(info.output_components) components") }
        width = Int(info.output_width)
        height = Int(info.output_height)
        scratch = .allocate(capacity: width * 3)
    }

    /// The buffer a file of `fileBytes` is read into (`mio_jpeg_read_buffer_bytes`: the file's
    /// size up to 256 KiB; that much when the size is not known).
    static func readBufferBytes(fileBytes: Int) -> Int {
        Int(mio_jpeg_read_buffer_bytes(fileBytes > 0 ? fileBytes : Int(MIO_JPEG_READ_SIZE)))
    }

    deinit {
        mio_jpeg_destroy(decoder)
        scratch?.deallocate()
    }

    /// Whether a file of `size` bytes is mapped (``FileMapping``, its pages read in at once) for
    /// libjpeg to decode in place rather than read 256 KiB at a time (`MIO_JPEG_READ_SIZE`): only in
    /// a decode worker (``FileMapping/isAllowed(size:)``, which says why), and up to
    /// ``maxMappedBytes``. libjpeg-turbo's fast Huffman decoder then runs to the end of the file
    /// instead of stopping a few KiB before the end of each read, and the bytes are not copied:
    /// about 0.6 ms less CPU for a 12 MP photo (the last KiB of every 256 KiB read decoded at half
    /// speed, and the copy). The worker's resident size grows by at most ``maxMappedBytes``.
    static func mapsFile(size: Int) -> Bool {
        FileMapping.isAllowed(size: size) && size <= maxMappedBytes
    }

    /// The largest JPEG a worker maps: 8 MiB, a 24 MP photo and then some.
    static let maxMappedBytes = 8 << 20

    /// Whether libjpeg reads the file where it lies (``mapsFile(size:)``).
    var isMapped: Bool { mapping != nil }

    var rawRowBytes: Int { width * 3 }

    func readRow(into row: UnsafeMutablePointer<Float>) throws(RowSourceFailure) {
        guard let buffer = scratch else { throw .fallback("not started") }
        try readRawRow(into: buffer)
        convert(buffer, into: row)
    }

    func readRawRow(into raw: UnsafeMutableRawPointer) throws(RowSourceFailure) {
        let read = mio_jpeg_read(decoder, raw.assumingMemoryBound(to: UInt8.self), width * 3, 1)
        if read != 1 { try check(-1) }
        try checkWarnings()
        rowsRead += 1
    }

    var givesRGBBytes: Bool { true }

    func convert(_ raw: UnsafeRawPointer, into row: UnsafeMutablePointer<Float>) {
        SampleConversion.convert(raw.assumingMemoryBound(to: UInt8.self), count: width * 3, into: row)
    }

    func finish() throws(RowSourceFailure) {
        guard let buffer = scratch else { throw .fallback("not started") }
        while rowsRead < height {
            try readRawRow(into: buffer)
        }
        try check(mio_jpeg_finish(decoder))
        try checkWarnings()
    }

    /// A warning that means damage the strictness refuses ends the decode at the row it came
    /// with: ImageMagick's decoder, the same libjpeg, would only decode the whole picture again to
    /// find it (a 13 KB file declaring 8800x8800, cut in its first scan, cost 1.8 s and 190 MiB
    /// that way). Any other warning hands the file to ImageMagick, which lists it.
    private func checkWarnings() throws(RowSourceFailure) {
        guard mio_jpeg_warnings(decoder) > 0 else { return }
        if strictness.refuses(DecoderWarning(message, format: .jpeg)) {
            throw .stopped(MagickIOError(.corruptImage, DecoderMessages.explained(message, format: .jpeg, by: "libjpeg")))
        }
        throw .fallback("libjpeg warned: \(message)")
    }

    private func check(_ status: Int32) throws(RowSourceFailure) {
        guard status != 0 else { return }
        if mio_jpeg_stopped(decoder) != 0, let interrupt {
            do throws(MagickIOError) {
                try interrupt.check()
            } catch {
                throw .stopped(error)
            }
        }
        // A decode stopped for the scan-work limit is refused, not decoded again by ImageMagick.
        if mio_jpeg_limited(decoder) != 0 {
            throw .stopped(MagickIOError.limit("jpegScanWork", requested: JPEGSegments.maxBlockScans + 1,
                                               limit: JPEGSegments.maxBlockScans,
                                               "libjpeg: \(message)"))
        }
        throw .fallback("libjpeg: \(message)")
    }

    /// The decoder's last message, in libjpeg's words: the one place its failures are read.
    private var message: String {
        String(cString: mio_jpeg_message(decoder))
    }
}
