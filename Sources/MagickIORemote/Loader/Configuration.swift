#if Remote
import Foundation
import MagickIO

extension RemoteImageLoader {
    /// What a ``RemoteImageLoader`` may fetch, how long it waits, and what it keeps.
    ///
    /// ```swift
    /// var configuration = RemoteImageLoader.Configuration()
    /// configuration.allowedSources = ["https://images.example.com/"]
    /// configuration.diskCache = .init(directory: cacheFolder, maxBytes: 1 << 30)
    /// let loader = RemoteImageLoader(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// URL prefixes a source must start with, at every redirect hop; empty allows any source
        /// the address guard allows.
        public var allowedSources: [String] = []
        /// Whether loopback addresses (127.0.0.0/8, `::1`, and their IPv4-mapped and
        /// IPv4-compatible forms) may be connected to.
        public var allowLoopback = false
        /// Whether private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, and the
        /// mapped forms) may be connected to.
        public var allowPrivateNetworks = false
        /// Whether link-local addresses (169.254/16, where cloud metadata services live, and
        /// fe80::/10) may be connected to.
        public var allowLinkLocal = false
        /// The most bytes a source may have: a larger `Content-Length` is refused before the body
        /// is read, and a body that grows past it is cut off (`MagickIOError/Kind/limitExceeded`).
        public var maxSourceBytes = 32 << 20
        /// The most redirects followed for one source; each hop is checked again.
        public var maxRedirects = 5
        /// How long a connection may take to open.
        public var connectTimeout: Duration = .seconds(5)
        /// How long one hop may take from the request to the last byte of its body.
        public var downloadTimeout: Duration = .seconds(10)
        /// How long a whole fetch may take, every redirect included.
        public var requestTimeout: Duration = .seconds(20)
        /// The bytes of recent results (sources and thumbnails) kept in memory, least recently
        /// used dropped first; 0 keeps none.
        public var memoryCacheBytes = 64 << 20
        /// A folder for downloaded sources, bounded by bytes, least recently used dropped first;
        /// nil keeps none on disk.
        public var diskCache: DiskCache?
        /// The limits a source's header is checked against as soon as it has arrived, and that
        /// its `ImageSource` decodes with.
        public var decoding = DecodingOptions()

        public init() {}
    }

    /// Where a loader keeps downloaded sources on disk, and how many bytes they may take.
    ///
    /// ```swift
    /// configuration.diskCache = .init(directory: URL(fileURLWithPath: "/var/cache/images"), maxBytes: 1 << 30)
    /// ```
    public struct DiskCache: Sendable, Hashable {
        /// The folder (created when missing); the loader owns what is in it.
        public var directory: URL
        /// The most bytes the cached sources may take together.
        public var maxBytes: Int

        public init(directory: URL, maxBytes: Int) {
            self.directory = directory
            self.maxBytes = maxBytes
        }
    }
}
#endif
