// The README's and the Getting Started article's examples, verbatim (ExamplesTests checks that
// every Swift block of both is here, but the remote one, below), compiled in the contexts the
// README names and run by ExamplesTests in a folder holding a `photo.jpg`: `APIExamples`. Top-level code with an `await` and a `catch let error as
// MagickIOError` in it is also the pattern that crashed swift-frontend 6.3.1 while MagickIO's
// functions used typed throws: building this target is the regression test.
import Foundation
import MagickIO

// The README's remote example is compiled with MagickIORemote's tests, in the examples package
// (Examples/Tests/MagickIORemoteTests/ReadmeExample.swift), which builds the `Remote` trait.

/// Where the Thumbnailer example writes a result.
func output(for input: URL) -> URL {
    URL(fileURLWithPath: "many-" + input.deletingPathExtension().lastPathComponent + ".png")
}

func asyncExample() async throws {
    let source = try ImageSource(url: URL(fileURLWithPath: "photo.jpg"))  // reads the header only
    print(source.format, source.count)                  // jpeg 1 — from the content, never the name
    let p = try source.properties(at: 0)                // no pixels decoded
    print(p.pixelWidth, p.pixelHeight, p.orientation)   // 4032 3024 right
    print(p.orientedWidth, p.orientedHeight)            // 3024 4032, as a viewer shows it
    let thumb = try await source.thumbnail(maxPixelSize: 256)  // upright, sRGB, 8-bit, metadata stripped
    try await thumb.write(to: URL(fileURLWithPath: "t.jpg"), as: .jpeg(quality: 85))
    let upright = try await source.image(at: 0).orientedCopy()  // full decode, pixels turned, metadata kept
    print("async", thumb.width, thumb.height, upright.orientation)
}

func syncExample(_ source: ImageSource) throws {
    let thumb = try source.thumbnail(maxPixelSize: 256)
    try thumb.write(to: URL(fileURLWithPath: "t.jpg"), as: .jpeg(quality: 85))
    print("sync", thumb.width, thumb.height)
}

func thumbnailerExample(_ urls: [URL]) async throws {
    for await result in Thumbnailer(maxConcurrentJobs: 2).thumbnails(of: urls, maxPixelSize: 256) {
        switch result.result {
        case .success(let image): try await image.write(to: output(for: result.input), as: .png)
        case .failure(let error): print(result.input.path, error.localizedDescription)
        }
    }
}

func sharedThumbnailerExample(_ upload: URL) async throws {
    let thumbnailer = Thumbnailer(maxConcurrentJobs: 2, memoryBudget: 512 << 20)  // one, long-lived
    let image = try await thumbnailer.thumbnail(of: upload, maxPixelSize: 256)     // in each handler
    print("shared", image.width, image.height)
}

// The Getting Started article's examples (Sources/MagickIO/MagickIO.docc/GettingStarted.md).
func gettingStartedAsync() async throws {
    let source = try ImageSource(url: URL(fileURLWithPath: "photo.jpg"))  // reads the header only
    let thumb = try await source.thumbnail(maxPixelSize: 256)            // in an async context
    try await thumb.write(to: URL(fileURLWithPath: "photo-256.jpg"), as: .jpeg(quality: 85))
    print(thumb.width, thumb.height)   // 256 171 for a 3000x2000 photo
}

func gettingStartedSync(_ source: ImageSource, upload: URL, output: URL) throws {
    let quick = try source.thumbnail(maxPixelSize: 160, options: ThumbnailOptions(embedded: .ifAbsent))

    let avatar = try source.thumbnail(size: ImageSize(width: 200, height: 200), mode: .fill)  // cropped at .center
    let banner = try source.thumbnail(size: ImageSize(width: 1200, height: 0))                // height free

    print(source.format, source.count)                 // jpeg 1: from the content, never the name
    let p = try source.properties(at: 0)
    print(p.pixelWidth, p.pixelHeight, p.orientation)  // 4032 3024 right: as stored
    print(p.orientedWidth, p.orientedHeight)           // 3024 4032: as a viewer shows it
    print(p.hasAlpha, p.colorSpace, p.bitDepth)        // false srgb 8
    print(p.exif["DateTimeOriginal"] ?? "-")

    let upright = try source.image(at: 0).orientedCopy()
    let buffer = try upright.pixels(.rgba8)            // straight alpha, rows packed, top row first

    let jpeg = try upright.encoded(as: .jpeg(quality: 85), metadata: .keepAllButGPS)  // no location
    if EncodingFormat.avif(quality: 60).isAvailable {
        try upright.write(to: URL(fileURLWithPath: "photo.avif"), as: .avif(quality: 60))
    }

    do {
        let thumb = try ImageSource(url: upload).thumbnail(maxPixelSize: 256)
        try thumb.write(to: output, as: .jpeg(quality: 85))
    } catch let error as MagickIOError {
        switch error.kind {
        case .unsupportedFormat, .formatNotAllowed: print("not an image we take")
        case .limitExceeded: print("too large:", error.limit?.name ?? "", error.limit?.requested ?? 0)
        default: print(error)   // "corruptImage: … [CorruptImageError]"
        }
    }
    print("getting started", avatar.width, banner.width, quick.width, buffer.width, jpeg.isEmpty)
}

// Top level: an await, then the pattern that crashed the compiler.
try await asyncExample()
try syncExample(try ImageSource(url: URL(fileURLWithPath: "photo.jpg")))
try await thumbnailerExample([URL(fileURLWithPath: "photo.jpg"), URL(fileURLWithPath: "missing.jpg")])
try await sharedThumbnailerExample(URL(fileURLWithPath: "photo.jpg"))
try await gettingStartedAsync()
try gettingStartedSync(try ImageSource(url: URL(fileURLWithPath: "photo.jpg")), upload: URL(fileURLWithPath: "photo.jpg"),
                       output: URL(fileURLWithPath: "upload-256.jpg"))
do {
    _ = try ImageSource(data: Data("not an image".utf8))
} catch let error as MagickIOError {
    print("caught", error.kind, "-", error.localizedDescription)
}
