import FerryModel
import Logging
import PostgresNIO

/// What the health and metrics routes ask of the database: whether it answers, and how the queue
/// stands across every tenant.
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

    /// The states a worker claims jobs from: a job in one of them, due, waits for a worker.
    private static let claimableStates = Set(JobStateMachine.transitions(on: .claim).map(\.from.rawValue))

    /// The queue as `/metrics` shows it, cluster-wide, in one statement (the scan the job counts
    /// need anyway): jobs per state, and how long the longest-waiting runnable job (claimable and due)
    /// has waited since it became runnable. Nil when the database is away, so the rest of a report
    /// still renders.
    package func queueStanding() async -> QueueStanding? {
        var standing = QueueStanding()
        do {
            let rows = try await client.query(
                """
                SELECT state, count(*)::bigint,
                    coalesce(extract(epoch FROM now() - min(run_after) FILTER (WHERE run_after <= now())), 0)::float8
                FROM jobs GROUP BY state
                """, logger: logger)
            for try await (state, count, waited) in rows.decode((String, Int64, Double).self) {
                standing.jobsByState[state] = count
                if Self.claimableStates.contains(state) { standing.oldestRunnableJobAge = max(standing.oldestRunnableJobAge, waited) }
            }
        } catch {
            logger.warning("job counts unavailable", metadata: ["error": "\(error)"])
            return nil
        }
        return standing
    }
}

/// Jobs per state, and the seconds the longest-waiting runnable job has waited (0 when none waits).
package struct QueueStanding: Sendable, Equatable {
    package var jobsByState: [String: Int64] = [:]
    package var oldestRunnableJobAge: Double = 0
}
