import ArgumentParser
import ExampleSupport
import Foundation
import MagickIO

struct ImageInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imageinfo",
        abstract: "Prints image properties read from the header, without decoding pixels.",
        discussion: """
            The format comes from the content, never from the file name. Sizes are given as \
            stored and as a viewer shows them (after the EXIF orientation).

            Exit status: 0 when every file was read, 1 when some failed, 2 for bad usage.
            """
    )

    @Argument(help: ArgumentHelp("Image files.", valueName: "FILE"))
    var files: [String]

    @Flag(name: .long, help: "Print one JSON object per file on stdout, one line each.")
    var json = false

    @Flag(name: .long, help: "Also give the dominant colour (#rrggbb), from a 64-pixel thumbnail of the picture.")
    var colors = false

    @OptionGroup(title: "Decoding limits")
    var decoding: DecodingFlags

    func run() throws {
        var failed = 0
        for (index, file) in files.enumerated() {
            do {
                let info = try FileInfo(path: file, options: decoding.options, colors: colors)
                if json {
                    writeOutput(info.jsonLine)
                } else {
                    writeOutput((index > 0 ? "\n" : "") + info.textBlock)
                }
            } catch let error as MagickIOError {
                failed += 1
                if json {
                    writeOutput(JSONLine.line([
                        ("input", .string(file)),
                        ("error", .object([("kind", .string(error.kind.rawValue)), ("message", .string(error.message))])),
                    ]))
                } else {
                    FileHandle.standardError.write(Data("imageinfo: \(file): \(error.kind.rawValue): \(error.message)\n".utf8))
                }
            }
        }
        if failed > 0 {
            throw ExitCode(1)
        }
    }

    /// Writes straight to the file descriptor, so each line is out as soon as it is known.
    private func writeOutput(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }
}
