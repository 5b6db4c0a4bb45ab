import ExampleSupport
import Foundation
import MagickIO

/// What became of one job.
enum Outcome: Sendable {
    /// `crop`: the window a fill cut, in the source's pixels; `frames`: above 1 for an animated thumbnail.
    case done(width: Int, height: Int, crop: ImageRect? = nil, frames: Int = 1)
    case failed(MagickIOError)
}

/// Everything the run prints: JSON lines on stdout, failures, the progress bar and the summary
/// on stderr. One lock keeps lines whole and in order.
/// `@unchecked Sendable`: the counters are touched only under `lock`; the rest is immutable.
final class Reporter: @unchecked Sendable {
    private let total: Int
    private let json: Bool
    private let showsProgress: Bool
    private let lock = NSLock()
    private var doneCount = 0
    private var failedCount = 0

    init(total: Int, json: Bool, showsProgress: Bool) {
        self.total = total
        self.json = json
        self.showsProgress = showsProgress && total > 0
        if self.showsProgress {
            writeError(progressBar())
        }
    }

    func report(_ job: Job, outcome: Outcome) {
        lock.withLock {
            switch outcome {
            case .done(let width, let height, let crop, let frames):
                doneCount += 1
                if json {
                    var members: [(String, JSONLine)] = [
                        ("input", .string(job.input)),
                        ("output", .string(job.output)),
                        ("width", .int(width)),
                        ("height", .int(height)),
                    ]
                    if let crop {
                        members.append(("crop", .object([("x", .int(crop.x)), ("y", .int(crop.y)),
                                                         ("width", .int(crop.width)), ("height", .int(crop.height))])))
                    }
                    if frames > 1 { members.append(("frames", .int(frames))) }
                    writeOutput(JSONLine.line(members))
                }
            case .failed(let error):
                failedCount += 1
                if json {
                    writeOutput(JSONLine.line([
                        ("input", .string(job.input)),
                        ("error", .object([("kind", .string(error.kind.rawValue)), ("message", .string(error.message))])),
                    ]))
                } else {
                    writeError(clearLine + "thumbnail: \(job.input): \(error.kind.rawValue): \(error.message)\n")
                }
            }
            if showsProgress {
                writeError(progressBar())
            }
        }
    }

    /// Prints the summary line and returns the number of failed inputs.
    func finish(elapsed: Duration, outputDirectory: String) -> Int {
        lock.withLock {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            let directory = outputDirectory.hasSuffix("/") ? outputDirectory : outputDirectory + "/"
            let images = total == 1 ? "1 image" : "\(total) images"
            let summary = "thumbnail: \(images), \(doneCount) done, \(failedCount) failed in "
                + String(format: "%.2f", seconds) + " s -> \(directory)\n"
            writeError(clearLine + summary)
            return failedCount
        }
    }

    // MARK: Output

    private var clearLine: String { showsProgress ? "\r\u{1B}[K" : "" }

    private func progressBar() -> String {
        let finished = doneCount + failedCount
        let width = 30
        let filled = total == 0 ? width : finished * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let failures = failedCount > 0 ? ", \(failedCount) failed" : ""
        return "\r[\(bar)] \(finished)/\(total)\(failures)"
    }

    /// Writes straight to the file descriptor (no buffering), so each line is out when written.
    private func writeOutput(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
