/// A grid primary image as MagickIO decodes it a row of tiles at a time (``HEIFTileRows``): what
/// phones write (512x512 HEVC tiles, the canvas cut at the right and bottom edges). libheif 1.15
/// assembles a grid whole, as planar RGB and then interleaved (6 bytes a pixel on top of the
/// codec's), which puts a 48 MP photo past the default budget; a tile it decodes by itself once the
/// tile's `infe` no longer says hidden (libheif 1.15 hands out handles to top-level images only).
///
/// Taken only where the tiles put together make what libheif's grid decode makes: every reference
/// an HEVC or AV1 item of one declared size and no transforms of its own, no column or row of
/// tiles starting past the canvas, the canvas the size the grid declares, no alpha image, and
/// the grid turned and mirrored (`irot`, `imir`) but not cropped (`clap`). Anything else takes
/// libheif's whole decode.
struct HEIFTiling: Sendable, Hashable {
    /// The picture as the tiles make it, before the grid's `irot` and `imir`.
    var canvas: ImageSize
    var columns: Int
    var rows: Int
    /// Each tile's size.
    var tile: ImageSize
    /// The tile items, row by row.
    var tiles: [Int]
    /// What turns the picture as libheif shows it (the grid's `irot` and `imir`, in its order).
    var orientation: Orientation
    /// The bits a sample every tile must code (libheif 1.15 refuses a grid whose tiles differ):
    /// the grid's `pixi`, or nil for the first tile's.
    var depth: Int?
    /// Where each tile item's `infe` flags byte lies, and what it holds.
    var flags: [Int: UInt8] = [:]

    /// The bytes a row of tiles holds once decoded (3 a pixel), and what one tile's decode takes
    /// at its peak: the codec's frame, libheif's copy of it, its planar RGB and the interleaved
    /// RGB (16 bytes a pixel with 16-bit planes).
    var bandBytes: Int { columns.saturatingTimes(tile.width.saturatingTimes(tile.height)).saturatingTimes(3) }
    var tileDecodeBytes: Int { tile.width.saturatingTimes(tile.height).saturatingTimes(16) }
}

extension HEIFItems {
    /// The tiling of `item` when it is a grid MagickIO decodes tile by tile (see ``HEIFTiling``).
    func tiling(of item: Int, _ reader: inout ByteReader) -> HEIFTiling? {
        guard unreadable == nil, items[item]?.type == "grid", let declared = declaredSize(of: item, &reader),
              let head = data(of: item, 4, &reader), head[0] == 0,
              let canvas = canvasSize(of: item, type: "grid", &reader), canvas.width == declared.width, canvas.height == declared.height
        else { return nil }
        let (rows, columns) = (Int(head[2]) + 1, Int(head[3]) + 1)
        let tiles = referenced("dimg", from: item)
        guard tiles.count == rows * columns, let first = tiles.first, let tile = declaredSize(of: first, &reader),
              tile.width > 0, tile.height > 0,
              (columns - 1) * tile.width < canvas.width, columns * tile.width >= canvas.width,
              (rows - 1) * tile.height < canvas.height, rows * tile.height >= canvas.height,
              !referring("auxl", to: item).contains(where: { isAlpha($0, &reader) }) else { return nil }
        var tiling = HEIFTiling(canvas: ImageSize(width: canvas.width, height: canvas.height), columns: columns, rows: rows,
                                tile: ImageSize(width: tile.width, height: tile.height), tiles: tiles, orientation: .up)
        var seen: Set<Int> = []
        for id in tiles where seen.insert(id).inserted {
            guard let entry = items[id], ["hvc1", "av01"].contains(entry.type), transforms(of: id).isEmpty,
                  !referring("auxl", to: id).contains(where: { isAlpha($0, &reader) }),
                  let size = declaredSize(of: id, &reader), size == tile,
                  let offset = entry.flagsByte, let byte = reader.u8(at: offset) else { return nil }
            tiling.flags[offset] = byte
        }
        guard let orientation = orientation(of: transforms(of: item), &reader) else { return nil }
        tiling.orientation = orientation
        if let pixi = property("pixi", of: item) {
            guard pixi.body.count >= 6, let bits = reader.u8(at: pixi.body.lowerBound + 5) else { return nil }
            tiling.depth = Int(bits)
        }
        return tiling
    }

    /// The orientation that does what `transforms` do, one after another, as libheif 1.15 applies
    /// them (`irot`: anticlockwise quarter turns; `imir`: axis 1 mirrors each row, 0 the rows'
    /// order); nil with a `clap` or a property it cannot read.
    private func orientation(of transforms: [Property], _ reader: inout ByteReader) -> Orientation? {
        // Each step as where a pixel of its result comes from, on the unit square's corners.
        var steps: [Orientation] = []
        for property in transforms {
            guard property.type != "clap", let first = reader.u8(at: property.body.lowerBound) else { return nil }
            if property.type == "irot" {
                steps.append([.up, .left, .down, .right][Int(first & 3)])
            } else {
                steps.append(first & 1 == 1 ? .upMirrored : .downMirrored)
            }
        }
        let corners = [(0, 0), (1, 0), (0, 1)]
        let composite = corners.map { corner in steps.reversed().reduce(corner) { $1.source(of: $0) } }
        return Orientation.allCases.first { candidate in corners.map(candidate.source(of:)).elementsEqual(composite, by: ==) }
    }
}

private extension Orientation {
    /// Where the pixel at `point` (a corner of the unit square) of the picture this orientation
    /// turns upright (``Wand/applyOrientation(_:)``) comes from in the stored one.
    func source(of point: (Int, Int)) -> (Int, Int) {
        let (u, v) = point
        switch self {
        case .up: return (u, v)
        case .upMirrored: return (1 - u, v)
        case .down: return (1 - u, 1 - v)
        case .downMirrored: return (u, 1 - v)
        case .leftMirrored: return (v, u)
        case .right: return (v, 1 - u)
        case .rightMirrored: return (1 - v, 1 - u)
        case .left: return (1 - v, u)
        }
    }
}
