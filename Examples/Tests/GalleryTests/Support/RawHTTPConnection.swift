import Foundation

/// A plain TCP connection to a server on loopback, for what an HTTP client library will not do:
/// send a body slowly, send part of a body and wait, or hang up. Its calls block, so they run on a
/// dispatch queue, never on Swift's cooperative pool, where the server's handlers must run; a
/// receive timeout is a safety net only (no test expects anything of the time taken).
/// `@unchecked Sendable`: it holds only the socket's descriptor, set once; a test uses one
/// connection from one queue at a time.
final class RawHTTPConnection: @unchecked Sendable {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .ECONNREFUSED)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends a request head; the body, if any, follows through ``send(_:)``.
    func sendHead(_ method: String, _ path: String, headers: [(String, String)]) async throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try await send(Data((head + "\r\n").utf8))
    }

    /// Sends `data` in pieces of `piece` bytes with a pause after each (a slow client: the
    /// server sees the body arrive a piece at a time).
    func sendSlowly(_ data: Data, piece: Int) async throws {
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(offset + piece, data.endIndex)
            try await send(data[offset..<end])
            offset = end
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func send(_ data: Data) async throws {
        try await Self.offPool { try self.sendNow(data) }
    }

    private func sendNow(_ data: Data) throws {
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress! + offset, data.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EPIPE) }
            offset += sent
        }
    }

    /// Closes the connection at once.
    func hangUp() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// A response: status, lowercased header names, body.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// Reads one response (its body by `Content-Length`).
    func readResponse() async throws -> Response {
        try await Self.offPool { try self.readResponseNow() }
    }

    private func readResponseNow() throws -> Response {
        var buffer = Data()
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            guard try receive(into: &buffer) else { throw POSIXError(.ECONNRESET) }
            headEnd = buffer.range(of: Data("\r\n\r\n".utf8))
        }
        let lines = String(decoding: buffer[..<headEnd!.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Data(buffer[headEnd!.upperBound...])
        while body.count < length {
            guard try receive(into: &body) else { break }
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether the server closes the connection (its end of stream, or a reset, comes before
    /// the receive timeout) without waiting for more of the request. Bytes before the end are
    /// skipped: Hummingbird's HTTP parser, finding the input closed mid-body, answers a last 400.
    func serverClosed() async -> Bool {
        (try? await Self.offPool { () throws -> Bool in
            var buffer = Data()
            while try self.receive(into: &buffer) {}
            return true
        }) ?? false
    }

    private static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Appends what arrives; false at the end of the stream.
    private func receive(into buffer: inout Data) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        buffer.append(contentsOf: chunk[..<count])
        return count > 0
    }
}
