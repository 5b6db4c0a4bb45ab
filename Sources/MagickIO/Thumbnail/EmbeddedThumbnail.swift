import Foundation

extension ImageSource {
    /// The thumbnail made from one the file carries, when `options.embedded` lets it serve: JPEG's
    /// EXIF thumbnail, or a HEIC/AVIF thumbnail item. Nil when there is none that serves, and the
    /// image itself must be decoded.
    ///
    /// An embedded thumbnail is never upscaled. It ends upright (the EXIF one is turned with the
    /// picture's orientation; libheif applies an item's own transforms) and, when `options` keep
    /// metadata, carries the picture's, with the orientation tag set to upright.
    func thumbnailFromEmbedded(_ request: ThumbnailRequest, allowUpscale: Bool, options: ThumbnailOptions,
                               interrupt: Interrupt?) throws(MagickIOError) -> Image? {
        let wanted = try thumbnailPlan(request, at: 0, allowUpscale: allowUpscale).geometry.size
        func serves(width: Int, height: Int) -> Bool {
            options.embedded == .always || (width >= wanted.width && height >= wanted.height)
        }
        if let embedded = embeddedThumbnail() {
            let stored = embedded.frames[0]
            guard serves(width: stored.orientedWidth, height: stored.orientedHeight) else { return nil }
            do throws(MagickIOError) {
                let plan = try embedded.thumbnailPlan(request, at: 0, allowUpscale: false)
                let input = try embedded.decoderInput(keeping: MetadataUse(options))
                return try embedded.withDecoded(frame: 0, jpegHint: plan.hint, interrupt: interrupt, input: input) { wand, warnings throws(MagickIOError) in
                    try copyMetadata(into: wand, for: options)
                    return try Self.buildThumbnail(wand, plan.geometry, stored: plan.stored, orientation: stored.orientation, options: options,
                                                   warnings: warnings.map(namingEmbedded))
                }
            } catch {
                // As for a HEIF item below: a carried thumbnail that does not decode is a missed
                // shortcut, not a broken file (viewers show the picture); a stop is final.
                if error.kind == .cancelled { throw error }
                return nil
            }
        }
        guard format.isHEIF else { return nil }
        let items = HEIFThumbnail.all(in: bytes, maxPixelCount: self.decodingOptions.maxPixelCount)
        guard let item = options.embedded == .always ? items.last : items.first(where: { serves(width: $0.width, height: $0.height) }),
              item.estimatedBytes <= self.decodingOptions.memoryBudget else { return nil }
        do throws(MagickIOError) {
            // Under the source's time limit, as a decode is (withDecoded).
            return try withInterruptibleWand(interrupt) { wand, interrupt throws(MagickIOError) in
                try item.decode(into: wand)
                try interrupt?.check()
                wand.monitor(interrupt)  // the image the decode made
                try copyMetadata(into: wand, for: options)
                let geometry = request.geometry(width: item.width, height: item.height, allowUpscale: false)
                return try Self.buildThumbnail(wand, geometry, stored: geometry.scaled, orientation: .up, options: options, warnings: [])
            }
        } catch {
            // A stop is final; an item libheif cannot decode is only a missed shortcut: the
            // picture itself is decoded instead.
            if error.kind == .cancelled { throw error }
            return nil
        }
    }

    /// `warning` from the EXIF thumbnail's decode with the file named: ImageMagick reads the
    /// thumbnail from memory and names it `' in its words.
    private func namingEmbedded(_ warning: DecoderWarning) -> DecoderWarning {
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
    private func copyMetadata(into wand: Wand, for options: ThumbnailOptions) throws(MagickIOError) {
        guard options.metadata != .stripAll else { return }
        _ = try decoderInput(keeping: .all)  // the picture's metadata within the limits, or refused
        if format == .jpeg {
            let metadata = JPEGProfiles(bytes, maxSegments: decodingOptions.maxFrameCount, maxBytes: decodingOptions.maxMetadataBytes)
            for profile in metadata.profiles {
                wand.setProfile(profile.name, profile.bytes)
            }
            if let comment = metadata.comment {
                wand.setProperty("comment", comment)
            }
        } else if format.isHEIF, let exif = HEIFProperties.exifBlock(bytes, maxPixelCount: decodingOptions.maxPixelCount) {
            wand.setProfile("exif", exif)
        }
    }
}
