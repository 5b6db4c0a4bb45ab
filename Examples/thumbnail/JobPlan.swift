import ExampleSupport
import Foundation
import MagickIO

/// One INPUT from the command line (or the bundled samples folder): a file or a directory.
struct InputArgument {
    var path: String
}

/// One input file and where its thumbnail goes, decided before any work starts.
struct Job: Sendable {
    /// The input file as the user would spell it: the argument itself, or the directory argument
    /// joined with the path below it.
    var input: String
    /// The output path: DIR joined with the relative path, its extension replaced.
    var output: String
    /// A problem found while planning (an unreadable directory, an output folder that cannot be
    /// made); the job fails with it without being tried.
    var plannedError: MagickIOError?
}

/// Every job of a run, with unique output paths, in input order.
struct JobPlan {
    var jobs: [Job]

    static func make(arguments: [InputArgument], outputDirectory: String, fileExtension: String) -> JobPlan {
        let excluded = DirectoryWalker.canonicalPath(outputDirectory)
        // (input, path below the output directory without extension, planning error)
        var found: [(input: String, relative: String, error: MagickIOError?)] = []
        for argument in arguments {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument.path, isDirectory: &isDirectory), isDirectory.boolValue {
                var walker = DirectoryWalker(excluded: excluded)
                walker.walk(argument.path, below: [])
                for file in walker.files {
                    found.append((join(argument.path, file), withoutExtension(file.joined(separator: "/")), nil))
                }
                for unreadable in walker.unreadable {
                    found.append((unreadable.path, "", unreadable.error))
                }
            } else {
                // A file argument is always tried, whatever its extension, even if it is missing.
                let name = URL(fileURLWithPath: argument.path).lastPathComponent
                found.append((argument.path, withoutExtension(name), nil))
            }
        }

        // Decide the names in input order. Inputs are taken too, so that an output directory that
        // overlaps the inputs never overwrites an original.
        var taken = Set<String>()
        for item in found where item.error == nil {
            taken.insert(absolutePath(item.input))
            taken.insert(DirectoryWalker.canonicalPath(item.input))
        }
        var jobs: [Job] = []
        for item in found {
            if let error = item.error {
                jobs.append(Job(input: item.input, output: "", plannedError: error))
                continue
            }
            var relative = item.relative + "." + fileExtension
            var counter = 2
            while taken.contains(absolutePath(join(outputDirectory, [relative]))) {
                relative = item.relative + "-\(counter)." + fileExtension
                counter += 1
            }
            let output = join(outputDirectory, [relative])
            taken.insert(absolutePath(output))
            jobs.append(Job(input: item.input, output: output, plannedError: nil))
        }

        // Make the folders the thumbnails go into now, one at a time, rather than racing in the jobs.
        var folderErrors: [String: MagickIOError] = [:]
        for folder in Set(jobs.filter { $0.plannedError == nil }.map { parent(of: $0.output) }).sorted() {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                folderErrors[folder] = MagickIOError(.io, "cannot create \(folder): \(error.localizedDescription)")
            }
        }
        for index in jobs.indices where jobs[index].plannedError == nil {
            jobs[index].plannedError = folderErrors[parent(of: jobs[index].output)]
        }
        return JobPlan(jobs: jobs)
    }

    // MARK: Paths

    static func join(_ base: String, _ components: [String]) -> String {
        ([base.hasSuffix("/") ? String(base.dropLast()) : base] + components).joined(separator: "/")
    }

    static func withoutExtension(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path }
        return String(path.dropLast(name.distance(from: dot, to: name.endIndex)))
    }

    static func parent(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    /// The absolute path with `.` and `..` removed; symbolic links kept.
    static func absolutePath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
