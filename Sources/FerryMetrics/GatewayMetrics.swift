import FerryModel
import Foundation
import Synchronization

/// This process's counters for `/metrics`: API latency by route, bytes moved, transfers running.
/// (Job counts by state come from the database at scrape time, so they are the cluster's.)
public final class GatewayMetrics: Sendable {
    /// Upper bounds of the latency buckets, seconds.
    package static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    package struct Series: Hashable {
        package var method: String
        package var route: String
        package var status: Int

        package init(method: String, route: String, status: Int) {
            self.method = method
            self.route = route
            self.status = status
        }
    }

    package struct Histogram {
        package var buckets: [UInt64] = Array(repeating: 0, count: GatewayMetrics.latencyBuckets.count)
        package var count: UInt64 = 0
        package var sum: Double = 0

        package init(buckets: [UInt64] = Array(repeating: 0, count: GatewayMetrics.latencyBuckets.count), count: UInt64 = 0, sum: Double = 0) {
            self.buckets = buckets
            self.count = count
            self.sum = sum
        }
    }

    private struct State {
        var latency: [Series: Histogram] = [:]
        var bytesTransferred: UInt64 = 0
        var attemptsFinished: [String: UInt64] = [:]
    }

    private let state = Mutex(State())
    private let runningTransfers = Atomic<Int>(0)

    public init() {}

    package func observeRequest(method: String, route: String, status: Int, seconds: Double) {
        state.withLock { state in
            var histogram = state.latency[Series(method: method, route: route, status: status)] ?? Histogram()
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound { histogram.buckets[index] += 1 }
            histogram.count += 1
            histogram.sum += seconds
            state.latency[Series(method: method, route: route, status: status)] = histogram
        }
    }

    package func transferStarted() { runningTransfers.add(1, ordering: .relaxed) }

    package func transferFinished(outcome: String, bytes: Int64) {
        runningTransfers.subtract(1, ordering: .relaxed)
        state.withLock { state in
            state.bytesTransferred += UInt64(max(0, bytes))
            state.attemptsFinished[outcome, default: 0] += 1
        }
    }

    /// The Prometheus text exposition format (version 0.0.4).
    package func render(jobsByState: [String: Int64]) -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP ferry_jobs Jobs in the database by state (all tenants, all ferryd processes).")
        lines.append("# TYPE ferry_jobs gauge")
        for state in JobState.allCases.map(\.rawValue) { lines.append("ferry_jobs{state=\"\(state)\"} \(jobsByState[state] ?? 0)") }
        lines.append("# HELP ferry_transfers_running Transfers this process runs now.")
        lines.append("# TYPE ferry_transfers_running gauge")
        lines.append("ferry_transfers_running \(runningTransfers.load(ordering: .relaxed))")
        lines.append("# HELP ferry_transfer_bytes_total Body bytes received by this process's finished attempts.")
        lines.append("# TYPE ferry_transfer_bytes_total counter")
        lines.append("ferry_transfer_bytes_total \(snapshot.bytesTransferred)")
        lines.append("# HELP ferry_job_attempts_total Attempts this process finished, by outcome.")
        lines.append("# TYPE ferry_job_attempts_total counter")
        for (outcome, count) in snapshot.attemptsFinished.sorted(by: { $0.key < $1.key }) {
            lines.append("ferry_job_attempts_total{outcome=\"\(outcome)\"} \(count)")
        }
        lines.append("# HELP ferry_http_request_duration_seconds API request latency, by method, route and status.")
        lines.append("# TYPE ferry_http_request_duration_seconds histogram")
        let series = snapshot.latency.sorted { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }
        for (key, histogram) in series {
            let labels = "method=\"\(key.method)\",route=\"\(key.route)\",status=\"\(key.status)\""
            for (index, bound) in Self.latencyBuckets.enumerated() {
                lines.append("ferry_http_request_duration_seconds_bucket{\(labels),le=\"\(bound)\"} \(histogram.buckets[index])")
            }
            lines.append("ferry_http_request_duration_seconds_bucket{\(labels),le=\"+Inf\"} \(histogram.count)")
            lines.append("ferry_http_request_duration_seconds_sum{\(labels)} \(histogram.sum)")
            lines.append("ferry_http_request_duration_seconds_count{\(labels)} \(histogram.count)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
