import Logging
import PostgresNIO

/// What the health and metrics routes ask of the database: whether it answers, and how many jobs
/// each state has across every tenant.
package struct DatabaseProbe: Sendable {
    package let client: DatabasePool
    package let logger: Logger

    package init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Returns when the database answered; throws when it did not within `timeout`.
    package func ping(timeout: Duration) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for try await _ in try await client.query("SELECT 1", logger: logger) {} }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw CancellationError()
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Jobs per state, cluster-wide; empty when the database is away, so the rest of a report still renders.
    package func jobsByState() async -> [String: Int64] {
        var jobs: [String: Int64] = [:]
        do {
            let rows = try await client.query("SELECT state, count(*)::bigint FROM jobs GROUP BY state", logger: logger)
            for try await (state, count) in rows.decode((String, Int64).self) { jobs[state] = count }
        } catch {
            logger.warning("job counts unavailable", metadata: ["error": "\(error)"])
        }
        return jobs
    }
}
