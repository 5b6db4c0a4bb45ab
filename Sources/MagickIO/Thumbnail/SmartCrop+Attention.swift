// The attention crop. libvips (smartcrop.c) shrinks the picture to 32 x 32 whatever its shape,
// scores each cell by edges (a Laplacian of luminance), skin tones and red-green saturation (Lab
// a*), blurs the sum and centres the window on the single brightest cell. Its users' complaints are
// heads cut off and windows pulled off the subject by one bright spot. Here:
// - the map keeps the picture's shape (cells about 1/48 of its short side), so a window is placed
//   to a few pixels;
// - detail is measured twice: edges between cells (structure) and the spread of luminance inside
//   each cell (fine detail, which tells a subject in focus from a blurred background);
// - colour multiplies detail rather than adding to it, so that a plain blue sky or a white wall
//   draws nothing however saturated it is, and green (foliage, lawns) counts half;
// - skin tones add on their own, since a face is smooth;
// - the window is the one holding the most saliency (a box sum over the whole window, not the
//   maximum of a blurred map), and among windows within 5 % of it the one centred on the peak of
//   what it holds (the gravity's own window when that is among them);
// - when it crops a tall picture rows count a little less going down (heads are near the top);
// - skin that is compact (at most half the picture each way: a face, not a warm sky) is kept
//   whole when it fits, with room above it for hair, and centred across when it is narrow.

extension SmartCrop {
    /// The window of `window`'s size holding the most of what draws the eye in `pixels`.
    static func attentionWindow(_ window: ThumbnailGeometry.Crop, in pixels: Pixels) -> ThumbnailGeometry.Crop {
        let map = SaliencyMap(pixels)
        let cell = Double(map.cell)
        let size = (width: clamp(Int((Double(window.width) / cell).rounded()), 1, map.width),
                    height: clamp(Int((Double(window.height) / cell).rounded()), 1, map.height))
        // The gravity's window, to the cell: kept when no window is clearly better.
        let preferred = (x: clamp(Int((Double(window.x) / cell).rounded()), 0, map.width - size.width),
                         y: clamp(Int((Double(window.y) / cell).rounded()), 0, map.height - size.height))
        var (x, y) = map.bestWindow(size, preferring: preferred)
        // Skin counts as a face only where it is compact: at most half the picture each way (a
        // warm sky or a golden wall spreads across it).
        let across = map.skinBand(vertical: false), down = map.skinBand(vertical: true)
        let face = across.map { 2 * $0.count <= map.width } == true && down.map { 2 * $0.count <= map.height } == true
        if face, let band = across, band.upperBound - band.lowerBound < size.width {
            // A face narrower than half the window is centred in it; a wider band is kept whole.
            if 2 * (band.upperBound - band.lowerBound) <= size.width {
                x = clamp((band.lowerBound + band.upperBound - size.width) / 2, 0, map.width - size.width)
            } else {
                x = clamp(x, band.upperBound - size.width, band.lowerBound)
            }
        }
        if face, let band = down, band.upperBound - band.lowerBound < size.height {
            // Room above the face for the hair: a third of its height, when that still fits.
            let top = max(band.lowerBound - (band.upperBound - band.lowerBound) / 3, 0)
            y = clamp(y, band.upperBound - size.height, band.upperBound - top < size.height ? top : band.lowerBound)
        }
        if (x, y) == preferred { return window }
        var result = window
        result.x = clamp(Int((Double(x) * cell).rounded()), 0, pixels.width - window.width)
        result.y = clamp(Int((Double(y) * cell).rounded()), 0, pixels.height - window.height)
        // The window the map picked, to the cell; where the window ends short of the map's edge
        // by less than a cell, reach it, so that a subject at the edge is not shaved.
        if x + size.width >= map.width { result.x = pixels.width - window.width }
        if y + size.height >= map.height { result.y = pixels.height - window.height }
        return result
    }
}

/// What draws the eye in each cell of a picture, and where its skin is.
struct SaliencyMap {
    /// Cells across and down.
    let width: Int
    let height: Int
    /// Pixels a cell is wide and high.
    let cell: Int
    /// The saliency of each cell, row by row.
    var saliency: [Float]
    /// How much of each cell is skin, 0...1, row by row.
    var skin: [Float]

    /// Cells of about 1/48 of the picture's short side.
    static let cellsOnShortSide = 48

    init(_ pixels: SmartCrop.Pixels) {
        let cell = max(1, min(pixels.width, pixels.height) / Self.cellsOnShortSide)
        let width = (pixels.width + cell - 1) / cell
        let height = (pixels.height + cell - 1) / cell
        let count = width * height
        // Sums over each cell: luminance, its square, colour, skin and opacity, five to a cell.
        let fields = 5
        var sums = [Float](repeating: 0, count: count * fields)
        sums.withUnsafeMutableBufferPointer { sums in
            pixels.rgba.withUnsafeBufferPointer { rgba in
                for row in 0..<pixels.height {
                    let base = (row / cell) * width
                    for column in 0..<pixels.width {
                        let p = (row * pixels.width + column) * 4
                        let r = Float(rgba[p]) / 255, g = Float(rgba[p + 1]) / 255, b = Float(rgba[p + 2]) / 255
                        let a = Float(rgba[p + 3]) / 255
                        let y = 0.299 * r + 0.587 * g + 0.114 * b
                        let i = (base + column / cell) * fields
                        sums[i] += y * a
                        sums[i + 1] += y * y * a
                        // Saturation as the spread of the channels; green counts half.
                        let spread = Swift.max(Swift.max(r, g), b) - Swift.min(Swift.min(r, g), b)
                        sums[i + 2] += (g > r && g > b ? spread / 2 : spread) * a
                        sums[i + 3] += Self.skinLikeness(r, g, b, luma: y) * a
                        sums[i + 4] += a
                    }
                }
            }
        }
        var colour = [Float](repeating: 0, count: count), skinSum = colour, weight = colour
        var luma = colour, luma2 = colour
        for i in 0..<count {
            let j = i * fields
            (luma[i], luma2[i], colour[i], skinSum[i], weight[i]) = (sums[j], sums[j + 1], sums[j + 2], sums[j + 3], sums[j + 4])
        }
        var meanLuma = [Float](repeating: 0, count: count)
        var detail = meanLuma
        for i in 0..<count where weight[i] > 0 {
            let mean = luma[i] / weight[i]
            meanLuma[i] = mean
            detail[i] = max(luma2[i] / weight[i] - mean * mean, 0).squareRoot()
            colour[i] /= weight[i]
            skinSum[i] /= weight[i]
        }
        var saliency = [Float](repeating: 0, count: count)
        for y in 0..<height {
            for x in 0..<width {
                // Sobel on the cells' luminance, edges replicated.
                func l(_ dx: Int, _ dy: Int) -> Float {
                    meanLuma[min(max(y + dy, 0), height - 1) * width + min(max(x + dx, 0), width - 1)]
                }
                let gx = l(1, -1) + 2 * l(1, 0) + l(1, 1) - l(-1, -1) - 2 * l(-1, 0) - l(-1, 1)
                let gy = l(-1, 1) + 2 * l(0, 1) + l(1, 1) - l(-1, -1) - 2 * l(0, -1) - l(1, -1)
                let i = y * width + x
                let edge = (gx * gx + gy * gy).squareRoot() / 4
                saliency[i] = (edge + 2 * detail[i]) * (1 + 2 * colour[i]) + 1.5 * skinSum[i]
                saliency[i] *= weight[i] / Float(cell * cell)  // transparent cells draw nothing
            }
        }
        (self.cell, self.width, self.height) = (cell, width, height)
        (self.saliency, skin) = (saliency, skinSum)
    }

    /// How close a pixel's colour is to skin (smartcrop.js' direction in RGB, as libvips takes
    /// it), 0...1; too dark or too bright pixels are not skin.
    static func skinLikeness(_ r: Float, _ g: Float, _ b: Float, luma: Float) -> Float {
        guard luma > 0.2, luma < 0.95 else { return 0 }
        let length = (r * r + g * g + b * b).squareRoot()
        guard length > 0 else { return 0 }
        // |c/|c| - s|² = 1 + |s|² - 2 c·s/|c|: the distance's square root only for the few near skin.
        let squared = 1 + 1.1269 - 2 * (0.78 * r + 0.57 * g + 0.44 * b) / length
        guard squared < 0.04 else { return 0 }
        return max(0, 1 - max(squared, 0).squareRoot() / 0.2)
    }

    /// The top left cell of the `size` window holding the most saliency (rows weighted down the
    /// picture when the window crops rows). Windows within 5 % of the best are as good: the
    /// `preferred` one wins among them, else the one whose centre is nearest the centre of mass
    /// the peak of what the best window holds.
    func bestWindow(_ size: (width: Int, height: Int), preferring preferred: (x: Int, y: Int)) -> (x: Int, y: Int) {
        var weighted = saliency
        if size.height < height {
            for y in 0..<height {
                let factor = 1 - 0.15 * Float(y) / Float(height)
                for x in 0..<width { weighted[y * width + x] *= factor }
            }
        }
        // A summed-area table, one row and column of zeros in front.
        let stride = width + 1
        var table = [Double](repeating: 0, count: stride * (height + 1))
        for y in 0..<height {
            var row = 0.0
            for x in 0..<width {
                row += Double(weighted[y * width + x])
                table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + row
            }
        }
        let wholeCentre = (x: Double(width) / 2, y: Double(height) / 2)
        var scores: [(x: Int, y: Int, score: Double)] = []
        for y in 0...(height - size.height) {
            for x in 0...(width - size.width) {
                let score = table[(y + size.height) * stride + x + size.width] - table[y * stride + x + size.width]
                    - table[(y + size.height) * stride + x] + table[y * stride + x]
                scores.append((x, y, score))
            }
        }
        let bestWindow = scores.max { $0.score < $1.score } ?? (0, 0, 0)
        let best = bestWindow.score
        // The peak of what the best window holds, the saliency summed over squares of an eighth
        // of the window (libvips blurs and takes the peak of the whole picture): the subject,
        // which the window then centres on as far as it can without losing more than 5 % of the
        // best window's saliency.
        let radius = max(1, min(size.width, size.height) / 8)
        func area(_ x: Int, _ y: Int) -> Double {
            let (x0, x1) = (max(x - radius, 0), min(x + radius + 1, width))
            let (y0, y1) = (max(y - radius, 0), min(y + radius + 1, height))
            return table[y1 * stride + x1] - table[y0 * stride + x1] - table[y1 * stride + x0] + table[y0 * stride + x0]
        }
        var centre = wholeCentre, peak = 0.0
        for y in bestWindow.y..<(bestWindow.y + size.height) {
            for x in bestWindow.x..<(bestWindow.x + size.width) where area(x, y) > peak {
                (peak, centre) = (area(x, y), (Double(x) + 0.5, Double(y) + 0.5))
            }
        }
        func distance(_ candidate: (x: Int, y: Int, score: Double)) -> Double {
            let dx = Double(candidate.x) + Double(size.width) / 2 - centre.x
            let dy = Double(candidate.y) + Double(size.height) / 2 - centre.y
            return dx * dx + dy * dy
        }
        let good = scores.filter { $0.score >= best * 0.95 }
        if good.contains(where: { $0.x == preferred.x && $0.y == preferred.y }) { return preferred }
        let chosen = good.min { distance($0) < distance($1) } ?? (0, 0, 0)
        return (chosen.x, chosen.y)
    }

    /// The cells (rows when `vertical`, else columns) of the band of skin around the strongest
    /// one: the neighbours holding at least a quarter of its skin. Nil when the picture holds too
    /// little skin to be a face (under 1 % of it).
    func skinBand(vertical: Bool) -> Range<Int>? {
        let length = vertical ? height : width
        var profile = [Float](repeating: 0, count: length)
        for y in 0..<height {
            for x in 0..<width { profile[vertical ? y : x] += skin[y * width + x] }
        }
        let total = profile.reduce(0, +)
        guard total >= 0.01 * Float(width * height), let peak = profile.indices.max(by: { profile[$0] < profile[$1] }) else {
            return nil
        }
        let threshold = profile[peak] / 4
        var lower = peak, upper = peak + 1
        while lower > 0, profile[lower - 1] >= threshold { lower -= 1 }
        while upper < length, profile[upper] >= threshold { upper += 1 }
        return lower..<upper
    }

    /// Each pixel's luminance, 0...255 (Rec. 601 weights on the sRGB values), opacity ignored.
    static func luma(_ pixels: SmartCrop.Pixels) -> [UInt8] {
        var luma = [UInt8](repeating: 0, count: pixels.width * pixels.height)
        pixels.rgba.withUnsafeBufferPointer { rgba in
            for i in 0..<luma.count {
                let r = Int(rgba[i * 4]), g = Int(rgba[i * 4 + 1]), b = Int(rgba[i * 4 + 2])
                luma[i] = UInt8((r * 299 + g * 587 + b * 114 + 500) / 1000)
            }
        }
        return luma
    }
}
