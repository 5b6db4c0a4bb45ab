import CTestCodecs
import Foundation

/// Large TIFFs written at test time through libtiff (`CTestCodecs`), a row at a time: a scanned
/// page (1-bit, CCITT G4, min-is-white, one strip, as a fax or a scanner writes it) and photo-like
/// RGB (LZW with the predictor or uncompressed, in strips or tiles).
enum LargeTIFFs {
    enum Layout: Sendable {
        case g4Page
        case rgb(compression: Int, tiled: Bool)
    }

    static func write(to url: URL, width: Int, height: Int, _ layout: Layout) throws {
        guard let tif = TIFFOpen(url.path, "w") else {
            throw LargeImages.GenerationError(description: "libtiff could not create \(url.path)")
        }
        defer { TIFFClose(tif) }
        func set(_ tag: Int32, _ value: Int32) throws {
            let ok = withVaList([value]) { TIFFVSetField(tif, UInt32(tag), $0) }
            guard ok == 1 else { throw LargeImages.GenerationError(description: "TIFFSetField \(tag)") }
        }
        try set(TIFFTAG_IMAGEWIDTH, Int32(width))
        try set(TIFFTAG_IMAGELENGTH, Int32(height))
        try set(TIFFTAG_PLANARCONFIG, Int32(PLANARCONFIG_CONTIG))
        var samples = 3
        var tiled = false
        switch layout {
        case .g4Page:
            samples = 1
            try set(TIFFTAG_BITSPERSAMPLE, 1)
            try set(TIFFTAG_SAMPLESPERPIXEL, 1)
            try set(TIFFTAG_PHOTOMETRIC, Int32(PHOTOMETRIC_MINISWHITE))
            try set(TIFFTAG_COMPRESSION, Int32(COMPRESSION_CCITTFAX4))
            try set(TIFFTAG_ROWSPERSTRIP, Int32(height))
        case .rgb(let compression, let isTiled):
            tiled = isTiled
            try set(TIFFTAG_BITSPERSAMPLE, 8)
            try set(TIFFTAG_SAMPLESPERPIXEL, 3)
            try set(TIFFTAG_PHOTOMETRIC, Int32(PHOTOMETRIC_RGB))
            try set(TIFFTAG_COMPRESSION, Int32(compression))
            if compression == COMPRESSION_LZW { try set(TIFFTAG_PREDICTOR, Int32(PREDICTOR_HORIZONTAL)) }
            if tiled {
                try set(TIFFTAG_TILEWIDTH, 256)
                try set(TIFFTAG_TILELENGTH, 256)
            } else {
                try set(TIFFTAG_ROWSPERSTRIP, 16)
            }
        }
        let rowBytes = samples == 1 ? (width + 7) / 8 : width * 3
        if tiled {
            // A row of 256x256 tiles at a time.
            let across = (width + 255) / 256
            var band = [UInt8](repeating: 0, count: across * 256 * 3 * 256)
            var tile = [UInt8](repeating: 0, count: 256 * 256 * 3)
            for top in stride(from: 0, to: height, by: 256) {
                for y in top..<min(top + 256, height) {
                    band.withUnsafeMutableBufferPointer { fillRGB($0, y: y, width: width, rowStart: (y - top) * across * 256 * 3) }
                }
                for column in 0..<across {
                    for y in 0..<256 {
                        let from = y * across * 256 * 3 + column * 256 * 3
                        tile.replaceSubrange(y * 768..<(y + 1) * 768, with: band[from..<from + 768])
                    }
                    let written = tile.withUnsafeMutableBytes {
                        TIFFWriteTile(tif, $0.baseAddress, UInt32(column * 256), UInt32(top), 0, 0)
                    }
                    guard written > 0 else { throw LargeImages.GenerationError(description: "TIFFWriteTile") }
                }
            }
            return
        }
        var row = [UInt8](repeating: 0, count: rowBytes)
        for y in 0..<height {
            row.withUnsafeMutableBufferPointer { row in
                if samples == 1 { fillPage(row, y: y, width: width) } else { fillRGB(row, y: y, width: width, rowStart: 0) }
            }
            let written = row.withUnsafeMutableBytes { TIFFWriteScanline(tif, $0.baseAddress, UInt32(y), 0) }
            guard written == 1 else { throw LargeImages.GenerationError(description: "TIFFWriteScanline row \(y)") }
        }
    }

    /// A page of text-like marks: lines of black "words" (1 bits, min-is-white) on white margins.
    private static func fillPage(_ row: UnsafeMutableBufferPointer<UInt8>, y: Int, width: Int) {
        for i in row.indices { row[i] = 0 }
        let line = y % 60
        guard line >= 20, line < 44, y > 200, y < 6000 else { return }
        for x in 200..<max(200, width - 200) {
            let word = (x / 40 + y / 60) % 7
            let stroke = (x + line / 3) % 9 < 4
            if word != 0, stroke { row[x >> 3] |= 0x80 >> UInt8(x & 7) }
        }
    }

    /// A smooth colour field with some grain, from `rowStart` in `row`.
    private static func fillRGB(_ row: UnsafeMutableBufferPointer<UInt8>, y: Int, width: Int, rowStart: Int) {
        var noise = UInt32(truncatingIfNeeded: y &* 2_654_435_761 | 1)
        for x in 0..<width {
            noise ^= noise << 13
            noise ^= noise >> 17
            noise ^= noise << 5
            let grain = Int(noise % 17) - 8
            let i = rowStart + x * 3
            row[i] = UInt8(clamping: (x * 255 / max(width, 1)) + grain)
            row[i + 1] = UInt8(clamping: (y * 255 / 6000) % 256 + grain)
            row[i + 2] = UInt8(clamping: 128 + Int(100 * sin(Double(x + y) / 150)) + grain)
        }
    }
}
