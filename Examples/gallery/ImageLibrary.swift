import ExamplesShared
import Foundation

/// The folder the gallery serves: its images, found as `thumbnail` finds them in a directory,
/// and the one gate every request path goes through.
struct ImageLibrary: Sendable {
    /// The folder, every symbolic link resolved.
    let root: String

    init(root: URL) {
        self.root = DirectoryWalker.canonicalPath(root.path)
    }

    /// One image: the path the URLs use and the file behind it.
    struct Entry: Sendable, Hashable {
        /// Below the root, `/`-separated, as found (links not resolved).
        var relativePath: String
        /// The file itself, every link resolved; inside the root.
        var file: String
    }

    /// Every image below the root, sorted, hidden files and links leading out left out.
    func entries() -> [Entry] {
        var walker = DirectoryWalker(excluded: "")
        walker.walk(root, below: [])
        return walker.files.compactMap { resolve($0.joined(separator: "/")) }
    }

    /// The image a request names by its (still percent-encoded) path below the root, or nil: the
    /// path must not be absolute nor hold `.`, `..`, empty or hidden components, must name a file
    /// with an image extension, and that file, once every link is resolved, must be a regular file
    /// inside the root.
    func resolve(encodedPath: some StringProtocol) -> Entry? {
        guard let path = String(encodedPath).removingPercentEncoding else { return nil }
        return resolve(path)
    }

    func resolve(_ path: String) -> Entry? {
        guard !path.hasPrefix("/"), !path.contains("\0") else { return nil }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let name = components.last, DirectoryWalker.hasImageExtension(String(name)),
              components.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }) else { return nil }
        let file = DirectoryWalker.canonicalPath(root + "/" + path)
        guard file.hasPrefix(root + "/") else { return nil }
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Entry(relativePath: path, file: file)
    }
}
