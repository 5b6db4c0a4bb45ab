import ArgumentParser
import Foundation

/// Runs the examples' commands.
public enum CommandLineTool {
    /// Parses the command line and runs `command`, like argument-parser's `main()`, except that
    /// usage errors (argument-parser's exit code 64) exit with status 2, the tools' documented
    /// usage status.
    public static func run(_ command: any ParsableCommand.Type) async -> Never {
        do {
            var parsed = try command.parseAsRoot()
            if var asynchronous = parsed as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try parsed.run()
            }
            Foundation.exit(EXIT_SUCCESS)
        } catch {
            if command.exitCode(for: error) == .validationFailure {
                let text = command.fullMessage(for: error)
                FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
                Foundation.exit(2)
            }
            command.exit(withError: error)
        }
    }
}
