import Metrics
import Prometheus

/// The Prometheus registry behind `/metrics` and the swift-metrics factory that records into it.
///
/// ferryd makes one per process and bootstraps the process's `MetricsSystem` with its factory
/// (`bootstrapMetricsSystem()`), so that what libraries record (Hummingbird's request metrics) lands
/// beside what the gateway records through `GatewayMetrics`. An application built without that (a
/// test) exports only the gateway's own metrics.
public final class PrometheusExposition: Sendable {
    /// `Content-Type` of `text()`: the Prometheus text exposition format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let registry = PrometheusCollectorRegistry()

    public init() {}

    /// The backend `GatewayMetrics` records through.
    public var factory: any MetricsFactory { GatewayPrometheusFactory(registry: registry) }

    /// Makes this registry the process's swift-metrics backend. Once per process (swift-metrics
    /// refuses a second bootstrap).
    public func bootstrapMetricsSystem() {
        MetricsSystem.bootstrap(factory)
    }

    /// Every metric recorded so far, in the Prometheus text format.
    public func text() -> [UInt8] {
        registry.emitToBuffer()
    }
}
