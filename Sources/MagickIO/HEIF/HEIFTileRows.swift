internal import CHeif

/// The rows of a grid primary image (``HEIFTiling``) for a thumbnail: libheif decodes one row of
/// tiles at a time, each tile by itself to 8-bit RGB as its grid decode would (the tile's own
/// colour properties, HDR converted down), and the canvas's rows are put together from them,
/// cut at its right and bottom edges. The rows come as stored; the thumbnail is turned
/// afterwards by ``HEIFTiling/orientation``. So a row of tiles is held, not the picture (a
/// 48 MP phone photo: 16 tiles of 512x512, 12 MiB, where the whole decode holds about 400).
final class HEIFTileRows: HEIFByteRows {
    let width: Int
    let height: Int
    let channels = 3
    let iccProfile: [UInt8]?

    private let file: HEIFFile
    private let tiling: HEIFTiling
    /// The bits a sample each tile must code (``HEIFTiling/depth``).
    private let depth: Int
    /// The decoded tiles of row `bandIndex`.
    private var band: [HEIFFile.Decoded] = []
    private var bandIndex = -1
    private var next = 0
    private let interrupt: Interrupt?

    /// Opens the file (`items`: its walk at open) with the tiles shown to libheif as top-level
    /// images. A file libheif cannot open goes to the other path (``RowSourceFailure/fallback(_:)``);
    /// a tile libheif fails to decode, or one not the size the grid's walk says, stops the thumbnail
    /// with libheif's reason, as the whole decode would. `interrupt` is asked before each tile (and
    /// by libheif 1.19 and later within one).
    init(_ bytes: SourceBytes, items: HEIFItems?, tiling: HEIFTiling, options: DecodingOptions, interrupt: Interrupt?) throws(RowSourceFailure) {
        guard let file = HEIFFile(bytes, items: items, options: options, unhiding: tiling.flags) else {
            throw .fallback("libheif cannot open the file")
        }
        self.file = file
        self.tiling = tiling
        self.interrupt = interrupt
        if let depth = tiling.depth {
            self.depth = depth
        } else {
            do throws(MagickIOError) {
                let first = try file.imageHandle(tiling.tiles[0])
                depth = Int(file.heif.image_handle_get_luma_bits_per_pixel(first))
                file.heif.image_handle_release(first)
            } catch {
                throw .fallback(error.description)
            }
        }
        width = tiling.canvas.width
        height = tiling.canvas.height
        iccProfile = file.iccProfile(file.primary)
    }

    deinit {
        release()
    }

    func readRawRow(into raw: UnsafeMutableRawPointer) throws(RowSourceFailure) {
        guard next < height else { throw .fallback("a row past the image's \(height) was asked for") }
        let tile = tiling.tile
        if next / tile.height != bandIndex {
            try decodeBand(next / tile.height)
        }
        let y = next - bandIndex * tile.height
        for (column, decoded) in band.enumerated() {
            let x = column * tile.width
            (raw + x * channels).copyMemory(from: decoded.plane + y * decoded.stride, byteCount: min(tile.width, width - x) * channels)
        }
        next += 1
        if next == height { release() }
    }

    /// Nothing is left to read: the tiles of rows nobody asked for are never decoded.
    func finish() throws(RowSourceFailure) {}

    /// Decodes the tiles of row `index` in place of the last row's.
    private func decodeBand(_ index: Int) throws(RowSourceFailure) {
        release()
        do throws(MagickIOError) {
            for column in 0..<tiling.columns {
                try interrupt?.check()
                let id = tiling.tiles[index * tiling.columns + column]
                let handle = try file.imageHandle(id)
                defer { file.heif.image_handle_release(handle) }
                // As libheif's grid decode refuses a tile of another depth than the grid's.
                guard (8...16).contains(depth), Int(file.heif.image_handle_get_luma_bits_per_pixel(handle)) == depth else {
                    throw MagickIOError(.corruptImage, "decoding the HEIF image: HEIF tile \(id) is not \(depth) bits a sample, as the grid's tiles are")
                }
                let decoded = try file.decodeInterleaved(handle, what: "HEIF tile \(id)", interrupt: interrupt)
                band.append(decoded)
                guard decoded.width == tiling.tile.width, decoded.height == tiling.tile.height, decoded.channels == channels else {
                    throw MagickIOError(.corruptImage, "HEIF tile \(id) decodes to \(decoded.width)x\(decoded.height)x\(decoded.channels), its grid's tiles are \(tiling.tile.width)x\(tiling.tile.height)x3")
                }
            }
        } catch {
            throw .stopped(error)
        }
        bandIndex = index
    }

    private func release() {
        for decoded in band { file.heif.image_release(decoded.image) }
        band = []
        bandIndex = -1
    }
}
