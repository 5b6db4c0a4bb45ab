internal import CMagickWand

extension Wand {
    /// Marks the current image, whose pixels are grey (R = G = B), as grey
    /// (`MagickSetImageColorspace`, which leaves the pixels as they are): what ImageMagick's coder
    /// makes of a grey file, so that a grey picture decoded by an own path ends as ImageMagick's
    /// (a one-channel JPEG or PNG when encoded).
    func markGrey() throws(MagickIOError) {
        try check(MagickSetImageColorspace(pointer, GRAYColorspace), fallback: .corruptImage)
    }
}
