/// What MagickIO reads from a file's header itself, in Swift, before ImageMagick sees the bytes:
/// enough to estimate a decode's cost and refuse a decompression bomb. (Every frame's properties
/// come from ``FrameProperties``.)
///
/// Parsed for JPEG (SOF segment, EXIF orientation), PNG (IHDR and the chunk headers), GIF
/// (logical screen), WebP (VP8/VP8L/VP8X), TIFF (``TIFFHeader``, from the file's ``TIFFIndex``) and
/// HEIC/AVIF (the primary item's `ispe`, else the largest) and BMP (``BMPHeader``). A format a user
/// allows beyond the default eight has none: its cost needs only the frame's size (``DecodeEstimate``).
struct ImageHeader: Sendable, Hashable {
    var width: Int
    var height: Int
    /// Colour components per pixel as stored (JPEG: 1, 3 or 4).
    var components: Int = 3
    var hasAlpha = false
    var bitDepth = 8
    /// A progressive JPEG: libjpeg keeps every DCT coefficient of the whole image while decoding.
    var isProgressive = false
    /// JPEG: coded samples per pixel over all components, after chroma subsampling (3 for 4:4:4,
    /// 1.5 for 4:2:0): what the coefficient buffer of a progressive decode scales with.
    var samplesPerPixel: Double = 3
    /// WebP: the image data is lossless (VP8L), for which libwebp holds the whole stored image
    /// while decoding; nil when the walk did not reach it (the cost model then assumes it is).
    var isLossless: Bool?
    /// WebP: what libwebp allocates for the prefix codes of its VP8L streams (a lossless image, a
    /// losslessly compressed alpha plane; an animation's costliest frame), ``VP8LPrefixCodes/none``
    /// without one; a stream that cannot be read counts as its size's worst case, and nil (the
    /// walk reached no image data) is costed so too.
    var vp8lCodes: VP8LPrefixCodes?
    /// PNG: Adam7 interlacing, for which libpng holds the whole image while decoding.
    var isInterlaced = false
    /// PNG: where a text chunk holding EXIF as a "Raw profile type exif" lies (the whole chunk).
    var rawEXIFChunk: Range<Int>?
    /// TIFF: each page's storage (in IFD order), for the cost of ImageMagick's read of it.
    var tiffPages: [TIFFLayout] = []
    /// The EXIF orientation, when the header carries one.
    var orientation: Orientation?
    /// JPEG: where the EXIF data (its TIFF structure) lies in the file.
    var exifRange: Range<Int>?
    /// HEIC/AVIF: the pixels of the largest picture libheif will make for the primary image (a
    /// codec's as its bitstream codes it, a grid's canvas), when that is more than the declared
    /// size: libheif 1.15 never holds the two to each other, so the guard counts this instead.
    var codedPixels: Int?
    /// HEIC/AVIF: the primary image's size as libheif decodes it, its `clap` and `irot` applied
    /// (``HEIFItems/shownSize(of:_:)``); `width` and `height` are the size it declares, as stored.
    var shown: ImageSize?
    /// HEIC/AVIF: the primary image's grid when MagickIO decodes it a row of tiles at a time.
    var tiling: HEIFTiling?
    /// HEIC: the primary image when libheif's planar RGB is taken for its rows.
    var planarImage: HEIFPlanarImage?
    /// BMP: the bytes of the copy of an OS/2 2.x file ImageMagick is given
    /// (``BMPHeader/copiedBytes(_:)``), held beside the coder's buffers; 0 for other BMPs.
    var copiedBytes = 0
    /// Why the structure is unsafe to hand to ImageMagick at all, if it is.
    var corrupt: String?
    /// What refusing it for `corrupt` is: a corrupt image, or one MagickIO does not decode.
    var refusal: MagickIOError.Kind = .corruptImage

    /// The header of `bytes` (a TIFF's, a HEIF file's or a JPEG's from `index`, its walk); nil when the format
    /// has none here, or when it cannot be parsed (the cost model then assumes the costliest case
    /// for the format).
    static func parse(_ bytes: SourceBytes, format: ImageFormat, index: ContainerIndex?) -> ImageHeader? {
        var reader = ByteReader(bytes)
        let header: ImageHeader?
        switch format {
        case .jpeg: header = parseJPEG(index?.jpeg ?? JPEGIndex(bytes), bytes)
        case .png: header = parsePNG(index?.png ?? PNGIndex(bytes), bytes)
        case .gif: header = parseGIF(&reader)
        case .webp: header = parseWebP(&reader, index: index?.webp ?? RIFFIndex(bytes))
        case .tiff: header = index?.tiff.flatMap(TIFFHeader.parse)
        case .heic, .avif: header = index?.heif.flatMap { parseISOBMFF($0, &reader) }
        case .bmp: header = parseBMP(bytes)
        default: header = nil
        }
        guard let header, header.corrupt != nil || (header.width > 0 && header.height > 0) else { return nil }
        return header
    }

    private static func parseBMP(_ bytes: SourceBytes) -> ImageHeader? {
        guard let bmp = try? BMPHeader.read(bytes) else { return nil }
        var header = ImageHeader(width: bmp.width, height: bmp.height)
        header.copiedBytes = bmp.copiedBytes(bytes.count)
        return header
    }

    private static func parseJPEG(_ index: JPEGIndex, _ bytes: SourceBytes) -> ImageHeader? {
        var orientation: Orientation?
        var exifRange: Range<Int>?
        index.visit(bytes) { reader, segment in
            guard segment.code == 0xE1, exifRange == nil, segment.payload.count > 6,
                  reader.bytes(at: segment.payload.lowerBound, 6) == Array("Exif\0\0".utf8) else { return }
            exifRange = (segment.payload.lowerBound + 6)..<segment.payload.upperBound
            if let exif = reader.bytes(at: segment.payload.lowerBound, min(segment.payload.count, 1 << 16)) {
                orientation = EXIF.orientation(exif)
            }
        }
        guard case .success(let frame) = index.frame else { return nil }
        var header = ImageHeader(
            width: frame.width, height: frame.height, components: frame.sampling.count, bitDepth: frame.precision,
            isProgressive: frame.isProgressive, orientation: orientation)
        header.samplesPerPixel = codedSamplesPerPixel(frame.sampling)
        header.exifRange = exifRange
        return header
    }

    /// Sum of each component's sampling area over the largest.
    private static func codedSamplesPerPixel(_ sampling: [(horizontal: Int, vertical: Int)]) -> Double {
        let most = (sampling.map(\.horizontal).max() ?? 1) * (sampling.map(\.vertical).max() ?? 1)
        guard most > 0 else { return Double(sampling.count) }
        let area = sampling.reduce(0) { $0 + $1.horizontal * $1.vertical }
        return Double(area) / Double(most)
    }

    private static func parsePNG(_ index: PNGIndex, _ bytes: SourceBytes) -> ImageHeader? {
        var reader = ByteReader(bytes)
        guard let ihdr = reader.bytes(at: 8, 25), ihdr[4...7].elementsEqual("IHDR".utf8) else { return nil }
        let width = ihdr.u32be(at: 8), height = ihdr.u32be(at: 12)
        let colourType = ihdr[17]
        let components = [0: 1, 2: 3, 3: 3, 4: 2, 6: 4][Int(colourType)] ?? 4
        var hasAlpha = colourType == 4 || colourType == 6
        // Walk the chunk headers (the data is skipped): tRNS gives a palette or colour
        // transparency, eXIf the orientation, which ImageMagick 6 ignores. eXIf may follow the image
        // data, so the walk goes on to IEND.
        var orientation: Orientation?
        var rawEXIFChunk: Range<Int>?
        var corrupt: String?
        index.visit(bytes) { reader, chunk in
            if chunk.type != "IDAT", chunk.length >= 1 << 20, chunk.length > reader.count - chunk.offset - 12 {
                // A metadata chunk claiming megabytes more than the file has: libpng would allocate
                // the claimed length (1.9 GB for a 500-byte file) before finding out. (A short cut,
                // as in a partial download, is left to the decoder.)
                let name = chunk.type.utf8.allSatisfy({ (0x41...0x7A).contains($0) }) ? chunk.type
                    : "0x" + chunk.type.utf8.map { String($0, radix: 16) }.joined()
                corrupt = "the PNG \(name) chunk claims \(chunk.length) bytes, more than the file holds"
                return false
            }
            switch chunk.type {
            case "tRNS": hasAlpha = true
            case "eXIf" where orientation == nil:
                orientation = reader.bytes(at: chunk.data.lowerBound, min(chunk.length, 1 << 16)).flatMap(EXIF.orientation)
            case "tEXt", "zTXt", "iTXt":
                // ImageMagick's (and exiftool's older) way to store EXIF in a PNG.
                if rawEXIFChunk == nil, chunk.length <= PNGRawProfile.maximumChunk,
                   let keyword = reader.bytes(at: chunk.data.lowerBound, min(chunk.length, 22)),
                   PNGRawProfile.keywords.contains(where: { keyword.starts(with: Array($0.utf8) + [0]) }) {
                    rawEXIFChunk = chunk.offset..<chunk.end
                }
            default: break
            }
            return true
        }
        if let corrupt {
            return ImageHeader(width: width, height: height, corrupt: corrupt)
        }
        var header = ImageHeader(
            width: width, height: height, components: components, hasAlpha: hasAlpha, bitDepth: Int(ihdr[16]),
            orientation: orientation)
        header.isInterlaced = ihdr[20] == 1
        header.rawEXIFChunk = rawEXIFChunk
        return header
    }

    private static func parseGIF(_ reader: inout ByteReader) -> ImageHeader? {
        guard let screen = reader.bytes(at: 6, 4) else { return nil }
        return ImageHeader(width: screen.u16le(at: 0), height: screen.u16le(at: 2))
    }

    private static func parseWebP(_ reader: inout ByteReader, index: RIFFIndex) -> ImageHeader? {
        guard var header = parseWebPBitstream(&reader) else { return nil }
        // An extended file's EXIF chunk comes after the image data: walk the chunk headers to it,
        // and read each VP8L stream's prefix codes on the way.
        var codes: VP8LPrefixCodes?
        var sawEXIF = false
        func count(_ stream: VP8LPrefixCodes) {
            codes = codes.map { $0.bytes >= stream.bytes ? $0 : stream } ?? stream
        }
        index.visit(&reader) { reader, chunk in
            switch chunk.id {
            case "VP8L", "VP8 ":
                header.isLossless = header.isLossless ?? (chunk.id == "VP8L")
                count(webPStream(chunk.id, data: chunk.data, &reader, width: header.width, height: header.height))
            case "ALPH":
                count(webPStream(chunk.id, data: chunk.data, &reader, width: header.width, height: header.height))
            case "ANMF":
                // A frame: its size, then its own ALPH, VP8 or VP8L chunk.
                guard let head = reader.bytes(at: chunk.data.lowerBound, 12), chunk.length >= 16 else { return true }
                let width = head.u24le(at: 6) + 1, height = head.u24le(at: 9) + 1
                var inner = chunk.data.lowerBound + 16
                while inner + 8 <= chunk.data.upperBound, let id = reader.bytes(at: inner, 4), let length = reader.u32le(at: inner + 4) {
                    let data = (inner + 8)..<min((inner + 8).saturatingPlus(length), chunk.data.upperBound)
                    count(webPStream(String(decoding: id, as: UTF8.self), data: data, &reader, width: width, height: height))
                    inner = inner.saturatingPlus(8).saturatingPlus(length).saturatingPlus(length & 1)
                }
            case "EXIF" where !sawEXIF:
                sawEXIF = true
                header.orientation = reader.bytes(at: chunk.data.lowerBound, min(chunk.length, 1 << 16)).flatMap(EXIF.orientation)
            default:
                break
            }
            return true
        }
        header.vp8lCodes = codes
        return header
    }

    /// The prefix codes of a WebP chunk `id` of `data` for a picture of `width` x `height`: a
    /// `VP8L` bitstream's (its own size, after its 5-byte header), an `ALPH` chunk's compressed
    /// with VP8L (after its 1-byte header), none for a lossy `VP8 ` or an uncompressed plane; the
    /// worst case for the size when the stream cannot be read.
    private static func webPStream(_ id: String, data: Range<Int>, _ reader: inout ByteReader,
                                   width: Int, height: Int) -> VP8LPrefixCodes {
        switch id {
        case "VP8L":
            guard let head = reader.bytes(at: data.lowerBound, 5), head[0] == 0x2F else {
                return .worstCase(width: width, height: height)
            }
            let bits = head.u32le(at: 1)
            let size = (width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
            return VP8LPrefixCodes.read(reader, from: data.lowerBound + 5, to: data.upperBound, width: size.width, height: size.height)
                ?? .worstCase(width: max(size.width, width), height: max(size.height, height))
        case "ALPH":
            guard let method = reader.u8(at: data.lowerBound) else { return .worstCase(width: width, height: height) }
            guard method & 3 == 1 else { return .none }
            return VP8LPrefixCodes.read(reader, from: data.lowerBound + 1, to: data.upperBound, width: width, height: height)
                ?? .worstCase(width: width, height: height)
        default:
            return .none
        }
    }

    private static func parseWebPBitstream(_ reader: inout ByteReader) -> ImageHeader? {
        guard let chunk = reader.bytes(at: 12, 18) else { return nil }
        let kind = String(decoding: chunk[0..<4], as: UTF8.self)
        switch kind {
        case "VP8X":
            return ImageHeader(width: chunk.u24le(at: 12) + 1, height: chunk.u24le(at: 15) + 1, hasAlpha: chunk[8] & 0x10 != 0)
        case "VP8L":
            guard chunk[8] == 0x2F else { return nil }
            let bits = chunk.u32le(at: 9)
            return ImageHeader(width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1, hasAlpha: (bits >> 28) & 1 == 1,
                               isLossless: true)
        case "VP8 ":
            guard chunk[11] == 0x9D, chunk[12] == 0x01, chunk[13] == 0x2A else { return nil }
            return ImageHeader(
                width: chunk.u16le(at: 14) & 0x3FFF, height: chunk.u16le(at: 16) & 0x3FFF, isLossless: false)
        default:
            return nil
        }
    }

    /// HEIF: the image spatial extent (`ispe`) of the primary item (`pitm`, or the one implied
    /// without it: ``HEIFItems/choosePrimary(_:)``), found through the item property associations
    /// (`ipma`); a grid image's tiles carry extents of their own. Without a primary item's, the
    /// largest extent in the file. A primary image libheif must not be asked to decode
    /// (``HEIFItems/inspect(decoding:_:)``), or none to show, makes the header say why; a larger
    /// picture than declared in its bitstreams or canvases is ``codedPixels``.
    private static func parseISOBMFF(_ items: HEIFItems, _ reader: inout ByteReader) -> ImageHeader? {
        var chosen = items.primary.flatMap { items.declaredSize(of: $0, &reader) }
        if chosen == nil {
            let extents = items.properties.compactMap { HEIFItems.extent($0, &reader) }
            chosen = extents.max { $0.width.saturatingTimes($0.height) < $1.width.saturatingTimes($1.height) }
        }
        var header = chosen.map { ImageHeader(width: $0.width, height: $0.height) }
        var inspection = HEIFItems.Inspection(problem: items.unreadable)
        if let primary = items.primary {
            inspection = items.inspect(decoding: primary, &reader)
            header?.shown = items.shownSize(of: primary, &reader)
        } else if items.unreadable == nil, let missing = items.missingPrimary {
            // No pitm and no one item to show instead (``HEIFItems/choosePrimary(_:)``): a valid
            // file, perhaps, whose picture MagickIO cannot tell.
            inspection = HEIFItems.Inspection(problem: missing, unsupported: true)
        }
        if let problem = inspection.problem {
            header = header ?? ImageHeader(width: 0, height: 0)
            header?.corrupt = problem
            header?.refusal = inspection.unsupported ? .unsupportedFormat : .corruptImage
        } else if let primary = items.primary {
            if let declared = header, inspection.largestPicture > declared.width.saturatingTimes(declared.height) {
                header?.codedPixels = inspection.largestPicture
            } else {
                header?.tiling = items.tiling(of: primary, &reader)
            }
            // A picture coded larger than shown (a height of 4284, coded in blocks to 4288) is
            // counted at its coded size (``DecodeEstimate``), planar or not.
            header?.planarImage = items.planarImage(of: primary, &reader)
        }
        return header
    }
}
