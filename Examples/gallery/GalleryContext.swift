import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The request context: Hummingbird's, plus the client's connection, whose input a refusal
/// closes (see ``GalleryError/closesConnection``) and whose hang-up cancels a job.
struct GalleryContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's connection (a testing channel under `HummingbirdTesting`'s router framework).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Runs `job`, cancelling it as soon as the client has gone (checked every 50 ms through the
    /// connection's ``HangUpWatcher``; a connection without one, a test's, is not watched).
    func cancellingOnDisconnect<T: Sendable>(_ job: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let watcher = try? await channel.pipeline.handler(type: HangUpWatcher.self).get() else {
            return try await job()
        }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await job() }
            group.addTask {
                while !watcher.clientLeft {
                    try await Task.sleep(for: .milliseconds(50))
                }
                return nil
            }
            while let result = try await group.next() {
                group.cancelAll()
                if let result { return result }
                // The client left: the job ends with its cancellation error, thrown by next().
            }
            throw CancellationError()
        }
    }
}

extension GalleryContext {
    /// Answers `Expect: 100-continue` with `100 Continue`, for a route about to read the body:
    /// a client that sent it (curl does, for bodies over 1 MB) waits for it, or a second, before
    /// sending the body. Written from the ``HangUpWatcher``'s place in the pipeline, so that it
    /// passes only the HTTP encoders (which know an interim answer), not Hummingbird's
    /// connection state, which would take it for the response.
    func continueIfExpected(_ request: Request) async {
        guard request.headers[.expect]?.lowercased() == "100-continue", request.method == .post || request.method == .put else {
            return
        }
        let channel = channel
        try? await channel.eventLoop.submit {
            let context = try channel.pipeline.syncOperations.context(handlerType: HangUpWatcher.self)
            context.writeAndFlush(NIOAny(HTTPResponsePart.head(HTTPResponse(status: .continue))), promise: nil)
        }.get()
    }
}

/// Sees the client close its side of the connection. Hummingbird allows half-closure, so such a
/// connection stays active, and Hummingbird reads its input only between requests: this handler,
/// in the pipeline after HTTP decoding, notes the input's end when it happens.
/// `@unchecked Sendable`: its one flag is touched only under `lock`.
final class HangUpWatcher: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = NIOAny
    private let lock = NSLock()
    private var left = false

    /// Whether the client has closed its side, or the connection is gone.
    var clientLeft: Bool {
        lock.withLock { left }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            lock.withLock { left = true }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        lock.withLock { left = true }
        context.fireChannelInactive()
    }
}
