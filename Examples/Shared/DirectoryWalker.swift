import Foundation
import MagickIO

/// Walks a directory recursively, in sorted order, for image files.
public struct DirectoryWalker {
    /// The canonical path of the output directory, never walked into.
    public let excluded: String
    /// Each image file found, as path components below the root.
    public private(set) var files: [[String]] = []
    /// Directories that could not be listed.
    public private(set) var unreadable: [(path: String, error: MagickIOError)] = []

    public init(excluded: String) {
        self.excluded = excluded
    }

    public mutating func walk(_ directory: String, below components: [String]) {
        guard Self.canonicalPath(directory) != excluded else { return }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            unreadable.append((directory, MagickIOError(.io, "cannot read the directory \(directory): \(error.localizedDescription)")))
            return
        }
        for name in names where !name.hasPrefix(".") {
            let path = (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                walk(path, below: components + [name])
            case S_IFREG:
                if Self.hasImageExtension(name) { files.append(components + [name]) }
            case S_IFLNK:
                // A link to a regular file is taken; links to directories are not followed (no cycles).
                if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Self.hasImageExtension(name) {
                    files.append(components + [name])
                }
            default:
                continue
            }
        }
    }

    public static func hasImageExtension(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return Self.imageExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// The extensions a directory walk takes, lowercased.
    public static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "gif", "webp", "tif", "tiff", "heic", "heif", "avif", "bmp",
        // Image sequences (their still item is shown) and the HEIF of Canon and Sony cameras.
        "avifs", "heics", "hif",
    ]

    /// The absolute path with every symbolic link resolved, when the path exists.
    public static func canonicalPath(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let resolved = realpath(absolute, nil) else { return absolute }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
