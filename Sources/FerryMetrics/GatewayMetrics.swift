import FerryModel
import Foundation
import Metrics

/// What the gateway records, through swift-metrics: the workers' attempts and bytes, the webhook
/// dispatcher's deliveries, the database pool's waits, and the queue read at scrape time. Names,
/// help and buckets are `GatewayMetric`'s. Any swift-metrics backend can take them; ferryd gives
/// the Prometheus one behind `/metrics` (`PrometheusExposition`).
///
/// Label values are bounded: outcomes, kinds, states and error codes come from fixed lists in code,
/// tenants from `TenantSeries`.
public final class GatewayMetrics: Sendable {
    /// How many tenants get series of their own before the rest share `tenant="other"`.
    public static let defaultTenantSeriesLimit = 100

    private let factory: any MetricsFactory
    private let tenants: TenantSeries
    private let transfersRunning: Meter
    /// Made once: it is recorded on every pooled connection or transaction call.
    private let databasePoolWait: CoreMetrics.Timer

    /// - Parameters:
    ///   - factory: the backend; by default the process's `MetricsSystem` (a no-op until bootstrapped).
    ///   - tenantSeriesLimit: tenants with series of their own (`TenantSeries`).
    public init(factory: any MetricsFactory = MetricsSystem.factory, tenantSeriesLimit: Int = GatewayMetrics.defaultTenantSeriesLimit) {
        self.factory = factory
        self.tenants = TenantSeries(limit: tenantSeriesLimit)
        // Made now, so that `/metrics` shows 0 before the first transfer.
        self.transfersRunning = Meter(label: GatewayMetric.transfersRunning.name, factory: factory)
        transfersRunning.set(0)
        databasePoolWait = CoreMetrics.Timer(label: GatewayMetric.databasePoolWait.name, factory: factory)
    }

    // MARK: - Workers

    /// An attempt of a `kind` job begins; `attempt` counts from 1, so 1 is the job's start.
    package func attemptStarted(kind: JobSpecification.Kind, attempt: Int) {
        transfersRunning.increment()
        if attempt == 1 { counter(.jobsStarted, ("kind", kind.rawValue)).increment() }
    }

    /// An attempt ended with `outcome` (`job_attempts.outcome`: succeeded, retrying, failed, paused,
    /// ...) after `duration`, having moved these body bytes for `tenant`.
    package func attemptFinished(
        kind: JobSpecification.Kind, tenant: UUID, outcome: String, duration: Duration, bytesReceived: Int64, bytesSent: Int64
    ) {
        transfersRunning.decrement()
        counter(.attemptsFinished, ("outcome", outcome)).increment()
        CoreMetrics.Timer(
            label: GatewayMetric.attemptDuration.name, dimensions: [("kind", kind.rawValue), ("outcome", outcome)], factory: factory
        ).record(duration: duration)
        let tenantLabel = tenants.label(for: tenant)
        if bytesReceived > 0 { counter(.receivedBytes, ("tenant", tenantLabel)).increment(by: bytesReceived) }
        if bytesSent > 0 { counter(.sentBytes, ("tenant", tenantLabel)).increment(by: bytesSent) }
    }

    /// `count` jobs reached `state` (succeeded, failed or cancelled) through this process; `errorCode`
    /// is their error code, nil when they succeeded.
    package func jobFinished(state: JobState, errorCode: String?, count: Int = 1) {
        guard count > 0 else { return }
        counter(.jobsFinished, ("outcome", state.rawValue), ("error_code", errorCode ?? "none")).increment(by: count)
    }

    // MARK: - Webhooks

    /// A delivery attempt was recorded: `delivered`, `retrying` or `failed`.
    package func webhookDeliveryAttempted(outcome: String) {
        counter(.webhookDeliveries, ("outcome", outcome)).increment()
    }

    // MARK: - Database

    /// A connection (or transaction) call waited this long for one of the pool's connections.
    package func databasePoolWaited(_ duration: Duration) {
        databasePoolWait.record(duration: duration)
    }

    /// The queue as `/metrics` read it from the database: jobs per state (every `JobState`, 0 when
    /// absent) and the oldest runnable job's wait in seconds.
    package func recordQueue(jobsByState: [String: Int64], oldestRunnableJobAge: Double) {
        for state in JobState.allCases.map(\.rawValue) {
            Gauge(label: GatewayMetric.jobs.name, dimensions: [("state", state)], factory: factory).record(jobsByState[state] ?? 0)
        }
        Gauge(label: GatewayMetric.queueOldestJobAge.name, factory: factory).record(oldestRunnableJobAge)
    }

    private func counter(_ metric: GatewayMetric, _ dimensions: (String, String)...) -> Counter {
        Counter(label: metric.name, dimensions: dimensions, factory: factory)
    }
}
