import Metrics
import Prometheus

/// The swift-metrics backend behind `/metrics`: every metric recorded through swift-metrics lands in
/// one `PrometheusCollectorRegistry`, with the `# HELP` text and histogram buckets of its
/// `GatewayMetric`. swift-prometheus's own `PrometheusMetricsFactory` registers every metric
/// without help text (and the registry refuses one family with two help texts), hence this one.
///
/// Metrics of libraries that record through the process's `MetricsSystem` are exported too:
/// Hummingbird's request metrics under Ferry's names (`HummingbirdRequestMetrics`), anything else
/// under its own name (made a valid Prometheus name), without help.
struct GatewayPrometheusFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry

    /// Buckets of a histogram no `GatewayMetric` describes (swift-prometheus's defaults).
    private static let defaultDurationBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    private static let defaultValueBuckets: [Double] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]

    private struct Family {
        /// The name (whole, as `metricName`: Ferry's names carry their unit already) and help text.
        var descriptor: MetricNameDescriptor
        var labels: [(String, String)]
        var buckets: [Double]?

        init(name: String, labels: [(String, String)], help: String, buckets: [Double]?) {
            self.descriptor = MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
            self.labels = labels
            self.buckets = buckets
        }
    }

    private static func family(_ label: String, _ dimensions: [(String, String)]) -> Family {
        if let (metric, labels) = HummingbirdRequestMetrics.renamed(label, dimensions) {
            return Family(name: metric.name, labels: labels, help: metric.help, buckets: metric.buckets)
        }
        let metric = GatewayMetric.named(label)
        return Family(name: label, labels: dimensions, help: metric?.help ?? "", buckets: metric?.buckets)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        let family = Self.family(label, dimensions)
        return registry.makeCounter(descriptor: family.descriptor, labels: family.labels)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        let family = Self.family(label, dimensions)
        return registry.makeCounter(descriptor: family.descriptor, labels: family.labels)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        let family = Self.family(label, dimensions)
        guard aggregate else { return registry.makeGauge(descriptor: family.descriptor, labels: family.labels) }
        return registry.makeValueHistogram(
            descriptor: family.descriptor, labels: family.labels, buckets: family.buckets ?? Self.defaultValueBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        let family = Self.family(label, dimensions)
        return registry.makeGauge(descriptor: family.descriptor, labels: family.labels)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let family = Self.family(label, dimensions)
        let buckets = (family.buckets ?? Self.defaultDurationBuckets).map { Duration.nanoseconds(Int64(($0 * 1e9).rounded())) }
        return registry.makeDurationHistogram(descriptor: family.descriptor, labels: family.labels, buckets: buckets)
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
