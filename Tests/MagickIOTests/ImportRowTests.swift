import CMagickCompat
import CMagickWand
import Foundation
import Testing
@testable import MagickIO

@Suite("Rows written into ImageMagick's pixel cache")
struct ImportRowTests {
    /// Floats at and around every kind of quantum edge: the halves between two quanta and the
    /// floats just either side of them, out of range both ways, zero of both signs, random.
    static func samples(_ count: Int) -> [Float] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { index in
            let quantum = Float(UInt16.random(in: 0...65535, using: &generator))
            switch index % 8 {
            case 0: return (quantum + 0.5) / 65535
            case 1: return ((quantum + 0.5) / 65535).nextUp
            case 2: return ((quantum + 0.5) / 65535).nextDown
            case 3: return quantum / 65535
            case 4: return [-0.25, -0.0, 0, 1, Float(1).nextUp, 1.5, Float.leastNonzeroMagnitude, Float(1).nextDown][index / 8 % 8]
            default: return Float.random(in: 0...1, using: &generator)
            }
        }
    }

    @Test("an RGB or RGBA row is written as ImageMagick's float import writes it", arguments: [false, true])
    func sameQuanta(alpha: Bool) throws {
        let width = 257, height = 9, channels = alpha ? 4 : 3
        let map = alpha ? "RGBA" : "RGB"
        let own = Wand(), imported = Wand()
        try own.newImage(width: width, height: height, alpha: alpha)
        try imported.newImage(width: width, height: height, alpha: alpha)
        var rows = Self.samples(width * height * channels)
        for y in 0..<height {
            rows.withUnsafeMutableBufferPointer { buffer in
                let row = buffer.baseAddress! + y * width * channels
                #expect(cmc_import_float_row(own.pointer, y, width, channels, row) != MagickFalse, "the direct write took row \(y)")
                #expect(MagickImportImagePixels(imported.pointer, 0, y, width, 1, map, FloatPixel, row) != MagickFalse)
            }
        }
        // What importRow writes is the same, through the direct write.
        let viaImportRow = Wand()
        try viaImportRow.newImage(width: width, height: height, alpha: alpha)
        for y in 0..<height {
            try rows.withUnsafeMutableBufferPointer { buffer in try viaImportRow.importRow(y, buffer.baseAddress! + y * width * channels, map: map) }
        }
        func quanta(_ wand: Wand) -> [UInt16] {
            var out = [UInt16](repeating: 0, count: width * height * channels)
            _ = out.withUnsafeMutableBytes { MagickExportImagePixels(wand.pointer, 0, 0, width, height, map, ShortPixel, $0.baseAddress) }
            return out
        }
        let expected = quanta(imported)
        #expect(expected.contains(65535) && expected.contains(0))
        #expect(quanta(own) == expected)
        #expect(quanta(viaImportRow) == expected)
    }

    @Test("a row the direct write does not take is left to ImageMagick's import, unwritten")
    func refused() throws {
        let wand = Wand()
        try wand.newImage(width: 4, height: 2, alpha: false)
        var row = [Float](repeating: 0.5, count: 5 * 4)
        row.withUnsafeMutableBufferPointer { buffer in
            let pointer = buffer.baseAddress!
            #expect(cmc_import_float_row(wand.pointer, 2, 4, 3, pointer) == MagickFalse, "no row 2")
            #expect(cmc_import_float_row(wand.pointer, -1, 4, 3, pointer) == MagickFalse)
            #expect(cmc_import_float_row(wand.pointer, 0, 5, 3, pointer) == MagickFalse, "another width")
            #expect(cmc_import_float_row(wand.pointer, 0, 4, 4, pointer) == MagickFalse, "alpha the image has not")
            #expect(cmc_import_float_row(wand.pointer, 0, 4, 2, pointer) == MagickFalse)
        }
        let withAlpha = Wand()
        try withAlpha.newImage(width: 4, height: 2, alpha: true)
        row.withUnsafeMutableBufferPointer { buffer in
            #expect(cmc_import_float_row(withAlpha.pointer, 0, 4, 3, buffer.baseAddress!) == MagickFalse, "RGB into an image with alpha")
        }
        var out = [UInt16](repeating: 1, count: 4 * 2 * 3)
        _ = out.withUnsafeMutableBytes { MagickExportImagePixels(wand.pointer, 0, 0, 4, 2, "RGB", ShortPixel, $0.baseAddress) }
        #expect(out.allSatisfy { $0 == 0 }, "nothing was written")
    }

    @Test("a row placed where a turn moves it holds the import's quanta, each pixel's channels together")
    func placedRow() {
        // Three RGB pixels placed backwards (step -3 quanta) from the last pixel's place.
        let floats: [Float] = [0, 0.5, 1, 0.25, 0.75, -1, 2, .nan, 1e-9]
        var direct = [UInt16](repeating: 0, count: 9)
        cmc_float_quanta(floats, &direct, 9)
        var placed = [UInt16](repeating: 7, count: 9)
        placed.withUnsafeMutableBufferPointer { cmc_place_float_quanta(floats, 3, 3, $0.baseAddress! + 6, -3) }
        #expect(placed == Array(direct[6..<9] + direct[3..<6] + direct[0..<3]))
        #expect(direct == [0, 32768, 65535, 16384, 49151, 0, 65535, 0, 0])
    }
}
