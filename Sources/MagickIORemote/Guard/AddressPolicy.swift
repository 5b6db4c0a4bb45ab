#if Remote
import NIOCore

/// Which IP addresses a loader may connect to: the address guard's one decision, made on the
/// address about to be connected (``AddressGate``) for every connection, redirects included.
struct AddressPolicy: Sendable {
    var allowLoopback = false
    var allowPrivateNetworks = false
    var allowLinkLocal = false

    init(_ configuration: RemoteImageLoader.Configuration) {
        allowLoopback = configuration.allowLoopback
        allowPrivateNetworks = configuration.allowPrivateNetworks
        allowLinkLocal = configuration.allowLinkLocal
    }

    /// Why `address` is refused, or nil when it may be connected to.
    func refusal(_ address: SocketAddress) -> String? {
        switch address {
        case .v4(let v4):
            return refusal(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr), shown: address.ipAddress ?? "?")
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            return refusal(ipv6: bytes, shown: address.ipAddress ?? "?")
        case .unixDomainSocket:
            return "a Unix domain socket is not a remote source"
        }
    }

    /// IPv4, as a host-order number.
    private func refusal(ipv4 a: UInt32, shown: String) -> String? {
        func within(_ network: UInt32, _ bits: UInt32) -> Bool {
            bits == 0 || a >> (32 - bits) == network >> (32 - bits)
        }
        if a == 0 || within(0x0000_0000, 8) { return "\(shown) is unspecified (0.0.0.0/8)" }
        if within(0xE000_0000, 4) || a == 0xFFFF_FFFF { return "\(shown) is multicast or broadcast" }
        if within(0x7F00_0000, 8) { return allowLoopback ? nil : "\(shown) is loopback (allowLoopback is off)" }
        if within(0xA9FE_0000, 16) { return allowLinkLocal ? nil : "\(shown) is link-local (allowLinkLocal is off)" }
        if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) || within(0x6440_0000, 10) {
            return allowPrivateNetworks ? nil : "\(shown) is a private address (allowPrivateNetworks is off)"
        }
        return nil
    }

    /// IPv6, as its 16 bytes in network order.
    private func refusal(ipv6 b: [UInt8], shown: String) -> String? {
        let first10Zero = b[0..<10].allSatisfy { $0 == 0 }
        let last4 = b[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        // ::ffff:a.b.c.d (IPv4-mapped), ::a.b.c.d (IPv4-compatible, deprecated but routed by some
        // stacks) and ::ffff:0:a.b.c.d (IPv4-translated): judged as the IPv4 address they carry.
        if first10Zero, b[10] == 0xFF, b[11] == 0xFF { return refusal(ipv4: last4, shown: shown) }
        if b[0..<12].allSatisfy({ $0 == 0 }) {
            if last4 == 0 { return "\(shown) is unspecified (::)" }
            if last4 == 1 { return allowLoopback ? nil : "\(shown) is loopback (allowLoopback is off)" }
            return refusal(ipv4: last4, shown: shown)
        }
        if b[0..<8].allSatisfy({ $0 == 0 }), b[8] == 0xFF, b[9] == 0xFF, b[10] == 0, b[11] == 0 {
            return refusal(ipv4: last4, shown: shown)
        }
        if b[0] == 0xFF { return "\(shown) is multicast" }
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return allowLinkLocal ? nil : "\(shown) is link-local (allowLinkLocal is off)" }
        if b[0] & 0xFE == 0xFC { return allowPrivateNetworks ? nil : "\(shown) is a unique local address (allowPrivateNetworks is off)" }
        return nil
    }
}
#endif
