import Hummingbird
import NIOCore

/// The request context: Hummingbird's, plus the connection, whose input a refusal closes (see
/// ``GalleryError/closesConnection``).
struct GalleryContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's connection (a testing channel under `HummingbirdTesting`'s router framework).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

extension Request {
    /// Runs `job`, cancelled as soon as the client closes the connection: Hummingbird reads the
    /// connection's input meanwhile (`consumeWithCancellationOnInboundClose`) and closes the
    /// connection once the answer is written, so only work worth cancelling goes through here.
    func cancellingOnDisconnect<T: Sendable>(_ job: @escaping @Sendable () async throws -> T) async throws -> T {
        try await body.consumeWithCancellationOnInboundClose { _ in try await job() }
    }
}
