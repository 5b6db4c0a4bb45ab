// swift-tools-version: 6.0
// The libFuzzer target lives in its own package so that `swift build`/`swift test` of MagickIO never
// build it: it needs sanitizer flags on the command line (see run.sh), and unsafeFlags are not
// allowed in the main manifest.
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which is whatever the clone is called.
let magickIOPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "MagickIOFuzz",
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // Only a header: the symbol comes from the toolchain's libFuzzer.
        .systemLibrary(name: "CLibFuzzer", path: "Modules/CLibFuzzer"),
        .executableTarget(
            name: "MagickIOFuzz",
            dependencies: ["CLibFuzzer", .product(name: "MagickIO", package: magickIOPackage)],
            path: "Sources/MagickIOFuzz"
        ),
    ]
)
