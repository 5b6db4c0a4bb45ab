// swift-tools-version: 6.0
// The benchmark lives in its own package so that `swift test` of MagickIO never builds or runs it.
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which is whatever the clone is called.
let magickIOPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "MagickIOBenchmarks",
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "inprocess",
            dependencies: [.product(name: "MagickIO", package: magickIOPackage)],
            path: "Sources/inprocess"
        ),
        // `stages` times the pipeline's steps with knobs MagickIO hides: it imports MagickIO's own
        // C module (CMagickWand, which SwiftPM makes visible to a package's clients) and MagickIO's
        // resampler through its Benchmarks SPI.
        .executableTarget(
            name: "stages",
            dependencies: [.product(name: "MagickIO", package: magickIOPackage)],
            path: "Sources/stages"
        ),
        .executableTarget(
            name: "smartcrop",
            dependencies: [.product(name: "MagickIO", package: magickIOPackage)],
            path: "Sources/smartcrop"
        ),
        // The JPEG floor in process: libjpeg-turbo alone (C, libjpeg62-turbo-dev), on N threads.
        .executableTarget(
            name: "jpegfloor",
            path: "Sources/jpegfloor",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("pthread")]
        ),
        .executableTarget(
            name: "wandreuse",
            dependencies: [.product(name: "MagickIO", package: magickIOPackage)],
            path: "Sources/wandreuse"
        ),
    ]
)
