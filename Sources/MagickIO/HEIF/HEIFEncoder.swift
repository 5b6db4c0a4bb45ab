internal import CHeif
import Foundation

/// HEIC and AVIF output through libheif: HEVC by x265, AV1 by aom (the encoders Debian 12's libheif
/// 1.15 is built with). ImageMagick 6.9's HEIC writer hands libheif 8-bit Y'CbCr 4:2:0 planes and
/// no alpha, so it loses transparency; here libheif gets interleaved RGB(A) and writes the alpha
/// as its own auxiliary image, as heif-enc does.
struct HEIFEncoder {
    enum Codec: Sendable {
        case hevc, av1

        var compression: heif_compression_format {
            self == .hevc ? heif_compression_HEVC : heif_compression_AV1
        }
    }

    let codec: Codec
    /// 1...100, libheif's lossy quality.
    let quality: Int

    /// Whether this libheif has an encoder for `codec` (`heif_have_encoder_for_format`).
    static func isAvailable(_ codec: Codec) -> Bool {
        guard let heif = LibHeifEncoding.shared else { return false }
        return heif.have_encoder_for_format(codec.compression) != 0
    }

    /// The chroma sampling: full (4:4:4) from quality 90 up, halved both ways (4:2:0) below.
    /// libvips' `subsample_mode=auto` rule, which imgproxy's and thumbor's AVIF output follow:
    /// at high quality the colour edges are worth the bytes, below it they are not.
    var chroma: String { quality >= 90 ? "444" : "420" }

    /// `rgba`: `width` x `height` pixels, 4 bytes each (straight alpha), rows packed. With
    /// `hasAlpha` false the alpha bytes are ignored and the file has no alpha image.
    func encode(rgba: [UInt8], width: Int, height: Int, hasAlpha: Bool) throws(MagickIOError) -> Data {
        guard let heif = LibHeifEncoding.shared, Self.isAvailable(codec) else {
            throw MagickIOError(.encodingFailed, "this libheif has no \(codec == .hevc ? "HEVC" : "AV1") encoder")
        }
        let image = try makeImage(heif, rgba: rgba, width: width, height: height, hasAlpha: hasAlpha)
        defer { heif.image_release(image) }

        guard let context = heif.context_alloc() else { throw MagickIOError(.encodingFailed, "libheif could not allocate a context") }
        defer { heif.context_free(context) }
        var encoder: OpaquePointer?
        try Self.check(heif.context_get_encoder_for_format(context, codec.compression, &encoder), "getting the encoder")
        guard let encoder else { throw MagickIOError(.encodingFailed, "libheif returned no encoder") }
        defer { heif.encoder_release(encoder) }
        try configure(heif, encoder)

        let options = heif.encoding_options_alloc()
        defer { heif.encoding_options_free(options) }
        options?.pointee.save_alpha_channel = hasAlpha ? 1 : 0
        try Self.check(heif.context_encode_image(context, image, encoder, options, nil), "encoding")

        let output = HEIFOutput()
        var writer = heif_writer(writer_api_version: 1) { _, data, size, userdata in
            let output = Unmanaged<HEIFOutput>.fromOpaque(userdata!).takeUnretainedValue()
            if let data, size > 0 { output.data.append(data.assumingMemoryBound(to: UInt8.self), count: size) }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: heifSuccess)
        }
        try withExtendedLifetime(output) { () throws(MagickIOError) in
            try Self.check(heif.context_write(context, &writer, Unmanaged.passUnretained(output).toOpaque()), "writing")
        }
        return output.data
    }

    /// A libheif image holding the pixels: interleaved RGBA, or RGB when there is no alpha.
    private func makeImage(_ heif: LibHeifEncoding, rgba: [UInt8], width: Int, height: Int, hasAlpha: Bool) throws(MagickIOError) -> OpaquePointer {
        guard width > 0, height > 0, rgba.count >= width * height * 4 else {
            throw MagickIOError(.encodingFailed, "no pixels to encode")
        }
        var image: OpaquePointer?
        let chroma = hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        try Self.check(heif.image_create(Int32(width), Int32(height), heif_colorspace_RGB, chroma, &image), "creating the image")
        guard let image else { throw MagickIOError(.encodingFailed, "libheif returned no image") }
        do throws(MagickIOError) {
            try Self.check(heif.image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8), "adding the plane")
            var stride: Int32 = 0
            guard let plane = heif.image_get_plane(image, heif_channel_interleaved, &stride) else {
                throw MagickIOError(.encodingFailed, "libheif returned no plane")
            }
            let channels = hasAlpha ? 4 : 3
            rgba.withUnsafeBufferPointer { source in
                for y in 0..<height {
                    let row = plane + y * Int(stride)
                    let from = y * width * 4
                    if hasAlpha {
                        row.update(from: source.baseAddress! + from, count: width * 4)
                    } else {
                        for x in 0..<width {
                            row[x * channels] = source[from + x * 4]
                            row[x * channels + 1] = source[from + x * 4 + 1]
                            row[x * channels + 2] = source[from + x * 4 + 2]
                        }
                    }
                }
            }
        } catch {
            heif.image_release(image)
            throw error
        }
        return image
    }

    /// Quality, chroma and speed, by the names each encoder knows them by.
    private func configure(_ heif: LibHeifEncoding, _ encoder: OpaquePointer) throws(MagickIOError) {
        try Self.check(heif.encoder_set_lossy_quality(encoder, Int32(min(max(quality, 1), 100))), "setting the quality")
        try Self.check(heif.encoder_set_parameter(encoder, "chroma", chroma), "setting the chroma")
        switch codec {
        case .av1:
            // aom's speed 0...9: libheif's default, 6, costs about three times the CPU of 8 on a
            // 256-px thumbnail for a file within a few per cent of the size.
            try Self.check(heif.encoder_set_parameter(encoder, "speed", "8"), "setting the speed")
        case .hevc:
            // libheif's default preset, slow, costs twice the CPU of fast on a thumbnail for the
            // same size.
            try Self.check(heif.encoder_set_parameter(encoder, "preset", "fast"), "setting the preset")
        }
    }

    /// libheif's failure while encoding (``LibHeif/check(_:_:otherwise:)``): encoding failed.
    static func check(_ error: heif_error, _ doing: String) throws(MagickIOError) {
        try LibHeif.check(error, doing, otherwise: .encodingFailed)
    }
}

/// What one `heif_context_write` has written so far.
private final class HEIFOutput {
    var data = Data()
}

/// The message of the success a writer returns: libheif keeps the pointer, so it is static text.
nonisolated(unsafe) private let heifSuccess: UnsafePointer<CChar> = UnsafeRawPointer(StaticString("Success").utf8Start)
    .assumingMemoryBound(to: CChar.self)
