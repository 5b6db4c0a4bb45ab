import Foundation
import Synchronization

/// An HTTP/1.1 origin on 127.0.0.1 for the loader's tests: plain POSIX sockets, a thread per
/// connection, one response per connection (`Connection: close`). It serves what a route returns,
/// paced when asked, and counts the requests and the body bytes `send` actually took per path.
/// Nothing but loopback is ever bound or contacted.
final class TestOrigin: Sendable {
    struct Request: Sendable {
        var path: String
        /// Header names lowercased.
        var headers: [String: String]
    }

    struct Response: Sendable {
        var status = 200
        var headers: [(String, String)] = []
        var body = Data()
        /// The `Content-Length` sent.
        var contentLength: Length = .actual
        /// Bytes written per `send`, with a pause between them when `pauseMicroseconds` is set;
        /// the origin stops sending when the client closes during a pause.
        var chunkSize = 64 << 10
        var pauseMicroseconds: UInt32 = 0
        /// A longer pause after the first chunk: a client that refuses from what it has by then
        /// closes, and the origin never sends the rest, however slow the client was to decide.
        var firstPauseMicroseconds: UInt32?
        /// Waits for ``TestOrigin/release(_:)`` of this name before answering.
        var heldUntil: String?

        static func redirect(to location: String, status: Int = 302) -> Response {
            Response(status: status, headers: [("Location", location)])
        }
    }

    enum Length: Sendable {
        /// The body's.
        case actual
        /// None: the body ends when the connection closes.
        case none
        /// This number, true or not.
        case declared(Int)
    }

    struct Counts: Sendable {
        var requests = 0
        var bodyBytesSent = 0
        var closedEarly = 0
        var lastHeaders: [String: String] = [:]
    }

    let port: Int
    private let listener: Int32
    private let routes: Mutex<[String: @Sendable (Request) -> Response]> = Mutex([:])
    private let counts: Mutex<[String: Counts]> = Mutex([:])
    private let releases: Mutex<Set<String>> = Mutex([])
    private let arrivals: Mutex<[String: [CheckedContinuation<Void, Never>]]> = Mutex([:])

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread { self.serve(connection) }
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    func route(_ path: String, _ respond: @escaping @Sendable (Request) -> Response) {
        routes.withLock { $0[path] = respond }
    }

    func serve(_ path: String, _ response: Response) {
        route(path) { _ in response }
    }

    func counts(_ path: String) -> Counts {
        counts.withLock { $0[path] ?? Counts() }
    }

    /// Lets the responses held under `name` go.
    func release(_ name: String) {
        releases.withLock { _ = $0.insert(name) }
    }

    /// Returns once a request for `path` has arrived (at once if one has).
    func requestArrived(_ path: String) async {
        await withCheckedContinuation { continuation in
            let now = counts.withLock { ($0[path]?.requests ?? 0) > 0 }
            if now { continuation.resume(); return }
            arrivals.withLock { $0[path, default: []].append(continuation) }
            if counts.withLock({ ($0[path]?.requests ?? 0) > 0 }) { wake(path) }
        }
    }

    private func wake(_ path: String) {
        let waiting = arrivals.withLock { $0.removeValue(forKey: path) ?? [] }
        for continuation in waiting { continuation.resume() }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var small: Int32 = 16 << 10  // so that what `send` took is close to what the client read
        setsockopt(connection, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        guard let request = readRequest(connection) else { return }
        let respond = routes.withLock { $0[request.path] }
        counts.withLock {
            $0[request.path, default: Counts()].requests += 1
            $0[request.path]!.lastHeaders = request.headers
        }
        wake(request.path)
        let response = respond?(request) ?? Response(status: 404)
        if let name = response.heldUntil {
            while !releases.withLock({ $0.contains(name) }) { usleep(2_000) }
        }
        var head = "HTTP/1.1 \(response.status) \(response.status == 200 ? "OK" : "Status")\r\nConnection: close\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        switch response.contentLength {
        case .actual: head += "Content-Length: \(response.body.count)\r\n"
        case .none: break
        case .declared(let length): head += "Content-Length: \(length)\r\n"
        }
        head += "\r\n"
        guard write(connection, Data(head.utf8)) == head.utf8.count else { return }
        var offset = 0
        while offset < response.body.count {
            let chunk = response.body[offset..<min(offset + response.chunkSize, response.body.count)]
            let sent = write(connection, Data(chunk))
            counts.withLock { $0[request.path]!.bodyBytesSent += sent }
            guard sent == chunk.count else {
                counts.withLock { $0[request.path]!.closedEarly += 1 }
                return
            }
            let pause = offset == 0 ? response.firstPauseMicroseconds ?? response.pauseMicroseconds : response.pauseMicroseconds
            offset += chunk.count
            if pause > 0, Self.closedByPeer(connection, withinMicroseconds: pause) {
                counts.withLock { $0[request.path]!.closedEarly += 1 }
                return
            }
        }
    }

    /// Linux's POLLRDHUP (the peer shut its side), which Glibc's module leaves out without _GNU_SOURCE.
    private static let pollReadHangUp: Int16 = 0x2000

    /// Waits up to `microseconds` for the peer to close (or reset) the connection.
    private static func closedByPeer(_ connection: Int32, withinMicroseconds microseconds: UInt32) -> Bool {
        var entry = pollfd(fd: connection, events: Int16(POLLIN) | Self.pollReadHangUp, revents: 0)
        guard poll(&entry, 1, Int32(max(microseconds / 1000, 1))) > 0 else { return false }
        var byte: UInt8 = 0
        return entry.revents & (Self.pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0
            || recv(connection, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
    }

    /// What `send` took of `data` before it failed (the peer gone).
    private func write(_ connection: Int32, _ data: Data) -> Int {
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = send(connection, raw.baseAddress! + done, raw.count - done, Int32(MSG_NOSIGNAL))
                if n <= 0 { break }
                done += n
            }
            return done
        }
    }

    private func readRequest(_ connection: Int32) -> Request? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.range(of: Data("\r\n\r\n".utf8)) == nil {
            let n = recv(connection, &buffer, buffer.count, 0)
            guard n > 0, data.count < 64 << 10 else { return nil }
            data.append(contentsOf: buffer[0..<n])
        }
        let lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Request(path: String(parts[1]), headers: headers)
    }
}
