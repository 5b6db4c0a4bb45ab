internal import CMagickWand

/// ImageMagick's resource limits and usage, process-wide (`MagickGetResourceLimit`,
/// `MagickSetResourceLimit`, `GetMagickResource`).
///
/// The limits are read from ImageMagick once and kept until MagickIO sets them again: MagickWand is
/// reached through this module only, so nothing else in the process changes them, and a decode
/// then reads them once for all its checks instead of eight C calls each time.
enum MagickResources {
    private static let inForce = Locked<ResourceLimits?>(nil)

    static func limits() -> ResourceLimits {
        MagickRuntime.start()
        // Read under the lock, so that a set meanwhile cannot be overwritten by what it replaced.
        return inForce.withLock { limits in
            if let limits { return limits }
            let read = read()
            limits = read
            return read
        }
    }

    private static func read() -> ResourceLimits {
        func get(_ type: ResourceType) -> Int {
            Int(clamping: MagickGetResourceLimit(type))
        }
        return ResourceLimits(
            memory: get(MemoryResource), map: get(MapResource), disk: get(DiskResource),
            area: get(AreaResource), width: get(WidthResource), height: get(HeightResource),
            listLength: get(ListLengthResource), threads: get(ThreadResource))
    }

    /// Sets every limit (at start-up, before MagickRuntime.start returns: it does not start the
    /// runtime itself when called from there), or returns which one `MagickSetResourceLimit`
    /// refused (ImageMagick refuses a limit above one `policy.xml` sets).
    static func set(_ limits: ResourceLimits, starting: Bool = true) -> MagickIOError? {
        if starting { MagickRuntime.start() }
        defer { inForce.withLock { $0 = nil } }
        let values: [(ResourceType, Int)] = [
            (MemoryResource, limits.memory), (MapResource, limits.map), (DiskResource, limits.disk),
            (AreaResource, limits.area), (WidthResource, limits.width), (HeightResource, limits.height),
            (ListLengthResource, limits.listLength), (ThreadResource, max(limits.threads, 1)),
        ]
        for (type, value) in values where MagickSetResourceLimit(type, MagickSizeType(max(value, 0))) == MagickFalse {
            return MagickIOError(.limitExceeded, "ImageMagick refused the resource limit \(type.rawValue) of \(value)")
        }
        return nil
    }

    /// Bytes of pixel cache in use now, process-wide.
    static var memoryInUse: Int {
        MagickRuntime.start()
        return Int(clamping: GetMagickResource(MemoryResource))
    }

    /// The pixel cache's memory limit in force.
    static var memoryLimit: Int {
        limits().memory
    }
}

/// ImageMagick's pixel cache as one pool for the whole process: its memory limit
/// (``ResourceLimits/memory``) counts every image of every thread, and with MagickIO's map and disk
/// limits at 0 an image that does not fit fails ("cache resources exhausted").
enum MagickCache {
    /// Bytes of pixel cache in use now, process-wide.
    static var inUse: Int { MagickResources.memoryInUse }

    /// The memory limit in force.
    static var limit: Int { MagickResources.memoryLimit }

    /// Whether `bytes` more would not fit in the pool now.
    static func wouldOverflow(adding bytes: Int) -> Bool {
        inUse.saturatingPlus(bytes) > limit
    }
}
