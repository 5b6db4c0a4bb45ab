import Foundation
import MagickIO
import NIOCore
import Testing
@testable import MagickIORemote

@Suite("Remote: the address guard refuses loopback, private, link-local, multicast and unspecified addresses")
struct AddressGuardTests {
    static let refusedByDefault = [
        "127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1", "::127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255",
        "192.168.1.1", "100.64.0.1", "fc00::1", "fd12:3456::1", "::ffff:10.0.0.1", "::ffff:192.168.0.1",
        "169.254.169.254", "fe80::1", "::ffff:169.254.169.254", "224.0.0.1", "255.255.255.255", "ff02::1",
        "0.0.0.0", "0.1.2.3", "::", "::ffff:0.0.0.0", "::ffff:224.0.0.1",
    ]
    static let alwaysRefused = ["0.0.0.0", "::", "::ffff:0.0.0.0", "224.0.0.1", "ff02::1", "239.255.255.250", "::ffff:224.0.0.1"]
    static let allowed = ["8.8.8.8", "172.32.0.1", "100.128.0.1", "192.169.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8"]

    private func address(_ text: String) throws -> SocketAddress {
        try SocketAddress(ipAddress: text, port: 80)
    }

    @Test("by default every special-purpose address is refused, IPv4-mapped and -compatible forms included", arguments: refusedByDefault)
    func refusedWithTheDefaults(_ text: String) throws {
        let policy = AddressPolicy(RemoteImageLoader.Configuration())
        #expect(policy.refusal(try address(text)) != nil, "\(text)")
    }

    @Test("multicast and unspecified addresses are refused whatever the opt-ins", arguments: alwaysRefused)
    func refusedWhateverTheOptIns(_ text: String) throws {
        var configuration = RemoteImageLoader.Configuration()
        configuration.allowLoopback = true
        configuration.allowPrivateNetworks = true
        configuration.allowLinkLocal = true
        #expect(AddressPolicy(configuration).refusal(try address(text)) != nil, "\(text)")
    }

    @Test("public addresses pass", arguments: allowed)
    func publicAddresses(_ text: String) throws {
        #expect(AddressPolicy(RemoteImageLoader.Configuration()).refusal(try address(text)) == nil, "\(text)")
    }

    @Test("each opt-in opens its own range only")
    func optIns() throws {
        var loopback = RemoteImageLoader.Configuration()
        loopback.allowLoopback = true
        #expect(AddressPolicy(loopback).refusal(try address("::ffff:127.0.0.1")) == nil)
        #expect(AddressPolicy(loopback).refusal(try address("10.0.0.1")) != nil)
        var privateNetworks = RemoteImageLoader.Configuration()
        privateNetworks.allowPrivateNetworks = true
        #expect(AddressPolicy(privateNetworks).refusal(try address("fd00::1")) == nil)
        #expect(AddressPolicy(privateNetworks).refusal(try address("169.254.169.254")) != nil)
        var linkLocal = RemoteImageLoader.Configuration()
        linkLocal.allowLinkLocal = true
        #expect(AddressPolicy(linkLocal).refusal(try address("169.254.169.254")) == nil)
        #expect(AddressPolicy(linkLocal).refusal(try address("127.0.0.1")) != nil)
    }

    @Test("a loader with the defaults reaches no loopback origin: 127.0.0.1, [::1], [::ffff:127.0.0.1], localhost")
    func loopbackRefusedByDefault() async throws {
        let origin = try TestOrigin()
        origin.serve("/a.jpg", .init(body: try Fixture.data("orient-6.jpg")))
        let loader = RemoteImageLoader()
        for host in ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "localhost"] {
            let error = await magickError { _ = try await loader.source(for: URL(string: "http://\(host):\(origin.port)/a.jpg")!) }
            #expect(error?.kind == .sourceNotAllowed, "\(host): \(String(describing: error))")
        }
        #expect(origin.counts("/a.jpg").requests == 0)
        try await loader.shutdown()
    }

    @Test("0.0.0.0 is refused even with loopback allowed (it reaches the host's own services)")
    func unspecifiedRefused() async throws {
        let origin = try TestOrigin()
        origin.serve("/a.jpg", .init(body: try Fixture.data("orient-6.jpg")))
        let loader = loopbackLoader()
        for host in ["0.0.0.0", "[::]", "[::ffff:0.0.0.0]"] {
            let error = await magickError { _ = try await loader.source(for: URL(string: "http://\(host):\(origin.port)/a.jpg")!) }
            #expect(error?.kind == .sourceNotAllowed, "\(host): \(String(describing: error))")
        }
        #expect(origin.counts("/a.jpg").requests == 0)
        try await loader.shutdown()
    }

    @Test("a redirect to a refused address is refused at that hop, before any connection to it")
    func redirectToRefusedAddress() async throws {
        let origin = try TestOrigin()
        origin.serve("/to-metadata", .redirect(to: "http://169.254.169.254/latest/meta-data/"))
        origin.serve("/to-zero", .redirect(to: "http://0.0.0.0:\(origin.port)/a.jpg"))
        origin.serve("/to-private", .redirect(to: "http://10.0.0.1/a.jpg"))
        let loader = loopbackLoader()
        for path in ["/to-metadata", "/to-zero", "/to-private"] {
            let error = await magickError { _ = try await loader.source(for: origin.url(path)) }
            #expect(error?.kind == .sourceNotAllowed, "\(path): \(String(describing: error))")
            #expect(origin.counts(path).requests == 1)
        }
        try await loader.shutdown()
    }

    @Test("allowed sources are prefixes, checked at every hop; other schemes are refused")
    func allowedSources() async throws {
        let origin = try TestOrigin()
        origin.serve("/images/a.jpg", .init(body: try Fixture.data("orient-6.jpg")))
        origin.serve("/images/away", .redirect(to: origin.url("/elsewhere/a.jpg").absoluteString))
        let loader = loopbackLoader { $0.allowedSources = [origin.url("/images/").absoluteString] }
        _ = try await loader.source(for: origin.url("/images/a.jpg"))
        #expect(await errorKind { _ = try await loader.source(for: origin.url("/elsewhere/a.jpg")) } == .sourceNotAllowed)
        #expect(await errorKind { _ = try await loader.source(for: origin.url("/images/away")) } == .sourceNotAllowed)
        #expect(await errorKind { _ = try await loader.source(for: URL(fileURLWithPath: "/etc/passwd")) } == .sourceNotAllowed)
        #expect(origin.counts("/elsewhere/a.jpg").requests == 0)
        try await loader.shutdown()
    }
}
