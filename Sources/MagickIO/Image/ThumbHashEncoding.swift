import Foundation

extension ThumbHash {
    /// Encodes straight-alpha RGBA pixels, at most 100 a side, as the reference encoder does,
    /// operation for operation, so that the bytes match it (a rounding tie goes the same way).
    init(rgba: [UInt8], width w: Int, height h: Int) {
        precondition(w >= 1 && h >= 1 && w <= 100 && h <= 100 && rgba.count >= w * h * 4)
        let count = w * h

        // The average colour, weighted by alpha.
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<count {
            let j = i * 4
            let alpha = Double(rgba[j + 3]) / 255
            avgR += alpha / 255 * Double(rgba[j])
            avgG += alpha / 255 * Double(rgba[j + 1])
            avgB += alpha / 255 * Double(rgba[j + 2])
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }

        let hasAlpha = avgA < Double(count)
        let lLimit = hasAlpha ? 5.0 : 7.0  // fewer luminance terms when alpha needs bytes
        let longest = Double(max(w, h))
        let lx = max(1, Self.round(lLimit * Double(w) / longest))
        let ly = max(1, Self.round(lLimit * Double(h) / longest))

        // RGBA to LPQA, composited onto the average colour.
        var l = [Double](repeating: 0, count: count), p = l, q = l, a = l
        for i in 0..<count {
            let j = i * 4
            let alpha = Double(rgba[j + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(rgba[j])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(rgba[j + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(rgba[j + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }

        let (lDC, lAC, lScale) = Self.encodeChannel(l, w, h, nx: max(3, lx), ny: max(3, ly))
        let (pDC, pAC, pScale) = Self.encodeChannel(p, w, h, nx: 3, ny: 3)
        let (qDC, qAC, qScale) = Self.encodeChannel(q, w, h, nx: 3, ny: 3)
        let alphaTerms = hasAlpha ? Self.encodeChannel(a, w, h, nx: 5, ny: 5) : (dc: 1, ac: [], scale: 1)

        let isLandscape = w > h
        let header24 = Self.round(63 * lDC) | Self.round(31.5 + 31.5 * pDC) << 6 | Self.round(31.5 + 31.5 * qDC) << 12
            | Self.round(31 * lScale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx) | Self.round(63 * pScale) << 3 | Self.round(63 * qScale) << 9
            | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16),
                             UInt8(header16 & 255), UInt8(header16 >> 8)]
        if hasAlpha {
            hash.append(UInt8(Self.round(15 * alphaTerms.dc) | Self.round(15 * alphaTerms.scale) << 4))
        }
        var nibble = 0
        for ac in hasAlpha ? [lAC, pAC, qAC, alphaTerms.ac] : [lAC, pAC, qAC] {
            for f in ac {
                let value = UInt8(Self.round(15 * f))
                if nibble & 1 == 0 { hash.append(value) } else { hash[hash.count - 1] |= value << 4 }
                nibble += 1
            }
        }
        bytes = hash
    }

    /// The DC term, the AC terms mapped to 0...1 and their scale, of the low-frequency triangle
    /// of an `nx` x `ny` DCT.
    private static func encodeChannel(_ channel: [Double], _ w: Int, _ h: Int, nx: Int, ny: Int)
        -> (dc: Double, ac: [Double], scale: Double) {
        var dc = 0.0, ac: [Double] = [], scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                var f = 0.0
                for x in 0..<w {
                    fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5))
                }
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w {
                        f += channel[x + y * w] * fx[x] * fy
                    }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 {
            for i in ac.indices { ac[i] = 0.5 + 0.5 / scale * ac[i] }
        }
        return (dc, ac, scale)
    }
}
