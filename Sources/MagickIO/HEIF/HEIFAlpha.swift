internal import CHeif

/// The primary image's alpha image where libheif 1.15 leaves it out (``HEIFItems/detachedAlpha(of:_:)``:
/// no `ispe` of its own, or not turned with the colour image): decoded by libheif by itself, with
/// its own transforms, then turned, mirrored and cropped as the colour image is when it lists
/// none of its own (as libavif decodes such files), and put in the decoded picture's alpha bytes.
extension HEIFFile {
    /// Whether the primary image has alpha: libheif's, or an alpha image MagickIO decodes itself.
    var hasAlpha: Bool {
        heif.image_handle_has_alpha_channel(primary) != 0 || detachedAlpha() != nil
    }

    /// The primary image's alpha image libheif leaves out or lines up wrongly, or nil; the items
    /// are looked at only when libheif lists an auxiliary image for the primary image. libheif
    /// 1.15 leaves such an alpha out; 1.19 and later attach one that lists no transforms of its
    /// own without the colour image's (unturned on a turned picture): MagickIO's decode, lined up
    /// as libavif lines it up, replaces it then.
    func detachedAlpha() -> HEIFItems.DetachedAlpha? {
        guard heif.image_handle_get_number_of_auxiliary_images(primary, 0) > 0,
              items.unreadable == nil, let id = items.primary else { return nil }
        var reader = ByteReader(bytes)
        guard let alpha = items.detachedAlpha(of: id, &reader) else { return nil }
        return heif.image_handle_has_alpha_channel(primary) == 0 || !alpha.transforms.isEmpty ? alpha : nil
    }

    /// Decodes `alpha` and writes it over the alpha bytes of an interleaved RGBA picture of
    /// `width` x `height`; an alpha image that does not come out that size is a corrupt image.
    func merge(_ alpha: HEIFItems.DetachedAlpha, into rgba: UnsafeMutablePointer<UInt8>, width: Int, height: Int,
               stride: Int) throws(MagickIOError) {
        var plane = try decodeAlpha(alpha.item)
        var reader = ByteReader(bytes)
        for transform in alpha.transforms {
            plane = plane.transformed(by: transform, &reader)
        }
        guard plane.width == width, plane.height == height else {
            throw MagickIOError(.corruptImage, "the HEIF alpha image (item \(alpha.item)) decodes to \(plane.width)x\(plane.height), its image to \(width)x\(height)")
        }
        for row in 0..<height {
            let line = rgba + row * stride
            for column in 0..<width {
                line[4 * column + 3] = plane.pixels[row * width + column]
            }
        }
    }

    /// The alpha image `item` decoded by libheif as it is coded (its luma, 8 bits a sample).
    private func decodeAlpha(_ item: Int) throws(MagickIOError) -> AlphaPlane {
        var handle: OpaquePointer?
        try Self.check(heif.image_handle_get_auxiliary_image_handle(primary, heif_item_id(item), &handle), "opening the HEIF alpha image")
        guard let handle else { throw MagickIOError(.corruptImage, "libheif returned no alpha image") }
        defer { heif.image_handle_release(handle) }
        var image: OpaquePointer?
        // As libheif decodes an alpha image it attaches: no conversion, the luma plane taken.
        try Self.check(HeapScrub.run(if: items.decodesBeyondAV1) { heif.decode_image(handle, &image, heif_colorspace_undefined, heif_chroma_undefined, nil) },
                       "decoding the HEIF alpha image")
        guard let image else { throw MagickIOError(.corruptImage, "libheif returned no alpha image") }
        defer { heif.image_release(image) }
        let width = Int(heif.image_get_width(image, heif_channel_Y)), height = Int(heif.image_get_height(image, heif_channel_Y))
        let bits = Int(heif.image_get_bits_per_pixel_range(image, heif_channel_Y))
        var stride: Int32 = 0
        let sampleBytes = bits > 8 ? 2 : 1
        guard width > 0, height > 0, bits >= 1, bits <= 16, let plane = heif.image_get_plane_readonly(image, heif_channel_Y, &stride),
              Int(stride) >= width * sampleBytes else {
            throw MagickIOError(.corruptImage, "the HEIF alpha image decoded to no pixels")
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        let most = (1 << bits) - 1
        for row in 0..<height {
            let line = plane + row * Int(stride)
            for column in 0..<width {
                let sample = sampleBytes == 1 ? Int(line[column])
                    : Int(UnsafeRawPointer(line + 2 * column).loadUnaligned(as: UInt16.self))
                pixels[row * width + column] = UInt8((min(sample, most) * 255 + most / 2) / most)
            }
        }
        return AlphaPlane(width: width, height: height, pixels: pixels)
    }
}

/// One 8-bit plane, rows packed, turned, mirrored and cropped as libheif 1.15 does a picture.
struct AlphaPlane {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    /// The plane with `transform` (an `irot`, `imir` or `clap` property) applied; unchanged by a
    /// property it cannot read.
    func transformed(by transform: HEIFItems.Property, _ reader: inout ByteReader) -> AlphaPlane {
        guard let first = reader.u8(at: transform.body.lowerBound) else { return self }
        switch transform.type {
        case "irot":
            // Anticlockwise quarter turns.
            switch first & 3 {
            case 1: return remapped(width: height, height: width) { x, y in (width - 1 - y, x) }
            case 2: return remapped(width: width, height: height) { x, y in (width - 1 - x, height - 1 - y) }
            case 3: return remapped(width: height, height: width) { x, y in (y, height - 1 - x) }
            default: return self
            }
        case "imir":
            // libheif 1.15: axis 1 mirrors each row, 0 the rows' order.
            return first & 1 == 1 ? remapped(width: width, height: height) { x, y in (width - 1 - x, y) }
                : remapped(width: width, height: height) { x, y in (x, height - 1 - y) }
        case "clap":
            guard transform.body.count >= 32, let fields = reader.bytes(at: transform.body.lowerBound, 32),
                  let kept = HEIFItems.cleanAperture(fields, of: ImageSize(width: width, height: height)) else { return self }
            return remapped(width: kept.width, height: kept.height) { x, y in (kept.x + x, kept.y + y) }
        default:
            return self
        }
    }

    /// A plane of `width` x `height` whose pixel (x, y) is this one's at `source(x, y)`.
    private func remapped(width: Int, height: Int, _ source: (Int, Int) -> (Int, Int)) -> AlphaPlane {
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let (sx, sy) = source(x, y)
                out[y * width + x] = pixels[sy * self.width + sx]
            }
        }
        return AlphaPlane(width: width, height: height, pixels: out)
    }
}
