import URLLoading

/// One metric the gateway records: its Prometheus name, what it counts (the `# HELP` line), and,
/// for a histogram, its bucket bounds. `GatewayMetrics` records under these names through
/// swift-metrics; the Prometheus exporter takes the help text and buckets from here; the README's
/// metrics section lists the same.
package struct GatewayMetric: Sendable, Hashable {
    package var name: String
    package var help: String
    /// Upper bounds of a histogram's buckets (seconds for durations); nil for counters and gauges.
    package var buckets: [Double]?

    package init(_ name: String, _ help: String, buckets: [Double]? = nil) {
        self.name = name
        self.help = help
        self.buckets = buckets
    }
}

extension GatewayMetric {
    // Read from the database when `/metrics` is scraped: the cluster's, not this process's.
    package static let jobs = GatewayMetric(
        "ferry_jobs", "Jobs in the database by state (all tenants, all ferryd processes), read when scraped.")
    package static let queueOldestJobAge = GatewayMetric(
        "ferry_queue_oldest_job_age_seconds",
        "Seconds the longest-waiting runnable job (queued, or retrying past its delay) has waited to run; 0 when none waits.")

    // This process's workers.
    package static let transfersRunning = GatewayMetric("ferry_transfers_running", "Transfers this process runs now.")
    package static let jobsStarted = GatewayMetric(
        "ferry_jobs_started_total", "Jobs whose first attempt this process started, by kind.")
    package static let jobsFinished = GatewayMetric(
        "ferry_jobs_finished_total",
        "Jobs this process ended (succeeded, failed, cancelled), by outcome and error code (none when succeeded).")
    package static let attemptsFinished = GatewayMetric("ferry_job_attempts_total", "Attempts this process finished, by outcome.")
    package static let attemptDuration = GatewayMetric(
        "ferry_job_attempt_duration_seconds",
        "How long this process's attempts ran, from their start in a worker to their end, by kind and outcome.",
        buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600])
    package static let receivedBytes = GatewayMetric(
        "ferry_transfer_received_bytes_total", "Body bytes this process's attempts received from origins, by tenant.")
    package static let sentBytes = GatewayMetric(
        "ferry_transfer_sent_bytes_total", "Request body bytes this process's attempts sent to origins (uploads), by tenant.")

    // The webhook dispatcher.
    package static let webhookDeliveries = GatewayMetric(
        "ferry_webhook_deliveries_total",
        "Webhook delivery attempts this process made, by outcome: delivered, retrying (tried again later) or failed (given up).")

    // The database pool.
    package static let databasePoolWait = GatewayMetric(
        "ferry_database_pool_wait_seconds",
        "Time a connection or transaction call waited for one of the pool's connections.",
        buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5])

    // The API, recorded under Hummingbird's MetricsMiddleware's names (`HummingbirdRequestMetrics`).
    package static let requestDuration = GatewayMetric(
        "ferry_http_request_duration_seconds", "API request latency, by method, route template and status.",
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
    package static let requests = GatewayMetric(
        "ferry_http_requests_total", "API requests, by method, route template and status.")
    package static let requestErrors = GatewayMetric(
        "ferry_http_request_errors_total",
        "API requests that ended in an error no middleware turned into a response, by method, route template and status.")
    package static let activeRequests = GatewayMetric("ferry_http_active_requests", "API requests being served now, by method.")

    // The engine (URLLoading), recorded by every session's transfers under `EngineMetricName`:
    // jobs' attempts, webhook deliveries, and anything else this process fetches.
    package static let engineRequests = GatewayMetric(
        EngineMetricName.requests,
        "Requests the engine ended (each hop: redirects and authentication rounds count), by scheme and outcome: completed (a response arrived, whatever its status), failed, stopped (cancelled, paused).")
    package static let engineConnections = GatewayMetric(
        EngineMetricName.connections, "Requests the engine sent over a new or a reused connection, by connection: new, reused.")
    package static let enginePhaseDuration = GatewayMetric(
        EngineMetricName.phaseDuration,
        "How long the engine's requests spent in each phase, by phase: dns, connect, tls, wait (request sent to first response byte), total (completed requests).",
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300])

    package static let all: [GatewayMetric] = [
        jobs, queueOldestJobAge, transfersRunning, jobsStarted, jobsFinished, attemptsFinished, attemptDuration, receivedBytes,
        sentBytes, webhookDeliveries, databasePoolWait, requestDuration, requests, requestErrors, activeRequests, engineRequests,
        engineConnections, enginePhaseDuration,
    ]

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    package static func named(_ name: String) -> GatewayMetric? { byName[name] }
}
