#if Remote
import Foundation
import MagickIO
import Synchronization

/// Downloaded sources in a folder, bounded by bytes, the least recently used (by modification
/// time, renewed on every hit) removed first. Each source is two files named by a hash of its URL:
/// `<hash>.source` (the bytes) and `<hash>.json` (URL, validators, freshness, version).
final class DiskStore: Sendable {
    struct Record: Codable {
        var url: String
        var validators: Validators
        var freshUntil: Date?
        var version: String
    }

    let directory: URL
    let maxBytes: Int
    /// Serialises this loader's reads and writes of the folder.
    private let lock = Mutex(())

    init(_ cache: RemoteImageLoader.DiskCache) {
        directory = cache.directory
        maxBytes = cache.maxBytes
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The stored source of `url`, its bytes opened with `options`; nil when absent or unreadable.
    func source(for url: URL, options: DecodingOptions) -> CachedSource? {
        lock.withLock { _ in
            let (data, meta) = files(url)
            guard let json = try? Data(contentsOf: meta), let record = try? JSONDecoder().decode(Record.self, from: json),
                  record.url == url.absoluteString, let bytes = try? Data(contentsOf: data),
                  let source = try? ImageSource(data: bytes, options: options) else { return nil }
            touch(data)
            return CachedSource(source: source, byteCount: bytes.count, validators: record.validators,
                                freshUntil: record.freshUntil, version: record.version)
        }
    }

    /// Stores `bytes` for `url`, then removes the least recently used until the folder fits.
    func store(_ bytes: Data, for url: URL, validators: Validators, freshUntil: Date?, version: String) {
        let record = Record(url: url.absoluteString, validators: validators, freshUntil: freshUntil, version: version)
        guard let json = try? JSONEncoder().encode(record), bytes.count + json.count <= maxBytes else { return }
        lock.withLock { _ in
            let (data, meta) = files(url)
            do {
                try bytes.write(to: data, options: .atomic)
                try json.write(to: meta, options: .atomic)
            } catch {
                try? FileManager.default.removeItem(at: data)
                try? FileManager.default.removeItem(at: meta)
                return
            }
            trim(keeping: data)
        }
    }

    /// Renews a stored source after a `304 Not Modified`.
    func renew(_ url: URL, freshUntil: Date?, cached: CachedSource) {
        lock.withLock { _ in
            let (data, meta) = files(url)
            let record = Record(url: url.absoluteString, validators: cached.validators, freshUntil: freshUntil, version: cached.version)
            guard FileManager.default.fileExists(atPath: data.path), let json = try? JSONEncoder().encode(record) else { return }
            try? json.write(to: meta, options: .atomic)
            touch(data)
        }
    }

    /// The bytes the folder's sources take now.
    var totalBytes: Int {
        lock.withLock { _ in entries().reduce(0) { $0 + $1.bytes } }
    }

    private func files(_ url: URL) -> (data: URL, meta: URL) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a; the record's URL settles a collision
        for byte in url.absoluteString.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let name = String(hash, radix: 16)
        return (directory.appendingPathComponent(name + ".source"), directory.appendingPathComponent(name + ".json"))
    }

    private func touch(_ file: URL) {
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
    }

    /// Each stored source: its data file, its last use, and the bytes of both its files.
    private func entries() -> [(data: URL, used: Date, bytes: Int)] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.filter { $0.hasSuffix(".source") }.compactMap { name in
            let data = directory.appendingPathComponent(name)
            guard let attributes = try? manager.attributesOfItem(atPath: data.path) else { return nil }
            let meta = data.deletingPathExtension().appendingPathExtension("json")
            let metaBytes = ((try? manager.attributesOfItem(atPath: meta.path))?[.size] as? NSNumber)?.intValue ?? 0
            return (data, attributes[.modificationDate] as? Date ?? .distantPast, ((attributes[.size] as? NSNumber)?.intValue ?? 0) + metaBytes)
        }
    }

    private func trim(keeping newest: URL) {
        var all = entries().sorted { $0.used < $1.used }
        var total = all.reduce(0) { $0 + $1.bytes }
        while total > maxBytes, let oldest = all.first {
            all.removeFirst()
            if oldest.data.standardizedFileURL == newest.standardizedFileURL { continue }
            try? FileManager.default.removeItem(at: oldest.data)
            try? FileManager.default.removeItem(at: oldest.data.deletingPathExtension().appendingPathExtension("json"))
            total -= oldest.bytes
        }
    }
}
#endif
