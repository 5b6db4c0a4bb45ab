#if Remote
import AsyncHTTPClient
import Foundation
import MagickIO
import NIOCore
import NIOPosix
import Synchronization

/// Loads images from http(s) URLs for a service: the header checked before the body is read, every
/// connection through an address guard, identical requests sharing one download, results cached.
///
/// ```swift
/// import MagickIORemote
///
/// let loader = RemoteImageLoader(configuration: .init())      // one, long-lived
/// let thumb = try await loader.thumbnail(of: url, maxPixelSize: 256)
/// try await loader.shutdown()                                 // when the service stops
/// ```
///
/// One `HTTPClient` (AsyncHTTPClient) per loader, its connections pooled; redirects are followed
/// by the loader, not the client, so that each hop is checked against
/// ``Configuration/allowedSources`` and each connection by the address guard (see
/// <doc:RemoteImages>). Every method may be called from any task at once.
public final class RemoteImageLoader: Sendable {
    /// What this loader may fetch, its timeouts and its caches.
    public let configuration: Configuration

    private let transport: Mutex<Task<Transport, any Error>?> = Mutex(nil)
    private let sources = Coalescer<CachedSource>()
    private let thumbnails = Coalescer<Image>()
    private let memory: MemoryCache
    private let disk: DiskStore?
    private let received = Atomic<Int>(0)

    /// The client and the address gate it connects through, made on first use.
    private struct Transport: Sendable {
        var client: HTTPClient
        var gate: AddressGate
    }

    /// Makes a loader; its client and address guard start with the first request.
    ///
    /// ```swift
    /// var configuration = RemoteImageLoader.Configuration()
    /// configuration.allowedSources = ["https://images.example.com/"]
    /// let loader = RemoteImageLoader(configuration: configuration)
    /// ```
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        memory = MemoryCache(maxBytes: max(configuration.memoryCacheBytes, 0))
        disk = configuration.diskCache.map(DiskStore.init)
    }

    /// An `ImageSource` of the image at `url`: from the caches when fresh (or revalidated with
    /// `ETag`/`Last-Modified`), otherwise downloaded, the header checked against
    /// ``Configuration/decoding`` as soon as it has arrived.
    ///
    /// ```swift
    /// let source = try await loader.source(for: URL(string: "https://images.example.com/cat.jpg")!)
    /// print(source.format, try source.properties(at: 0).pixelWidth)
    /// ```
    ///
    /// - Throws: a `MagickIOError`: `MagickIOError/Kind/sourceNotAllowed` for a URL outside the
    ///   allowed sources or an address the guard refuses, `MagickIOError/Kind/sourceUnavailable`
    ///   for an error status, too many redirects, a timeout or a broken connection,
    ///   `MagickIOError/Kind/limitExceeded` for a source over ``Configuration/maxSourceBytes`` or
    ///   a header over the decoding limits, `MagickIOError/Kind/cancelled`, and what
    ///   `ImageSource/init(data:options:)` throws for the bytes.
    public func source(for url: URL) async throws -> ImageSource {
        try await cachedSource(url).source
    }

    /// An upright thumbnail of the image at `url` (`ImageSource.thumbnail(maxPixelSize:)`),
    /// made once for identical requests in flight and kept in the memory cache.
    ///
    /// ```swift
    /// let thumb = try await loader.thumbnail(of: url, maxPixelSize: 256)
    /// let jpeg = try await thumb.encoded(as: .jpeg(quality: 85))
    /// ```
    ///
    /// - Throws: a `MagickIOError`: what ``source(for:)`` throws, and what the thumbnail's decode throws.
    public func thumbnail(of url: URL, maxPixelSize: Int) async throws -> Image {
        let cached = try await cachedSource(url)
        let key = "thumbnail \(maxPixelSize) \(cached.version) \(url.absoluteString)"
        if case .thumbnail(let image)? = memory[key] { return image }
        let image = try await thumbnails.value(for: key) { () async throws(MagickIOError) in
            do {
                return try await cached.source.thumbnail(maxPixelSize: maxPixelSize)
            } catch {
                throw error as? MagickIOError ?? MagickIOError(.corruptImage, "\(error)")
            }
        }
        memory.insert(.thumbnail(image), for: key)
        return image
    }

    /// The body bytes this loader has downloaded, every source together: each body that arrived
    /// whole counts once; cache hits and `304 Not Modified` add nothing. For a service's metrics.
    ///
    /// ```swift
    /// print("fetched \(loader.receivedByteCount) bytes from sources")
    /// ```
    public var receivedByteCount: Int {
        received.load(ordering: .relaxed)
    }

    /// Cancels what is in flight, then closes the client and the address guard; call it once,
    /// when the loader is no longer used.
    ///
    /// ```swift
    /// try await loader.shutdown()
    /// ```
    public func shutdown() async throws {
        sources.cancelAll()
        thumbnails.cancelAll()
        guard let task = transport.withLock({ $0 }), let transport = try? await task.value else { return }
        try await transport.client.shutdown()
        await transport.gate.close()
    }

    // MARK: - The source: caches, then one download for everyone asking

    private func cachedSource(_ url: URL) async throws(MagickIOError) -> CachedSource {
        let key = "source \(url.absoluteString)"
        if case .source(let cached)? = memory[key], cached.isFresh { return cached }
        return try await sources.value(for: key) { () async throws(MagickIOError) in
            try await self.load(url, key: key)
        }
    }

    /// The callers waiting for the download of `url`, and the downloads under way (for tests).
    func waiting(for url: URL) -> (callers: Int, downloads: Int) {
        (sources.waiters(for: "source \(url.absoluteString)"), sources.inFlight)
    }

    private func load(_ url: URL, key: String) async throws(MagickIOError) -> CachedSource {
        var stale: CachedSource?
        if case .source(let cached)? = memory[key] { stale = cached }
        if stale == nil, let stored = disk?.source(for: url, options: configuration.decoding) {
            if stored.isFresh {
                memory.insert(.source(stored), for: key)
                return stored
            }
            stale = stored
        }
        let fetcher: Fetcher
        do {
            let transport = try await transport()
            fetcher = Fetcher(client: transport.client, gate: transport.gate, configuration: configuration, keepsBytes: disk != nil)
        } catch {
            throw MagickIOError(.sourceUnavailable, "the loader's HTTP client could not start: \(error)", source: .init(url: url.absoluteString))
        }
        let revalidating = stale.flatMap { $0.validators.isEmpty ? nil : $0.validators }
        switch try await fetcher.fetch(url, revalidating: revalidating) {
        case .notModified(let freshUntil):
            var renewed = stale!
            renewed.freshUntil = freshUntil
            memory.insert(.source(renewed), for: key)
            disk?.renew(url, freshUntil: freshUntil, cached: renewed)
            return renewed
        case .fetched(let fetched):
            received.add(fetched.byteCount, ordering: .relaxed)
            let cached = CachedSource(source: fetched.source, byteCount: fetched.byteCount,
                                      validators: fetched.validators, freshUntil: fetched.freshUntil, version: UUID().uuidString)
            memory.insert(.source(cached), for: key)
            if let bytes = fetched.bytes {
                disk?.store(bytes, for: url, validators: cached.validators, freshUntil: cached.freshUntil, version: cached.version)
            }
            return cached
        }
    }

    private func transport() async throws -> Transport {
        let task = transport.withLock { task in
            if let task { return task }
            let configuration = configuration
            let made = Task { () throws -> Transport in
                let group = MultiThreadedEventLoopGroup.singleton
                let gate = try await AddressGate(policy: AddressPolicy(configuration), connectTimeout: configuration.connectTimeout, group: group)
                var client = HTTPClient.Configuration()
                client.redirectConfiguration = .disallow
                client.timeout = .init(connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.downloadTimeout))
                client.proxy = .socksServer(host: "127.0.0.1", port: gate.port)
                client.decompression = .disabled
                return Transport(client: HTTPClient(eventLoopGroup: group, configuration: client), gate: gate)
            }
            task = made
            return made
        }
        return try await task.value
    }
}
#endif
