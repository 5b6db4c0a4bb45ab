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

    /// ImageMagick's walk over the directories, its entries read through ``TIFFDirectories`` (the
    /// one reader of TIFF structures: byte order, bounds, type sizes); what is ImageMagick's own
    /// here is only the order it goes in, where it stops, and how it formats values.
    private struct Walk {
        /// The structure after the prefix (nil without one, or when it is not classic TIFF).
        private var tiff: TIFFDirectories?
        /// The bytes after the prefix.
        private let length: Int
        var properties: [String: String] = [:]

        init(profile: [UInt8]) {
            // ImageMagick's search for the prefix: a mismatch consumes the byte, without going back.
            let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
            var at = 0, matched = 0
            while at < profile.count, matched < 6 {
                matched = profile[at] == prefix[matched] ? matched + 1 : 0
                at += 1
            }
            let exif = matched == 6 ? profile[at...] : []
            length = exif.count
            // ImageMagick reads a byte-order mark and 42 only (no BigTIFF), in at least 16 bytes.
            // The whole profile (at most ``maximumProfile``) in one window: ImageMagick's walk jumps
            // between directories, values and links anywhere in it.
            if length >= 16, let tiff = TIFFDirectories(.memory(Data(exif)), wholeWindow: true), !tiff.isBigTIFF {
                self.tiff = tiff
            }
        }

        // Every read below is within `length`, checked where the offset is made.
        private mutating func u16(_ at: Int) -> Int { tiff?.value(at: at, size: 2) ?? 0 }

        private mutating func u32(_ at: Int) -> Int { tiff?.value(at: at, size: 4) ?? 0 }

        private mutating func s32(_ at: Int) -> Int { tiff?.signed32(at: at) ?? -1 }

        /// The EXIF formats ImageMagick reads, BYTE (1) to DOUBLE (12), each of its TIFF type's size
        /// (``TIFFDirectories/typeSizes``); 0 and 13 and up stop a directory.
        private static let formats = 1...12

        mutating func run() {
            guard tiff != nil else { return }
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

        private mutating func value(of format: Int, at p: Int, components: Int, bytes: Int) -> String? {
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
            // The bytes of the values a format of one byte shows (no more than 4,095 characters take).
            func raw(_ count: Int) -> [UInt8] { tiff?.bytes(at: p, count: min(count, 4096)) ?? [] }
            // A float's or double's bytes, read in the machine's byte order, as ImageMagick does.
            func machineOrder(_ at: Int, _ size: Int) -> UInt64 {
                (tiff?.bytes(at: at, count: size) ?? []).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            }
            switch format {
            case 1, 7:
                let values = raw(components)
                return joined(1) { String(values[$0 - p]) }
            case 6:
                let values = raw(components)
                return joined(1) { String(Int8(bitPattern: values[$0 - p])) }
            case 3: return joined(2) { String(u16($0)) }
            case 8: return joined(2) { String(Int16(truncatingIfNeeded: u16($0))) }
            case 4: return joined(4) { String(u32($0)) }
            case 9: return joined(4) { String(s32($0)) }
            case 5: return joined(8) { "\(u32($0))/\(u32($0 + 4))" }
            case 10: return joined(8) { "\(s32($0))/\(s32($0 + 4))" }
            case 11:
                return joined(4) { String(format: "%f", Double(Float(bitPattern: UInt32(machineOrder($0, 4))))) }
            case 12:
                return joined(8) { String(format: "%f", Double(bitPattern: machineOrder($0, 8))) }
            default:
                guard p <= length - bytes else { return nil }
                var text = ""
                for byte in tiff?.bytes(at: p, count: min(bytes, 1 << 16)) ?? [] {
                    if byte == 0 { break }
                    text.append((0x20...0x7E).contains(byte) ? Character(UnicodeScalar(byte)) : ".")
                }
                return text
            }
        }
    }
}
