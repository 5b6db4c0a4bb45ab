import Foundation

/// ImageMagick's `exif:*` properties of an EXIF profile, read as its `GetEXIFProperties`
/// (magick/property.c, 6.9.11) reads them, so that ``ImageProperties/exif`` is the same without
/// ImageMagick: the profile is searched for `Exif\0\0`, IFD0 is walked, and each EXIF, GPS and
/// interoperability pointer pushes that directory and the next one in the chain (a directory reached
/// two levels down is keyed `thumbnail:`). The first value of a key wins; tags missing from
/// ImageMagick's table are left out, as its `unknown` key is.
///
/// Values as ImageMagick formats them: integers and bytes in decimal, rationals as `n/d`, several
/// values joined by `", "` and cut at 4,093 characters, ASCII up to its first NUL with unprintable
/// bytes as `.`, floats with `%f`. Bounded: at most ``maximumProfile`` bytes are read, each entry once,
/// at most 16 directories deep, and an ASCII value is cut at 64 KiB (ImageMagick's is not).
enum EXIFProperties {
    /// The most profile bytes read (a JPEG APP1 segment holds at most 65,533).
    static let maximumProfile = 256 << 10

    static func dictionary(_ profile: [UInt8]) -> [String: String] {
        var walk = Walk(profile: Array(profile.prefix(maximumProfile)))
        walk.run()
        return walk.properties
    }

    /// The orientation ImageMagick takes from the `Orientation` property (`StringToLong`).
    static func orientation(_ properties: [String: String]) -> Orientation? {
        properties["Orientation"].map { Orientation(exifValue: leadingInteger($0) ?? 0) }
    }

    /// `strtol`'s reading of the start of `text`.
    static func leadingInteger(_ text: String) -> Int? {
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" })
        var digits = ""
        for (index, character) in trimmed.enumerated() {
            if character.isASCII, character.isNumber || (index == 0 && (character == "-" || character == "+")) {
                digits.append(character)
            } else {
                break
            }
        }
        return Int(digits)
    }

    private struct Walk {
        let exif: ArraySlice<UInt8>
        var properties: [String: String] = [:]
        private var littleEndian = true

        init(profile: [UInt8]) {
            // ImageMagick's search for the prefix: a mismatch consumes the byte, without going back.
            let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
            var at = 0, matched = 0
            while at < profile.count, matched < 6 {
                matched = profile[at] == prefix[matched] ? matched + 1 : 0
                at += 1
            }
            exif = matched == 6 ? profile[at...] : []
        }

        private var length: Int { exif.count }

        private func u16(_ at: Int) -> Int { exif.u16(at: at, littleEndian: littleEndian) }

        private func u32(_ at: Int) -> UInt32 { UInt32(exif.u32(at: at, littleEndian: littleEndian)) }

        private func s32(_ at: Int) -> Int { Int(Int32(bitPattern: u32(at))) }

        /// The EXIF formats ImageMagick reads, BYTE (1) to DOUBLE (12), each of its TIFF type's size
        /// (``TIFFDirectories/typeSizes``); 0 and 13 and up stop a directory.
        private static let formats = 1...12

        mutating func run() {
            guard length >= 16 else { return }
            let id = exif.u16le(at: 0)
            guard id == 0x4949 || id == 0x4D4D else { return }
            littleEndian = id == 0x4949
            guard u16(2) == 0x2A else { return }
            let first = s32(4)
            guard first >= 0, first < length else { return }
            var stack: [(directory: Int, entry: Int, tagOffset: Int)] = Array(repeating: (0, 0, 0), count: 16)
            var level = 0
            var directory = first, entry = 0, tagOffset = 0
            var visited = Set<Int>()
            repeat {
                if level > 0 {
                    level -= 1
                    (directory, entry, tagOffset) = stack[level]
                }
                guard directory >= 0, directory <= length - 2 else { break }
                let entries = u16(directory)
                while entry < entries {
                    let q = directory + 12 * entry + 2
                    guard q <= length - 12, visited.insert(q).inserted else { break }
                    let tag = u16(q) + tagOffset
                    let format = u16(q + 2)
                    guard Self.formats.contains(format), let size = TIFFDirectories.typeSizes[format] else { break }
                    let components = s32(q + 4)
                    guard components >= 0 else { break }
                    let byteCount = components * size
                    var p = q + 8
                    if byteCount > 4 {
                        let offset = s32(q + 8)
                        guard offset >= 0, offset < length, offset + byteCount <= length else {
                            entry += 1
                            continue
                        }
                        p = offset
                    }
                    guard p <= length - size else { break }
                    if let name = EXIFTagNames.names[tag] {
                        let key = level == 2 ? "thumbnail:" + name : name
                        if properties[key] == nil, let value = value(of: format, at: p, components: components, bytes: byteCount) {
                            properties[key] = value
                        }
                    }
                    if tag == TIFFTag.exifIFD || tag == TIFFTag.interoperabilityIFD || tag == TIFFTag.gpsIFD {
                        let offset = p <= length - 4 ? s32(p) : -1
                        if offset >= 0, offset < length, level < 14 {
                            let nestedOffset = tag == TIFFTag.gpsIFD ? 0x10000 : 0
                            stack[level] = (directory, entry + 1, tagOffset)
                            level += 1
                            // ImageMagick's duplicate check compares with the profile's start plus
                            // the tag offset, not with the directory: kept as it is.
                            if stack[0..<level].contains(where: { $0.directory == nestedOffset }) { break }
                            stack[level] = (offset, 0, nestedOffset)
                            level += 1
                            let link = directory + 2 + 12 * entries
                            guard link + 4 <= length else { break }
                            let next = s32(link)
                            if next != 0, next >= 0, next < length, level < 14 {
                                stack[level] = (next, 0, nestedOffset)
                                level += 1
                            }
                        }
                        break
                    }
                    entry += 1
                }
            } while level > 0
        }

        private func value(of format: Int, at p: Int, components: Int, bytes: Int) -> String? {
            func joined(_ size: Int, _ item: (Int) -> String) -> String {
                // ImageMagick writes "v, " for each value into 4,096 bytes and cuts the last two.
                var text = ""
                for index in 0..<components {
                    text += item(p + index * size) + ", "
                    if text.utf8.count >= 4095 { break }
                }
                let kept = String(decoding: text.utf8.prefix(4095), as: UTF8.self)
                return kept.utf8.count > 1 ? String(decoding: kept.utf8.dropLast(2), as: UTF8.self) : kept
            }
            let base = exif.startIndex
            switch format {
            case 1, 7: return joined(1) { String(exif[base + $0]) }
            case 6: return joined(1) { String(Int8(bitPattern: exif[base + $0])) }
            case 3: return joined(2) { String(u16($0)) }
            case 8: return joined(2) { String(Int16(truncatingIfNeeded: u16($0))) }
            case 4: return joined(4) { String(u32($0)) }
            case 9: return joined(4) { String(s32($0)) }
            case 5: return joined(8) { "\(u32($0))/\(u32($0 + 4))" }
            case 10: return joined(8) { "\(s32($0))/\(s32($0 + 4))" }
            case 11:
                // Read in the machine's byte order, as ImageMagick does.
                return joined(4) { at in
                    let raw = (0..<4).reduce(UInt32(0)) { $0 | UInt32(exif[base + at + $1]) << (8 * $1) }
                    return String(format: "%f", Double(Float(bitPattern: raw)))
                }
            case 12:
                return joined(8) { at in
                    let raw = (0..<8).reduce(UInt64(0)) { $0 | UInt64(exif[base + at + $1]) << (8 * $1) }
                    return String(format: "%f", Double(bitPattern: raw))
                }
            default:
                guard p <= length - bytes else { return nil }
                var text = ""
                for byte in exif[(base + p)..<(base + p + min(bytes, 1 << 16))] {
                    if byte == 0 { break }
                    text.append((0x20...0x7E).contains(byte) ? Character(UnicodeScalar(byte)) : ".")
                }
                return text
            }
        }
    }
}
