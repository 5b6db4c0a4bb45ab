import Foundation
import MagickIO
import MagickIORemote

/// The README's remote example as written (the root package's ExamplesTests checks that it stands
/// here): compiled, not run, as it needs a server to fetch from (the other tests run the loader).
func remoteExample(url: URL) async throws {
    var configuration = RemoteImageLoader.Configuration()
    configuration.allowedSources = ["https://images.example.com/"]
    let loader = RemoteImageLoader(configuration: configuration)        // one, long-lived, shared
    let thumb = try await loader.thumbnail(of: url, maxPixelSize: 256)  // coalesced, cached
    try await loader.shutdown()                                         // when the service stops
    _ = thumb
}
