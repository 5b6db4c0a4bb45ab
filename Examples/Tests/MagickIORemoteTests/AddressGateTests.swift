import Foundation
import MagickIO
import NIOCore
import NIOPosix
import Testing
@testable import MagickIORemote

@Suite("Remote: the SOCKS5 gate checks the address it connects to, whatever the loader checked before")
struct AddressGateTests {
    /// A SOCKS5 CONNECT to 127.0.0.1:`port` through the gate, over a blocking socket: the reply
    /// code, and what came back for `send` once connected.
    private func connect(through gate: AddressGate, to port: Int, send request: String) throws -> (reply: UInt8, answer: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(gate.port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        func exchange(_ bytes: [UInt8], expecting count: Int) -> [UInt8] {
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var got: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while got.count < count {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                got += buffer[0..<n]
            }
            return got
        }
        #expect(exchange([5, 1, 0], expecting: 2) == [5, 0])
        let reply = exchange([5, 1, 0, 1, 127, 0, 0, 1, UInt8(port >> 8), UInt8(port & 0xFF)], expecting: 10)
        try #require(reply.count >= 2)
        guard reply[1] == 0 else { return (reply[1], "") }
        let answer = exchange(Array(request.utf8), expecting: 1 << 20)
        return (0, String(decoding: answer, as: UTF8.self))
    }

    @Test("with the defaults the gate answers 'not allowed' to a CONNECT to 127.0.0.1; with loopback allowed it splices")
    func gateEnforces() async throws {
        let origin = try TestOrigin()
        origin.serve("/hello", .init(body: Data("hello through the gate".utf8)))
        let request = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let strict = try await AddressGate(policy: AddressPolicy(RemoteImageLoader.Configuration()), connectTimeout: .seconds(5),
                                           group: MultiThreadedEventLoopGroup.singleton)
        let refused = try connect(through: strict, to: origin.port, send: request)
        #expect(refused.reply == 2)
        #expect(origin.counts("/hello").requests == 0)
        await strict.close()
        var configuration = RemoteImageLoader.Configuration()
        configuration.allowLoopback = true
        let open = try await AddressGate(policy: AddressPolicy(configuration), connectTimeout: .seconds(5),
                                         group: MultiThreadedEventLoopGroup.singleton)
        let spliced = try connect(through: open, to: origin.port, send: request)
        #expect(spliced.reply == 0)
        #expect(spliced.answer.hasSuffix("hello through the gate"), "\(spliced.answer)")
        await open.close()
    }
}
