import Foundation

extension ImageSource {
    /// The open half's embedded choice: a thumbnail the file carries that `options.embedded` lets
    /// serve, as an input of the pipeline (JPEG's EXIF thumbnail, or a HEIC/AVIF thumbnail item),
    /// or nil when the picture itself must be decoded. `plan` is the picture's.
    ///
    /// An embedded thumbnail is never upscaled. It ends upright (the EXIF one is turned with the
    /// picture's orientation; libheif applies an item's own transforms) and, when `options` keep
    /// metadata, carries the picture's, with the orientation tag set to upright.
    func embeddedInput(_ request: ThumbnailRequest, plan: ThumbnailSizes,
                       options: ThumbnailOptions) throws(MagickIOError) -> ThumbnailFill? {
        let wanted = plan.geometry.size
        func serves(width: Int, height: Int) -> Bool {
            options.embedded == .always || (width >= wanted.width && height >= wanted.height)
        }
        if let embedded = embeddedThumbnail() {
            let stored = embedded.frames[0]
            guard serves(width: stored.orientedWidth, height: stored.orientedHeight),
                  let plan = try? embedded.thumbnailSizes(request, at: 0, allowUpscale: false) else { return nil }
            return .exifThumbnail(embedded, plan, of: self)
        }
        guard let heif = index?.heif else { return nil }
        let items = HEIFThumbnail.all(in: bytes, items: heif, options: decodingOptions)
        guard let item = options.embedded == .always ? items.last : items.first(where: { serves(width: $0.width, height: $0.height) }),
              item.estimatedBytes <= decodingOptions.memoryBudget else { return nil }
        return .heifItem(item, request.geometry(width: item.width, height: item.height, allowUpscale: false), of: self)
    }

    /// `warning` from the EXIF thumbnail's decode with the file named: ImageMagick reads the
    /// thumbnail from memory and names it `' in its words.
    func namingEmbedded(_ warning: DecoderWarning) -> DecoderWarning {
        var named = warning
        let name = if case .file(let file) = bytes { "\(file.path)' (its EXIF thumbnail)" } else { "the EXIF thumbnail'" }
        named.message = warning.message.replacingOccurrences(of: "`'", with: "`" + name)
        return named
    }

    /// The thumbnail a camera stored in a JPEG's EXIF data (IFD1's `JPEGInterchangeFormat`), opened
    /// as a source of its own that carries the main image's orientation, or nil.
    func embeddedThumbnail() -> ImageSource? {
        guard format == .jpeg, let range = header?.exifRange, !range.isEmpty,
              let thumbnail = EXIF.thumbnailRange(bytes.read(at: range.lowerBound, length: range.count)) else { return nil }
        let data = bytes.read(at: range.lowerBound + thumbnail.lowerBound, length: thumbnail.count)
        guard data.count == thumbnail.count,
              var source = try? ImageSource(bytes: .memory(Data(data)), options: decodingOptions),
              source.format == .jpeg else { return nil }
        // The stored thumbnail has no orientation of its own: it is stored as the image is.
        let orientation = frames.first?.orientation ?? .up
        for index in source.frames.indices { source.frames[index].orientation = orientation }
        return source
    }

    /// Gives an embedded thumbnail, decoded into `wand`, the picture's own metadata (EXIF, XMP,
    /// IPTC, other APPn segments, the comment), unless `options` strip it all: the thumbnail's own
    /// has little. Read by MagickIO's walkers (``JPEGProfiles``, libheif's Exif block), no ping; the
    /// colour profile is the thumbnail's own business (it describes its pixels).
    func copyMetadata(into wand: Wand, for options: ThumbnailOptions) throws(MagickIOError) {
        guard options.metadata != .stripAll else { return }
        _ = try decoderInput(keeping: .all)  // the picture's metadata within the limits, or refused
        if format == .jpeg {
            let metadata = JPEGProfiles(bytes, index: index?.jpeg, maxSegments: decodingOptions.maxFrameCount, maxBytes: decodingOptions.maxMetadataBytes)
            for profile in metadata.profiles {
                try wand.setProfile(profile.name, profile.bytes)
            }
            if let comment = metadata.comment {
                try wand.setProperty("comment", comment)
            }
        } else if format.isHEIF, let exif = HEIFProperties.exifBlock(bytes, options: decodingOptions) {
            try wand.setProfile("exif", exif)
        }
    }
}
