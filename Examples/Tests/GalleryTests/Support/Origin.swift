import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization

/// An origin for the proxy's tests: a Hummingbird application of its own on 127.0.0.1. It serves
/// a body per path, a 404 for any other path, and holds the paths marked held until
/// ``releaseAll()`` (a stalled or slow source). Nothing but loopback is ever bound or contacted.
final class Origin: Sendable {
    private let bodies: Mutex<[String: Data]> = Mutex([:])
    private let held: Mutex<Set<String>> = Mutex([])
    private let released = Atomic(false)
    private let arrivals: Mutex<[String: Int]> = Mutex([:])
    private let listening = Atomic(0)

    /// The port it listens on, once ``run(_:)`` has started it.
    var port: Int { listening.load(ordering: .relaxed) }

    /// Runs `body` while the origin listens; held responses are let go before it stops.
    func run(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let router = Router()
        router.get("**") { request, _ in try await self.answer(request.uri.path) }
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await application.test(.live) { client in
            listening.store(client.port ?? 0, ordering: .relaxed)
            defer { releaseAll() }
            try await body()
        }
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Serves `body` at `path`; `held`: only after ``releaseAll()``.
    func serve(_ path: String, _ body: Data, held: Bool = false) {
        bodies.withLock { $0[path] = body }
        if held { self.held.withLock { _ = $0.insert(path) } }
    }

    /// Lets every held response go.
    func releaseAll() {
        released.store(true, ordering: .relaxed)
    }

    /// The requests that have arrived for `path`.
    func requests(_ path: String) -> Int {
        arrivals.withLock { $0[path] ?? 0 }
    }

    private func answer(_ path: String) async throws -> Response {
        arrivals.withLock { $0[path, default: 0] += 1 }
        if held.withLock({ $0.contains(path) }) {
            while !released.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
        }
        guard let body = bodies.withLock({ $0[path] }) else { return Response(status: .notFound) }
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
