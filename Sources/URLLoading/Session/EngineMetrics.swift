import CoreMetrics
import Foundation

/// The names the engine records under (`EngineMetrics`), for exporters that describe them.
public enum EngineMetricName {
    /// Counter, by `scheme` and `outcome` (completed, failed, stopped): requests (hops) that ended.
    public static let requests = "urlloading_requests_total"
    /// Counter, by `connection` (new, reused): requests that went over a new or a reused connection.
    public static let connections = "urlloading_connections_total"
    /// Timer, by `phase`: dns, connect, tls, wait (request start to first byte), total (completed requests).
    public static let phaseDuration = "urlloading_request_phase_seconds"
}

/// What a session's transfers record through swift-metrics, into the configuration's
/// `metricsFactory` (by default the process's `MetricsSystem`, a no-op until bootstrapped): each
/// request's outcome, whether it opened a connection, and how long its phases took. Labels are
/// fixed lists (schemes, outcomes, phases), never a URL or a host.
final class EngineMetrics: Sendable {
    private typealias Name = EngineMetricName
    private static let schemes = ["http", "https", "ftp", "ftps", "file"]
    private static let outcomes: [TransactionMetrics.Outcome] = [.completed, .failed, .stopped]

    private let requests: [String: [TransactionMetrics.Outcome: Counter]]
    private let newConnections: Counter
    private let reusedConnections: Counter
    private let lookup, connect, handshake, wait, total: CoreMetrics.Timer

    init(factory: any MetricsFactory) {
        var requests: [String: [TransactionMetrics.Outcome: Counter]] = [:]
        for scheme in Self.schemes {
            for outcome in Self.outcomes {
                requests[scheme, default: [:]][outcome] = Counter(
                    label: Name.requests, dimensions: [("scheme", scheme), ("outcome", outcome.rawValue)], factory: factory)
            }
        }
        self.requests = requests
        newConnections = Counter(label: Name.connections, dimensions: [("connection", "new")], factory: factory)
        reusedConnections = Counter(label: Name.connections, dimensions: [("connection", "reused")], factory: factory)
        func phase(_ name: String) -> CoreMetrics.Timer {
            CoreMetrics.Timer(label: Name.phaseDuration, dimensions: [("phase", name)], factory: factory)
        }
        lookup = phase("dns")
        connect = phase("connect")
        handshake = phase("tls")
        wait = phase("wait")
        total = phase("total")
    }

    func record(_ transaction: TransactionMetrics) {
        let scheme = transaction.request.scheme?.lowercased() ?? ""
        requests[scheme]?[transaction.outcome]?.increment()
        guard scheme != "file" else { return }
        // A hop that never reached a connection (a refused address, a failed lookup) counts as neither.
        if transaction.isReusedConnection {
            reusedConnections.increment()
        } else if transaction.connectEnd != nil {
            newConnections.increment()
        }
        if let value = transaction.domainLookupDuration { lookup.recordNanoseconds(Self.nanoseconds(value)) }
        if let value = transaction.connectDuration { connect.recordNanoseconds(Self.nanoseconds(value)) }
        if let value = transaction.secureConnectionDuration { handshake.recordNanoseconds(Self.nanoseconds(value)) }
        if let value = transaction.waitDuration { wait.recordNanoseconds(Self.nanoseconds(value)) }
        if transaction.outcome == .completed { total.recordNanoseconds(Self.nanoseconds(transaction.responseEnd)) }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
