#if Remote
import Foundation
import NIOCore
import NIOPosix
import NIOSOCKS
import Synchronization

/// The address guard: a SOCKS5 listener on loopback, private to one loader, through which its
/// `HTTPClient` makes every connection.
///
/// The SSRF check has to be made on the address actually connected, or a name that resolves to a
/// public address when checked and to 127.0.0.1 when connected (DNS rebinding), or a redirect to
/// such a name, gets past it. AsyncHTTPClient 1.x resolves names itself (`getaddrinfo` in its
/// connection factory) and offers no resolver or channel-initializer hook; its `dnsOverride` is
/// fixed per client, and connecting to an IP literal with a `Host` header would send HTTPS without
/// SNI and check the certificate against the address. What it does offer is a SOCKS proxy
/// (`HTTPClient.Configuration.Proxy.socksServer`), to which it hands the name and port
/// unresolved: so the gate resolves the name, refuses when ``AddressPolicy`` refuses any of its
/// addresses, connects to a checked address and splices the bytes. TLS runs end to end through
/// the splice, with the name as SNI and certificate host, and every hop of a redirect is a new
/// request, so a new check. The listener accepts only from loopback; what it connects to passes
/// the same policy as everything the loader fetches.
final class AddressGate: Sendable {
    let port: Int
    private let channel: Channel
    private let refusals: Refusals

    init(policy: AddressPolicy, connectTimeout: Duration, group: EventLoopGroup) async throws {
        let refusals = Refusals()
        self.refusals = refusals
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(SOCKSServerHandshakeHandler())
                    try child.pipeline.syncOperations.addHandler(
                        GateHandler(policy: policy, connectTimeout: connectTimeout, refusals: refusals))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Why the last connection to `host:port` since `start` was refused, if it was: the loader
    /// turns AsyncHTTPClient's SOCKS failure into `MagickIOError/Kind/sourceNotAllowed` with it.
    func refusal(host: String, port: Int, since start: ContinuousClock.Instant) -> String? {
        refusals.reason(host: host, port: port, since: start)
    }

    func close() async {
        try? await channel.close()
    }

    /// Why `host` would be refused, judged before the request is made: AsyncHTTPClient retries a
    /// connection the gate refused until its connect timeout, so a source refused here fails at
    /// once. The gate still checks the address it connects to (a name may resolve differently
    /// by then).
    static func precheck(_ host: String, port: Int, policy: AddressPolicy) async -> String? {
        if let literal = try? SocketAddress(ipAddress: host, port: port) {
            return policy.refusal(literal)
        }
        let addresses = try? await NIOThreadPool.singleton.runIfActive {
            try GateHandler.resolve(host, port: port)
        }
        guard let addresses, !addresses.isEmpty else { return nil }  // the request fails on its own
        return addresses.lazy.compactMap(policy.refusal).first.map { "\(host) resolves to \($0)" }
    }
}

/// The gate's recent refusals, by `host:port`, for the error messages.
private final class Refusals: Sendable {
    private let log: Mutex<[String: (reason: String, at: ContinuousClock.Instant)]> = Mutex([:])

    func record(_ reason: String, host: String, port: Int) {
        log.withLock { log in
            if log.count > 1024 { log.removeAll() }
            log["\(host):\(port)"] = (reason, .now)
        }
    }

    func reason(host: String, port: Int, since start: ContinuousClock.Instant) -> String? {
        log.withLock { log in
            log["\(host):\(port)"].flatMap { $0.at >= start ? $0.reason : nil }
        }
    }
}

/// One SOCKS5 connection: the greeting, one CONNECT request, the guard, then the splice.
private final class GateHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ClientMessage
    typealias OutboundOut = ServerMessage

    let policy: AddressPolicy
    let connectTimeout: Duration
    let refusals: Refusals

    init(policy: AddressPolicy, connectTimeout: Duration, refusals: Refusals) {
        self.policy = policy
        self.connectTimeout = connectTimeout
        self.refusals = refusals
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .greeting:
            context.writeAndFlush(wrapOutboundOut(.selectedAuthenticationMethod(.init(method: .noneRequired))), promise: nil)
        case .request(let request) where request.command == .connect:
            connect(request.addressType, context: context)
        case .request, .authenticationData:
            reply(.commandUnsupported, context: context)
        }
    }

    /// Leaves before the channel's handlers are removed: the SOCKS handler, removed after it,
    /// hands on what it had buffered as bytes, which this handler (reading `ClientMessage`s)
    /// must not receive.
    func channelInactive(context: ChannelHandlerContext) {
        context.fireChannelInactive()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func connect(_ target: SOCKSAddress, context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let (host, port): (String, Int) = switch target {
        case .address(let address): (address.ipAddress ?? "", address.port ?? 0)
        case .domain(let name, let port): (name, port)
        }
        let resolved: EventLoopFuture<[SocketAddress]> = switch target {
        case .address(let address): loop.makeSucceededFuture([address])
        case .domain(let name, let port): NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
            try Self.resolve(name, port: port)
        }
        }
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        resolved.flatMap { [policy, connectTimeout] addresses -> EventLoopFuture<Channel> in
            // Every address the name has must pass, not only the one tried first: a name with one
            // public and one private address is refused.
            if let refused = addresses.lazy.compactMap(policy.refusal).first {
                return loop.makeFailedFuture(GateRefusal(reason: addresses.count > 1 || host != addresses.first?.ipAddress
                    ? "\(host) resolves to \(refused)" : refused))
            }
            guard !addresses.isEmpty else { return loop.makeFailedFuture(GateFailure.noAddress) }
            return Self.connectFirst(addresses, loop: loop, timeout: connectTimeout)
        }.whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .success(let outbound):
                handler.splice(context, with: outbound)
            case .failure(let error as GateRefusal):
                handler.refusals.record(error.reason, host: host, port: port)
                handler.reply(.notAllowed, context: context)
            case .failure:
                handler.reply(.hostUnreachable, context: context)
            }
        }
    }

    /// Tries each checked address in turn (all have passed the policy).
    private static func connectFirst(_ addresses: [SocketAddress], loop: EventLoop, timeout: Duration) -> EventLoopFuture<Channel> {
        let attempt = ClientBootstrap(group: loop)
            .connectTimeout(TimeAmount(timeout))
            .channelOption(.autoRead, value: false)
            .connect(to: addresses[0])
        let remaining = Array(addresses.dropFirst())
        guard !remaining.isEmpty else { return attempt }
        return attempt.flatMapError { _ in connectFirst(remaining, loop: loop, timeout: timeout) }
    }

    /// The name's addresses, as `getaddrinfo` gives them (TCP only).
    static func resolve(_ name: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, String(port), &hints, &list) == 0, let list else { throw GateFailure.noAddress }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let info = entry?.pointee {
            switch info.ai_family {
            case AF_INET: info.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                addresses.append(SocketAddress($0.pointee, host: name))
            }
            case AF_INET6: info.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                addresses.append(SocketAddress($0.pointee, host: name))
            }
            default: break
            }
            entry = info.ai_next
        }
        return addresses
    }

    private func reply(_ reply: SOCKSServerReply, context: ChannelHandlerContext) {
        let none = SOCKSAddress.address(try! SocketAddress(ipAddress: "0.0.0.0", port: 0))
        context.writeAndFlush(wrapOutboundOut(.response(SOCKSResponse(reply: reply, boundAddress: none)))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// Answers success, takes the SOCKS handlers out and joins the two connections.
    private func splice(_ context: ChannelHandlerContext, with outbound: Channel) {
        let inbound = context.channel
        let bound = SOCKSAddress.address(outbound.localAddress ?? (try! SocketAddress(ipAddress: "0.0.0.0", port: 0)))
        context.writeAndFlush(wrapOutboundOut(.response(SOCKSResponse(reply: .succeeded, boundAddress: bound))), promise: nil)
        let (toOutbound, toInbound) = GlueHandler.pair()
        do {
            try inbound.pipeline.syncOperations.addHandler(toOutbound)
            try outbound.pipeline.syncOperations.addHandler(toInbound)
        } catch {
            inbound.close(promise: nil)
            outbound.close(promise: nil)
            return
        }
        let handshake = try? inbound.pipeline.syncOperations.handler(type: SOCKSServerHandshakeHandler.self)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        if let handshake { inbound.pipeline.syncOperations.removeHandler(handshake, promise: nil) }
        outbound.setOption(.autoRead, value: true).whenComplete { _ in }
    }
}

private struct GateRefusal: Error {
    var reason: String
}

private enum GateFailure: Error {
    case noAddress
}
#endif
