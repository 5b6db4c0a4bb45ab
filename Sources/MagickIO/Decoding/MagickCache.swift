import Foundation

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

/// Admission to ImageMagick's pixel cache. Decodes run side by side ("shared"); one that failed
/// because the pool was full while others ran runs again alone ("exclusive"): it waits for the
/// decodes under way to finish, and new ones wait for it. So an image that decodes alone never
/// fails in a batch for want of cache. Only the decode itself holds the gate, never a caller's
/// wait, so it cannot deadlock.
final class CacheGate: @unchecked Sendable {
    static let shared = CacheGate()

    private let condition = NSCondition()
    private var running = 0
    private var exclusiveWaiting = 0
    private var exclusive = false

    /// Decodes running now.
    var runningCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return running
    }

    /// Runs `body` beside other shared decodes, after any exclusive one.
    func shared<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        while exclusive || exclusiveWaiting > 0 { condition.wait() }
        running += 1
        condition.unlock()
        defer { leave() }
        return try body()
    }

    /// Runs `body` once no other decode is under way, holding new ones back until it is done.
    func exclusive<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        exclusiveWaiting += 1
        while running > 0 || exclusive { condition.wait() }
        exclusiveWaiting -= 1
        exclusive = true
        running += 1
        condition.unlock()
        defer {
            condition.lock()
            exclusive = false
            condition.unlock()
            leave()
        }
        return try body()
    }

    private func leave() {
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
