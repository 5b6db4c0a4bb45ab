import ArgumentParser
import MagickIO

/// What `--strictness` takes: how much damage a decode may show (``Strictness``).
public enum StrictnessChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case refuseDamage = "refuse-damage"
    case refuseWarnings = "refuse-warnings"
    case acceptPartial = "accept-partial"

    /// The library's ``Strictness`` of the same name.
    public var strictness: Strictness {
        switch self {
        case .refuseDamage: .refuseDamage
        case .refuseWarnings: .refuseWarnings
        case .acceptPartial: .acceptPartial
        }
    }
}

/// The decoding limits the tools share (`--memory-budget`, `--strictness`, `--time-limit`, `--isolation`),
/// mapped to ``DecodingOptions``. argument-parser prints each default after its help.
public struct DecodingFlags: ParsableArguments, Sendable {
    @Option(name: .customLong("memory-budget"),
            help: ArgumentHelp("The most memory the decodes under way may take together, in MiB (one decode may take "
                               + "all of it; others wait for room); a file that alone would need more is refused.",
                               valueName: "MIB"))
    public var memoryBudget = 256

    @Option(help: ArgumentHelp("What a damaged file gives: refuse-damage (an error when pixels are lost), "
                               + "refuse-warnings (an error on any decoder warning), accept-partial (what could be decoded).",
                               valueName: "refuse-damage|refuse-warnings|accept-partial"))
    public var strictness: StrictnessChoice = .refuseDamage

    @Option(name: .customLong("time-limit"),
            help: ArgumentHelp("The most time one file may take, in seconds (0: no limit).", valueName: "SECONDS"))
    public var timeLimit: Double = 10

    @Option(help: ArgumentHelp("Where files are decoded: process (in worker processes the kernel holds to the memory "
                               + "budget and the time limit; a decoder that crashes or runs away costs a worker, never "
                               + "this program) or in-process (for trusted files).", valueName: "process|in-process"))
    public var isolation: IsolationChoice = .process

    public init() {}

    public func validate() throws {
        guard memoryBudget >= 1, memoryBudget <= 1 << 30 else {
            throw ValidationError("--memory-budget must be in 1...\(1 << 30) MiB (got \(memoryBudget)).")
        }
        guard timeLimit.isFinite, timeLimit >= 0, timeLimit <= 86_400 else {
            throw ValidationError("--time-limit must be 0 (no limit) to 86400 seconds (got \(timeLimit)).")
        }
    }

    /// The options a source is opened with.
    public var options: DecodingOptions {
        var options = DecodingOptions(memoryBudget: memoryBudget << 20,
                                      timeLimit: timeLimit > 0 ? .milliseconds(Int64((timeLimit * 1000).rounded(.up))) : nil,
                                      strictness: strictness.strictness)
        options.isolation = isolation == .process ? .process : .inProcess
        return options
    }
}

/// `--isolation`'s values.
public enum IsolationChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case process
    case inProcess = "in-process"
}
