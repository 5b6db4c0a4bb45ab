import Dispatch
import Foundation
import Synchronization
import Testing
@testable import MagickIO
import Glibc

// MARK: - Running the corpus

/// Runs the corpus on every core, each input timed, with a watchdog that reports an input still
/// running after the guard's limit (a hang would otherwise only show as the suite's time limit).
struct CorpusRun {
    /// An input that takes longer than this fails.
    static let perInputLimit: Duration = .seconds(10)

    var problems: [String]
    var summary: String
    var perSource: [String]
    /// Inputs whose outcome from memory differs from their outcome from a file.
    var mismatches: [String]

    struct Record: Sendable {
        var item: Int
        var fromFile: Bool
        var evaluation: Evaluation
        var elapsed: Duration
    }

    static func run(_ corpus: [CorpusItem], fileDirectory: URL) -> CorpusRun {
        let workers = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let records = Locked<[Record]>([])
        let watchdog = Watchdog(workers: workers, limit: perInputLimit)
        let wall = ContinuousClock().measure {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var mine: [Record] = []
                for index in stride(from: worker, to: corpus.count, by: workers) {
                    let item = corpus[index]
                    mine.append(measure(item, index: index, worker: worker, watchdog: watchdog, fromFile: nil))
                    if let fileName = item.fileName {
                        let url = fileDirectory.appendingPathComponent(fileName)
                        do {
                            try item.data.write(to: url)
                            mine.append(measure(item, index: index, worker: worker, watchdog: watchdog, fromFile: url))
                        } catch {
                            mine.append(Record(item: index, fromFile: true, evaluation: Evaluation(
                                result: .failure(.io), detail: "", problem: "\(item.name): cannot write \(url.path): \(error)"), elapsed: .zero))
                        }
                    }
                }
                records.withLock { $0 += mine }
            }
        }
        watchdog.stop()
        return CorpusRun(corpus: corpus, records: records.withLock { $0 }, wall: wall, workers: workers)
    }

    private static func measure(_ item: CorpusItem, index: Int, worker: Int, watchdog: Watchdog, fromFile url: URL?) -> Record {
        let name = url == nil ? item.name : "\(item.name) (file)"
        watchdog.begin(worker: worker, name: name)
        let clock = ContinuousClock()
        let start = clock.now
        let evaluation = Evaluation.evaluate(name) { () throws in
            if let url { try ImageSource(url: url) } else { try ImageSource(data: item.data) }
        }
        let elapsed = clock.now - start
        watchdog.end(worker: worker)
        return Record(item: index, fromFile: url != nil, evaluation: evaluation, elapsed: elapsed)
    }

    init(corpus: [CorpusItem], records: [Record], wall: Duration, workers: Int) {
        func ms(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        }
        var problems: [String] = []
        var counts: [String: Int] = [:]
        var bySource: [String: (count: Int, labels: [String: Int], total: Double, max: Double)] = [:]
        var total = 0.0
        var slowest = (ms: 0.0, name: "")
        for record in records {
            let item = corpus[record.item]
            let label = record.evaluation.label
            counts[label, default: 0] += 1
            let time = ms(record.elapsed)
            total += time
            if time > slowest.ms { slowest = (time, item.name + (record.fromFile ? " (file)" : "")) }
            var source = bySource[item.origin] ?? (0, [:], 0, 0)
            source.count += 1
            source.labels[label, default: 0] += 1
            source.total += time
            source.max = max(source.max, time)
            bySource[item.origin] = source
            if let problem = record.evaluation.problem { problems.append(problem) }
            if record.elapsed > Self.perInputLimit {
                problems.append("\(item.name)\(record.fromFile ? " (file)" : ""): took \(record.elapsed), over the \(Self.perInputLimit) guard")
            }
        }
        // The same bytes from memory and from a file: ImageMagick reads a blob and a file through
        // different code, and may fail them differently (both outcomes are then expected kinds,
        // already checked above). Reported, not failed.
        var outcomes: [Int: [Bool: Evaluation]] = [:]
        for record in records { outcomes[record.item, default: [:]][record.fromFile] = record.evaluation }
        var mismatches: [String] = []
        for (index, pair) in outcomes.sorted(by: { $0.key < $1.key }) {
            if let memory = pair[false], let file = pair[true], memory.result != file.result {
                mismatches.append("\(corpus[index].name): from memory \(memory.label) [\(memory.detail.prefix(100))], from a file \(file.label) [\(file.detail.prefix(100))]")
            }
        }
        func kinds(_ labels: [String: Int]) -> String {
            labels.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        let fromFiles = records.filter(\.fromFile).count
        self.problems = problems
        self.mismatches = mismatches
        self.summary = String(
            format: "HostileInput corpus: %d runs (%d inputs, %d also from files): %@; per input max %.1f ms (%@), mean %.2f ms, total %.0f ms; wall %.1f s on %d threads; %d memory/file mismatches",
            records.count, corpus.count, fromFiles, kinds(counts), slowest.ms, slowest.name,
            total / Double(max(records.count, 1)), total, ms(wall) / 1000, workers, mismatches.count)
        self.perSource = bySource.sorted { $0.key < $1.key }.map { origin, source in
            String(format: "%@: %d runs, %@; max %.1f ms, total %.0f ms", origin, source.count, kinds(source.labels), source.max, source.total)
        }
    }
}

/// Reports, on stderr and while it runs, an input that has been running for longer than the
/// limit: the test itself only learns of it once (if ever) the input returns.
/// `@unchecked Sendable`: the entries are touched only under `lock`, the flag is atomic, the rest
/// immutable.
final class Watchdog: @unchecked Sendable {
    /// An NSLock rather than Synchronization's Mutex: ThreadSanitizer sees pthread mutexes, not the
    /// futex the Mutex uses on Linux, and would report every access as a race.
    private let lock = NSLock()
    private var entries: [Int: (name: String, start: ContinuousClock.Instant, reported: Bool)] = [:]
    private let stopped = Atomic<Bool>(false)
    private let limit: Duration

    init(workers: Int, limit: Duration) {
        self.limit = limit
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: 0.5)
                let now = ContinuousClock.now
                self.lock.withLock {
                    for (worker, entry) in self.entries where !entry.reported && now - entry.start > self.limit {
                        FileHandle.standardError.write(Data("HostileInput: \(entry.name) still running after \(now - entry.start)\n".utf8))
                        self.entries[worker]?.reported = true
                    }
                }
            }
        }
        thread.start()
    }

    func begin(worker: Int, name: String) {
        lock.withLock { entries[worker] = (name, .now, false) }
    }

    func end(worker: Int) {
        _ = lock.withLock { entries.removeValue(forKey: worker) }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }
}
