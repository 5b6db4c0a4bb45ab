/// ImageMagick's resource limits, which are process-wide by ImageMagick's design.
///
/// MagickIO applies ``safeDefaults`` once, on first use. Change them with ``apply(_:)``, which
/// returns the limits actually in force: ImageMagick clamps every value to the system
/// `policy.xml` (Debian's caps memory at 256 MiB, map at 512 MiB, disk at 1 GiB, area at 128 MP,
/// width and height at 16,000 pixels, its "16KP") and still reports success. A deployment raises those caps with a
/// `policy.xml` of its own in a folder named by `MAGICK_CONFIGURE_PATH`, set before the process
/// starts.
///
/// ```swift
/// var limits = ResourceLimits.current
/// limits.memory = 1 << 30
/// let inForce = ResourceLimits.apply(limits)   // inForce.memory may still be 256 MiB
/// ```
///
/// MagickIO never sets ImageMagick's time limit: in 6.9.11 it counts from the process's first
/// pixel-cache use and ends the whole process when exceeded. Per-call deadlines and cancellation
/// go through progress monitors instead.
public struct ResourceLimits: Sendable, Hashable {
    /// Bytes of heap memory the pixel cache may use before it spills to `map`, then `disk`.
    public var memory: Int
    /// Bytes of memory-mapped pixel cache and memory-mapped input files. 0 (MagickIO's default)
    /// means ImageMagick streams input files rather than mapping them, and never maps a cache file.
    public var map: Int
    /// Bytes of pixel cache on disk, in `MAGICK_TEMPORARY_PATH` (default `/tmp`; on tmpfs that is
    /// RAM too). 0 (MagickIO's default) means an image that does not fit in `memory` fails with
    /// ``MagickIOError/Kind/limitExceeded`` instead of writing temporary files.
    public var disk: Int
    /// Pixels one image may have.
    public var area: Int
    /// Pixels one image may be wide.
    public var width: Int
    /// Pixels one image may be high.
    public var height: Int
    /// Frames one read may return.
    public var listLength: Int
    /// ImageMagick's OpenMP threads per operation. MagickIO's default is 1: it runs images in
    /// parallel, one per thread, which on a server beats OpenMP inside each image (measured on 2
    /// cores: no gain from 2 OpenMP threads at 12-36 MP) and never oversubscribes the cores.
    public var threads: Int

    public init(memory: Int, map: Int, disk: Int, area: Int, width: Int, height: Int, listLength: Int, threads: Int) {
        self.memory = memory
        self.map = map
        self.disk = disk
        self.area = area
        self.width = width
        self.height = height
        self.listLength = listLength
        self.threads = threads
    }

    /// What MagickIO applies at start-up: bounded memory, no memory-mapped or on-disk pixel
    /// cache, Debian's policy caps for area and size, at most 10,000 frames, one OpenMP thread.
    public static let safeDefaults = ResourceLimits(
        memory: 256 << 20, map: 0, disk: 0, area: 128_000_000, width: 16_384, height: 16_384,
        listLength: 10_000, threads: 1)

    /// The limits in force now (after the policy's clamp). Stands on `MagickGetResourceLimit`.
    public static var current: ResourceLimits {
        MagickResources.limits()
    }

    /// Sets every limit process-wide and returns the limits in force afterwards, which the
    /// system policy may have lowered. Stands on `MagickSetResourceLimit`: a limit it refuses
    /// keeps its value, which the limits returned show.
    @discardableResult
    public static func apply(_ limits: ResourceLimits) -> ResourceLimits {
        if MagickResources.set(limits) != nil {
            // The documented fallback: a refused limit keeps its value, which the limits returned show.
        }
        return current
    }
}
