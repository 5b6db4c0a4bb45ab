import Foundation
import MagickIO

/// Thumbnails on demand: one shared ``Thumbnailer`` (its `jobs` places and its memory budget hold
/// across every request), and a disk cache whose entries are named by what they depend on (which is
/// also their ETag).
final class ThumbnailService: Sendable {
    let thumbnailer: Thumbnailer
    let cache: URL

    /// A decode of the library's files stops after `timeLimit` (nil: never).
    init(cache: URL, jobs: Int, memoryBudget: Int, timeLimit: Duration? = .seconds(10)) throws {
        thumbnailer = Thumbnailer(maxConcurrentJobs: jobs, memoryBudget: memoryBudget,
                                  decodingOptions: DecodingOptions(timeLimit: timeLimit))
        self.cache = cache
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
    }

    /// What a cached thumbnail depends on: the file (its identity, size and time) and the request.
    struct Key: Sendable {
        var tag: String
        var format: OutputFormat
        /// Every frame of an animated GIF or WebP, written as an animated WebP or GIF.
        var animated: Bool

        /// `crop`: a square fill cropped that way (nil: fitted into `size`); `animated`: every
        /// frame of an animated GIF or WebP.
        init?(file: String, size: Int, format: OutputFormat, crop: SquareCrop? = nil, animated: Bool = false) {
            var info = stat()
            guard stat(file, &info) == 0 else { return nil }
            let identity = "\(file)|\(info.st_dev)|\(info.st_ino)|\(info.st_size)|\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            let request = crop.map { "\(size)|fill-\($0.rawValue)" } ?? "\(size)"
            tag = String(fnv1a("\(identity)|\(request)|\(format.fileExtension)\(animated ? "|animated" : "")"), radix: 16)
            self.format = format
            self.animated = animated
        }

        /// The `ETag` header's value.
        var etag: String { "\"\(tag)\"" }
    }

    /// The cached thumbnail's bytes, or nil.
    func cached(_ key: Key) -> Data? {
        try? Data(contentsOf: cacheFile(key))
    }

    /// Makes the thumbnail of `file`, caches it and returns its bytes.
    func make(_ key: Key, file: String, size: Int, crop: SquareCrop? = nil) async throws -> Data {
        let image = try await thumbnail(of: URL(fileURLWithPath: file), size: size, crop: crop, animated: key.animated)
        let data = try await image.encoded(as: key.format.encoding)
        // Written whole then renamed: a reader never sees half a file.
        try? data.write(to: cacheFile(key), options: .atomic)
        return data
    }

    /// A thumbnail of the file at `url` through the shared thumbnailer: fitted into `size` x `size`,
    /// or filling it, cropped as `crop` says; every frame when `animated`. A request whose client
    /// goes away cancels its job, waiting or running.
    func thumbnail(of url: URL, size: Int, crop: SquareCrop? = nil, animated: Bool = false) async throws(MagickIOError) -> Image {
        let options = ThumbnailOptions(crop: crop?.option ?? .center, animated: animated)
        return try await typed {
            guard crop != nil else { return try await thumbnailer.thumbnail(of: url, maxPixelSize: size, options: options) }
            return try await thumbnailer.thumbnail(of: url, size: ImageSize(width: size, height: size), mode: .fill, options: options)
        }
    }

    /// Whether the file is an animated GIF or WebP (its headers only), served animated.
    static func isAnimated(file: String) -> Bool {
        guard let source = try? ImageSource(url: URL(fileURLWithPath: file)) else { return false }
        return (source.format == .gif || source.format == .webp) && source.count > 1
    }

    /// A thumbnail of a source already open (an upload's), as `thumbnail(of:size:)`.
    func thumbnail(of source: ImageSource, size: Int) async throws(MagickIOError) -> Image {
        try await typed { try await thumbnailer.thumbnail(of: source, maxPixelSize: size) }
    }

    /// The library's calls throw ``MagickIOError`` only (their documented contract).
    private func typed<T>(_ body: () async throws -> T) async throws(MagickIOError) -> T {
        do {
            return try await body()
        } catch let error as MagickIOError {
            throw error
        } catch {
            throw MagickIOError(.io, "\(error)")
        }
    }

    private func cacheFile(_ key: Key) -> URL {
        cache.appendingPathComponent("\(key.tag).\(key.format.fileExtension)")
    }
}

/// What `?crop=` takes: a square fill, cropped at the centre, at what draws the eye, or at the
/// busiest part (``ThumbnailOptions/Crop``).
enum SquareCrop: String, Sendable, CaseIterable {
    case center, attention, entropy

    var option: ThumbnailOptions.Crop {
        switch self {
        case .center: .center
        case .attention: .attention
        case .entropy: .entropy
        }
    }
}

/// A thumbnail's encoding, chosen from the request's `Accept`: AVIF, then WebP, then JPEG; for an
/// animation, WebP when the client accepts it and GIF otherwise. PNG only when a proxy URL names it.
enum OutputFormat: Sendable, Hashable {
    case jpeg, webp, avif, gif, png

    var encoding: EncodingFormat {
        switch self {
        case .jpeg: .jpeg(quality: 85)
        case .webp: .webp(quality: 80)
        // AV1 holds up at a lower number than JPEG; 60 is the contract's own example.
        case .avif: .avif(quality: 60)
        case .gif: .gif
        case .png: .png
        }
    }

    var fileExtension: String { encoding.fileExtension }

    var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .gif: "image/gif"
        case .png: "image/png"
        }
    }

    /// The format `accept` rates highest (its q-value; a tie goes to AVIF, then WebP) among those
    /// this machine can write. AVIF and WebP must be named: `image/*` and `*/*` count for JPEG
    /// only, since a client that names neither may not decode them.
    init(accept: String?, animated: Bool) {
        let still = OutputFormat(accept: accept)
        self = !animated ? still : still == .webp || OutputFormat.accepts(accept, "image/webp") ? .webp : .gif
    }

    /// Whether `accept` names `type` with a q-value above 0.
    private static func accepts(_ accept: String?, _ type: String) -> Bool {
        (accept ?? "").split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return parts.first == type && q > 0
        }
    }

    init(accept: String?) {
        var rating: [OutputFormat: Double] = [:]
        for item in (accept ?? "").split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            let format: OutputFormat? = switch type {
            case "image/avif": .avif
            case "image/webp": .webp
            case "image/jpeg", "image/*", "*/*": .jpeg
            default: nil
            }
            if let format { rating[format] = max(rating[format] ?? 0, q) }
        }
        let candidates = [OutputFormat.avif, .webp, .jpeg].filter { $0 == .jpeg || $0.encoding.isAvailable }
        let best = candidates.map { rating[$0] ?? 0 }.max() ?? 0
        // A client that accepts none of them still gets a JPEG, as one that sends no Accept.
        self = best > 0 ? candidates.first { rating[$0] ?? 0 == best } ?? .jpeg : .jpeg
    }
}

/// 64-bit FNV-1a: a stable name for a cache entry (not a security boundary: the key is ours).
func fnv1a(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return hash
}
