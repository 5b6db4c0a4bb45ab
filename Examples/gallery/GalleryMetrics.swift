import Hummingbird
import Metrics
import Prometheus
import Synchronization

/// The gallery's metrics, through swift-metrics into a Prometheus registry of the gallery's own
/// (each metric is made with this registry's factory, so that a test's gallery never needs, nor
/// disturbs, the process-wide `MetricsSystem`; the executable bootstraps it with the same factory).
final class GalleryMetrics: Sendable {
    /// What a proxy request's time is spent on: waiting for a place, fetching the source, making
    /// and encoding the thumbnail.
    enum Phase: String, Sendable, CaseIterable {
        case queue, download, process
    }

    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    private let inFlightGauge: Metrics.Gauge
    private let sourceBytes: Metrics.Counter
    private let running = Mutex(0)

    init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        factory = PrometheusMetricsFactory(registry: registry)
        inFlightGauge = Metrics.Gauge(label: "magickio_in_flight", factory: factory)
        sourceBytes = Metrics.Counter(label: "magickio_source_bytes_total", factory: factory)
        inFlightGauge.record(0)
    }

    /// Counts one answered request: `route` is the path's first component (`/proxy`, `/thumbnails`, ...).
    func answered(route: String, status: Int) {
        Metrics.Counter(label: "magickio_requests_total", dimensions: [("route", route), ("status", String(status))], factory: factory).increment()
    }

    func record(_ phase: Phase, _ duration: Duration) {
        Metrics.Timer(label: "magickio_request_duration_seconds", dimensions: [("phase", phase.rawValue)], factory: factory)
            .recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    func addSourceBytes(_ count: Int) {
        if count > 0 { sourceBytes.increment(by: count) }
    }

    /// Runs `body` counted in `magickio_in_flight`.
    func inFlight<T>(_ body: () async throws -> T) async rethrows -> T {
        inFlightGauge.record(running.withLock { $0 += 1; return $0 })
        defer { inFlightGauge.record(running.withLock { $0 -= 1; return $0 }) }
        return try await body()
    }

    /// Every metric in Prometheus' text format.
    func text() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}

/// Counts every request by route and status, and how many are in flight. Outermost, so that it
/// sees the status the error middleware made of a thrown error.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = GalleryContext
    let metrics: GalleryMetrics

    /// The routes counted by name; anything else is `other`, so that no request can make a series.
    static let routes: Set<String> = ["/", "/proxy", "/thumbnails", "/thumbnail", "/info", "/placeholder", "/metrics", "/health"]

    func handle(_ request: Request, context: GalleryContext,
                next: (Request, GalleryContext) async throws -> Response) async throws -> Response {
        let first = "/" + (request.uri.path.split(separator: "/").first.map(String.init) ?? "")
        let route = Self.routes.contains(first) ? first : "other"
        return try await metrics.inFlight {
            do {
                let response = try await next(request, context)
                metrics.answered(route: route, status: Int(response.status.code))
                return response
            } catch {
                metrics.answered(route: route, status: Int((error as? any HTTPResponseError)?.status.code ?? 500))
                throw error
            }
        }
    }
}
