import Foundation

extension ThumbHash {
    /// The placeholder the hash stands for, as the reference decoder draws it: at most 32 pixels
    /// a side in the hash's aspect ratio, `.rgba8`, straight alpha; colour terms boosted by 1.25
    /// to make up for their quantisation.
    ///
    /// ```swift
    /// let preview = hash.rendered()       // 32x24 for a 4:3 photo
    /// ```
    public func rendered() -> PixelBuffer {
        let layout = Layout(bytes)!
        let header24 = bytes.u24le(at: 0), header16 = bytes.u16le(at: 3)
        let lDC = Double(header24 & 63) / 63
        let pDC = Double((header24 >> 6) & 63) / 31.5 - 1
        let qDC = Double((header24 >> 12) & 63) / 31.5 - 1
        let lScale = Double((header24 >> 18) & 31) / 31
        let pScale = Double((header16 >> 3) & 63) / 63
        let qScale = Double((header16 >> 9) & 63) / 63
        let hasAlpha = layout.hasAlpha
        let (lx, ly) = layout.luminance
        let aDC = hasAlpha ? Double(bytes[5] & 15) / 15 : 1
        let aScale = hasAlpha ? Double(bytes[5] >> 4) / 15 : 0

        var index = 0
        let start = hasAlpha ? 6 : 5
        func channel(_ nx: Int, _ ny: Int, _ scale: Double) -> [Double] {
            var ac: [Double] = []
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    let nibble = bytes[start + index >> 1] >> ((index & 1) << 2) & 15
                    ac.append((Double(nibble) / 7.5 - 1) * scale)
                    index += 1
                    cx += 1
                }
            }
            return ac
        }
        let lAC = channel(lx, ly, lScale)
        let pAC = channel(3, 3, pScale * 1.25)
        let qAC = channel(3, 3, qScale * 1.25)
        let aAC = hasAlpha ? channel(5, 5, aScale) : []

        let ratio = approximateAspectRatio
        let w = Self.round(ratio > 1 ? 32 : 32 * ratio)
        let h = Self.round(ratio > 1 ? 32 / ratio : 32)
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        var fx = [Double](repeating: 0, count: max(lx, hasAlpha ? 5 : 3))
        var fy = [Double](repeating: 0, count: max(ly, hasAlpha ? 5 : 3))
        for y in 0..<h {
            for x in 0..<w {
                var l = lDC, p = pDC, q = qDC, a = aDC
                for cx in fx.indices { fx[cx] = cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
                for cy in fy.indices { fy[cy] = cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
                var j = 0
                for cy in 0..<ly {
                    var cx = cy > 0 ? 0 : 1
                    let fy2 = fy[cy] * 2
                    while cx * ly < lx * (ly - cy) {
                        l += lAC[j] * fx[cx] * fy2
                        cx += 1
                        j += 1
                    }
                }
                j = 0
                for cy in 0..<3 {
                    let fy2 = fy[cy] * 2
                    for cx in (cy > 0 ? 0 : 1)..<(3 - cy) {
                        let f = fx[cx] * fy2
                        p += pAC[j] * f
                        q += qAC[j] * f
                        j += 1
                    }
                }
                if hasAlpha {
                    j = 0
                    for cy in 0..<5 {
                        let fy2 = fy[cy] * 2
                        for cx in (cy > 0 ? 0 : 1)..<(5 - cy) {
                            a += aAC[j] * fx[cx] * fy2
                            j += 1
                        }
                    }
                }
                let (r, g, b) = Self.rgb(l: l, p: p, q: q)
                let i = (y * w + x) * 4
                // Truncated, as a JavaScript Uint8Array stores a number.
                rgba[i] = UInt8(max(0, 255 * min(1, r)))
                rgba[i + 1] = UInt8(max(0, 255 * min(1, g)))
                rgba[i + 2] = UInt8(max(0, 255 * min(1, b)))
                rgba[i + 3] = UInt8(max(0, 255 * min(1, a)))
            }
        }
        return PixelBuffer(layout: .rgba8, width: w, height: h, bytesPerRow: w * 4, bytes: rgba)
    }
}
