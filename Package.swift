// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "MagickIO",
    products: [
        .library(name: "MagickIO", targets: ["MagickIO"]),
        .executable(name: "thumbnail", targets: ["thumbnail"]),
        .executable(name: "imageinfo", targets: ["imageinfo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CMagickWand",
            path: "Modules/CMagickWand",
            pkgConfig: "MagickWand",
            providers: [.apt(["libmagickwand-dev"])]
        ),
        .target(
            name: "MagickIO",
            dependencies: ["CMagickWand"]
        ),
        .executableTarget(
            name: "thumbnail",
            dependencies: [
                "MagickIO",
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
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/imageinfo"
        ),
        .testTarget(
            name: "MagickIOTests",
            dependencies: ["MagickIO"],
            exclude: ["Fixtures/make-fixtures.sh"],
            resources: [.copy("Fixtures")]
        ),
    ]
)
