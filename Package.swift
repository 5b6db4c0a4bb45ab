// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "MagickIO",
    products: [
        .library(name: "MagickIO", targets: ["MagickIO"]),
        .executable(name: "thumbnail", targets: ["thumbnail"]),
        .executable(name: "imageinfo", targets: ["imageinfo"]),
        // Remote images (RemoteImageLoader), on AsyncHTTPClient. Its module is empty unless the
        // `Remote` trait is enabled, and only then does SwiftPM resolve AsyncHTTPClient and its
        // stack: a package that uses MagickIO alone resolves no HTTP stack.
        .library(name: "MagickIORemote", targets: ["MagickIORemote"]),
    ],
    traits: [
        .trait(name: "Remote", description: "Builds MagickIORemote (remote images over HTTP, on AsyncHTTPClient)."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // MagickIORemote's, resolved only with the `Remote` trait: AsyncHTTPClient, and the SwiftNIO
        // packages beneath it for the address guard's SOCKS5 listener (NIOSOCKS in swift-nio-extras).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.26.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CMagickWand",
            path: "Modules/CMagickWand",
            pkgConfig: "MagickWand",
            providers: [.apt(["libmagickwand-dev"])]
        ),
        // libheif's header (libheif-dev), for HEIC/AVIF thumbnail items, which ImageMagick 6's HEIC
        // coder cannot reach. Types only: the library is opened with dlopen when first needed.
        .systemLibrary(
            name: "CHeif",
            path: "Modules/CHeif"
        ),
        .systemLibrary(
            name: "CTestCodecs",
            path: "Modules/CTestCodecs",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev", "zlib1g-dev"])]
        ),
        // MagickIO's own read paths for JPEG, PNG, WebP and TIFF thumbnails: rows straight from
        // libjpeg-turbo, libpng, libwebp and libtiff (the libraries ImageMagick reads these
        // formats with) into the resampler. C only where the libraries' setjmp error handling,
        // their incremental state or their callbacks need it; headers from libjpeg62-turbo-dev,
        // libpng-dev, libwebp-dev, libtiff-dev; zlib (zlib1g-dev) counts what metadata inflates to;
        // ISA-L (libisal-dev) inflates a PNG's image data (png_inflate.c) about twice as fast as zlib.
        // Animations (GIF and WebP in and out, one frame at a time): giflib (libgif-dev), libwebp's
        // demux and mux libraries (libwebpdemux, libwebpmux: in libwebp-dev).
        .target(
            name: "CCodecs",
            path: "Sources/CCodecs",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("webp"), .linkedLibrary("tiff"),
                             .linkedLibrary("z"), .linkedLibrary("isal"), .linkedLibrary("gif"), .linkedLibrary("webpdemux"),
                             .linkedLibrary("webpmux")]
        ),
        // The counting allocator under ImageMagick's heap (SetMagickMemoryMethods), which holds
        // each decode to its share: C because it runs on every ImageMagick allocation. And the
        // zeroed heap for libheif's decodes (heap_scrub.c: mallopt, glibc's cached chunks). libc only.
        .target(
            name: "CMagickMemory",
            path: "Sources/CMagickMemory"
        ),
        // The resampler's inner loops, built for any x86-64 and for AVX2 with FMA, the loader
        // choosing (target_clones): C because Swift cannot build one function for two processors
        // without flags that a package's users would have to accept. libc only.
        .target(
            name: "CResample",
            path: "Sources/CResample"
        ),
        // The MagickWand calls whose C API differs between ImageMagick 6 (Debian 12) and 7 (Debian
        // 13), one function each (resize, the exceptions a read leaves, the magic table, the
        // build check): C because the version is known only to the preprocessor.
        .target(
            name: "CMagickCompat",
            dependencies: ["CMagickWand"],
            path: "Sources/CMagickCompat"
        ),
        // The process side of the decode workers (Isolation): the entry a worker takes before the
        // program's main, its spawn, descriptor passing and limits. C because a constructor,
        // posix_spawn's file actions and SCM_RIGHTS messages are C's. libc only.
        .target(
            name: "CWorker",
            path: "Sources/CWorker"
        ),
        .target(
            name: "MagickIO",
            dependencies: ["CMagickWand", "CMagickCompat", "CHeif", "CCodecs", "CMagickMemory", "CResample", "CWorker"]
        ),
        .target(
            name: "MagickIORemote",
            dependencies: [
                "MagickIO",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Remote"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Remote"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Remote"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Remote"])),
                .product(name: "NIOSOCKS", package: "swift-nio-extras", condition: .when(traits: ["Remote"])),
            ]
        ),
        // The examples' shared code. The gallery example is a package of its own
        // (Examples/Package.swift, which builds this folder as ExamplesShared): every package that
        // depends on MagickIO resolves this manifest's dependencies, and Hummingbird's SwiftNIO,
        // AsyncHTTPClient and BoringSSL must not be among them.
        .target(
            name: "ExampleSupport",
            dependencies: ["MagickIO", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/Shared"
        ),
        .executableTarget(
            name: "thumbnail",
            dependencies: [
                "MagickIO",
                "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/thumbnail",
            exclude: ["make-samples.sh"],
            resources: [.copy("Samples")]
        ),
        .executableTarget(
            name: "imageinfo",
            dependencies: [
                "MagickIO",
                "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/imageinfo"
        ),
        // The stress workload, run by StressTests in a process of its own.
        .executableTarget(
            name: "StressRunner",
            dependencies: ["MagickIO"],
            path: "Tests/StressRunner"
        ),
        // The README's examples (the remote one aside: the examples package compiles it, with the
        // `Remote` trait), compiled in sync and async contexts and run by ExamplesTests.
        .executableTarget(
            name: "APIExamples",
            dependencies: ["MagickIO"],
            path: "Tests/APIExamples"
        ),
        // The cost model's calibration probe, run by CostModelTests in a process of its own.
        .executableTarget(
            name: "DecodeProbe",
            dependencies: ["MagickIO"],
            path: "Tests/DecodeProbe"
        ),
        .testTarget(
            name: "MagickIOTests",
            dependencies: ["MagickIO", "CTestCodecs"],
            exclude: ["Fixtures/make-fixtures.sh", "Fixtures/make-thumbhash-references.py"],
            resources: [.copy("Fixtures")]
        ),
        // MagickIORemote's tests are the examples package's (Examples/Package.swift), which builds
        // MagickIO with the `Remote` trait and the HTTP stack once for them and the gallery.
    ]
)
