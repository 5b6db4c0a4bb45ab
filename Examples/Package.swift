// swift-tools-version: 6.1
// The gallery example, MagickIO in a Hummingbird 2 service, and its tests (and MagickIORemote's),
// in a package of their own: Hummingbird brings SwiftNIO, AsyncHTTPClient and BoringSSL, which a
// package that depends on the MagickIO library must not resolve. Run from the repository's root:
// `swift run --package-path Examples -c release gallery`. The `thumbnail` and `imageinfo` examples
// beside it belong to the root package (the README's `swift run -c release thumbnail`).
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which is whatever the clone is called.
let magickIOPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "MagickIOExamples",
    products: [
        .executable(name: "gallery", targets: ["gallery"]),
    ],
    dependencies: [
        // With the `Remote` trait: the proxy route loads its sources through MagickIORemote. The
        // root package's default traits stay empty, so a package that uses MagickIO alone still
        // resolves no HTTP stack.
        .package(path: "..", traits: ["Remote"]),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        // The proxy's URL signatures (HMAC-SHA256), its /metrics (Prometheus text through
        // swift-metrics) and its log lines (swift-log, Hummingbird's own logger).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        // MagickIORemote's tests run their origin on SwiftNIO (already in the graph: AsyncHTTPClient's).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        // MagickIORemote's documentation is built here, where the module is built with its trait:
        // `swift package --package-path Examples generate-documentation --target MagickIORemote`.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // The examples' shared code (Shared/), which the root package builds as ExampleSupport for
        // `thumbnail` and `imageinfo`: one folder, two module names, because a target name must be
        // unique across a package graph, and this one holds the root package.
        .target(
            name: "ExamplesShared",
            dependencies: [
                .product(name: "MagickIO", package: magickIOPackage),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Shared"
        ),
        // MagickIO in a web service: the samples (or DIR) as a page, thumbnails on demand, uploads.
        .executableTarget(
            name: "gallery",
            dependencies: [
                "ExamplesShared",
                .product(name: "MagickIO", package: magickIOPackage),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "MagickIORemote", package: magickIOPackage),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "gallery"
        ),
        // The routes in process (HummingbirdTesting's live framework) and over raw sockets; the
        // fixtures are MagickIOTests', read where they lie. The proxy's tests sign their URLs with
        // swift-crypto on their own, apart from the gallery's check.
        .testTarget(
            name: "GalleryTests",
            dependencies: [
                "gallery",
                .product(name: "MagickIO", package: magickIOPackage),
                .product(name: "MagickIORemote", package: magickIOPackage),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/GalleryTests"
        ),
        // MagickIORemote's own tests, against an origin of their own on loopback (Support/), and
        // the README's remote example compiled: here rather than in the root package, because this
        // package builds MagickIO with the `Remote` trait and the HTTP stack anyway, once for both.
        .testTarget(
            name: "MagickIORemoteTests",
            dependencies: [
                .product(name: "MagickIO", package: magickIOPackage),
                .product(name: "MagickIORemote", package: magickIOPackage),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/MagickIORemoteTests"
        ),
    ]
)
