import ArgumentParser
import Foundation

extension ParsableCommand {
    /// Parses the command line and runs the command, like `main()`, except that usage errors
    /// (argument-parser's exit code 64) exit with status 2, the tools' documented usage status.
    public static func mainMappingUsageErrors() -> Never {
        do {
            var command = try parseAsRoot()
            try command.run()
            Foundation.exit(EXIT_SUCCESS)
        } catch {
            if exitCode(for: error) == .validationFailure {
                let text = fullMessage(for: error)
                FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
