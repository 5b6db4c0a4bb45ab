#if Remote
import Foundation
import MagickIO
import Synchronization

/// A source as a loader keeps it: the opened image, its validators, how long it stays fresh, and a
/// version that names this download (kept across `304 Not Modified`), which thumbnails are keyed by.
struct CachedSource: Sendable {
    var source: ImageSource
    var byteCount: Int
    var validators: Validators
    var freshUntil: Date?
    var version: String

    var isFresh: Bool { freshUntil.map { $0 > Date() } ?? false }
}

/// Recent results in memory, bounded by their bytes, the least recently used dropped first.
final class MemoryCache: Sendable {
    enum Value: Sendable {
        case source(CachedSource)
        case thumbnail(Image)

        /// What the value holds in memory: a source's bytes, a thumbnail's pixels.
        var cost: Int {
            switch self {
            case .source(let cached): cached.byteCount
            case .thumbnail(let image): image.width * image.height * 4 * max(image.frameCount, 1)
            }
        }
    }

    private struct Entry {
        var value: Value
        var cost: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var total = 0
        var tick: UInt64 = 0
    }

    let maxBytes: Int
    private let state = Mutex(State())

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// The bytes held now (never more than ``maxBytes``).
    var totalBytes: Int {
        state.withLock { $0.total }
    }

    subscript(key: String) -> Value? {
        state.withLock { state in
            guard state.entries[key] != nil else { return nil }
            state.tick += 1
            state.entries[key]!.lastUse = state.tick
            return state.entries[key]!.value
        }
    }

    /// Keeps `value`, dropping the least recently used until it fits; a value larger than the
    /// whole cache is not kept.
    func insert(_ value: Value, for key: String) {
        let cost = value.cost
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.total -= old.cost }
            guard cost <= maxBytes else { return }
            while state.total + cost > maxBytes, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                state.total -= oldest.value.cost
            }
            state.tick += 1
            state.entries[key] = Entry(value: value, cost: cost, lastUse: state.tick)
            state.total += cost
        }
    }
}
#endif
