import CTestCodecs
import Foundation

/// Lossless WebPs (and lossy ones with a losslessly compressed alpha plane) as libwebp's encoder
/// writes them with cwebp's settings: every method (`-m 0..6`), every preset (`-z 0..9`),
/// near-lossless, exact alpha, from pictures that make it choose each transform (photo-like,
/// palettes of 2, 4, 16 and 256 colours, grey, alpha). Deterministic, written in memory.
enum LosslessWebPs {
    struct Sample {
        var name: String
        var bytes: Data
    }

    /// A `width` x `height` RGBA picture of `kind`: "photo" (smooth fields and noise), "alpha"
    /// (the photo under a varying alpha), "grey", or "palette-N" (N colours in blocks and noise).
    static func picture(_ kind: String, width: Int, height: Int) -> [UInt8] {
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            random ^= random << 13; random ^= random >> 7; random ^= random << 17
            return Int(random % 256)
        }
        let colours = kind.hasPrefix("palette-") ? Int(kind.dropFirst(8)) ?? 16 : 0
        let palette = (0..<max(colours, 1)).map { _ in [UInt8(next()), UInt8(next()), UInt8(next())] }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 4
                if colours > 0 {
                    let index = ((x / 7 + y / 5) * 31 + (next() < 40 ? next() : 0)) % colours
                    rgba[at] = palette[index][0]; rgba[at + 1] = palette[index][1]; rgba[at + 2] = palette[index][2]
                    continue
                }
                let field = 128 + 60 * sin(Double(x) / 13) * cos(Double(y) / 17)
                let noise = next() / 16 - 8
                let r = UInt8(clamping: Int(field) + noise), g = UInt8(clamping: Int(field * 0.8) + x % 50 - noise)
                let b = UInt8(clamping: 255 - Int(field) + y % 30)
                rgba[at] = r; rgba[at + 1] = kind == "grey" ? r : g; rgba[at + 2] = kind == "grey" ? r : b
                if kind == "alpha" { rgba[at + 3] = UInt8(clamping: (x * 255) / width + (next() < 20 ? 40 : 0)) }
            }
        }
        return rgba
    }

    /// Every setting over `kinds` at `width` x `height`.
    static func all(kinds: [String] = ["photo", "alpha", "grey", "palette-2", "palette-4", "palette-16", "palette-256"],
                    width: Int = 160, height: Int = 120) -> [Sample] {
        var samples: [Sample] = []
        for kind in kinds {
            let rgba = picture(kind, width: width, height: height)
            for method in 0...6 {
                samples += encode(rgba, width, height, "\(kind)-m\(method)") { $0.lossless = 1; $0.method = Int32(method) }
            }
            for level in 0...9 {
                samples += encode(rgba, width, height, "\(kind)-z\(level)") { _ = WebPConfigLosslessPreset(&$0, Int32(level)) }
            }
            for near in [0, 40, 80] {
                samples += encode(rgba, width, height, "\(kind)-near\(near)") {
                    $0.lossless = 1; $0.near_lossless = Int32(near); $0.method = 4
                }
            }
            samples += encode(rgba, width, height, "\(kind)-exact") { $0.lossless = 1; $0.exact = 1; $0.method = 6 }
            if kind == "alpha" {
                for method in [0, 4, 6] {
                    samples += encode(rgba, width, height, "\(kind)-lossy-alpha-m\(method)") {
                        $0.lossless = 0; $0.quality = 80; $0.alpha_compression = 1; $0.method = Int32(method)
                        $0.alpha_quality = 100
                    }
                }
            }
        }
        return samples
    }

    /// One encode of `rgba` with the settings `configure` makes of the default ones.
    static func encode(_ rgba: [UInt8], _ width: Int, _ height: Int, _ name: String,
                       configure: (inout WebPConfig) -> Void) -> [Sample] {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { return [] }
        configure(&config)
        guard WebPValidateConfig(&config) != 0 else { return [] }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { return [] }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(width)
        picture.height = Int32(height)
        picture.use_argb = 1
        let writer = UnsafeMutablePointer<WebPMemoryWriter>.allocate(capacity: 1)
        WebPMemoryWriterInit(writer)
        defer { WebPMemoryWriterClear(writer); writer.deallocate() }
        guard WebPPictureImportRGBA(&picture, rgba, Int32(width * 4)) != 0 else { return [] }
        picture.writer = WebPMemoryWrite
        picture.custom_ptr = UnsafeMutableRawPointer(writer)
        guard WebPEncode(&config, &picture) != 0, let memory = writer.pointee.mem else { return [] }
        return [Sample(name: name, bytes: Data(bytes: memory, count: writer.pointee.size))]
    }
}
