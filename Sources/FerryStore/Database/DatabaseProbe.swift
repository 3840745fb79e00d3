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

    /// The queue as `/metrics` shows it, cluster-wide (`JobStateCounts`). Nil when the database is
    /// away, so the rest of a report still renders.
    package func queueStanding() async -> QueueStanding? {
        do {
            return try await JobStateCounts.standing(client: client, logger: logger)
        } catch {
            logger.warning("job counts unavailable", metadata: ["error": LoggedError.metadata(error)])
            return nil
        }
    }
}
