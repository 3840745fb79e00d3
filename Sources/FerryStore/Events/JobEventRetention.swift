import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Deletes job events older than the retention (`FERRY_EVENT_RETENTION_DAYS`), as a service of
/// ferryd: every job writes three or more events, each with the whole job, and nothing else ever
/// removes them. An event a webhook delivery still waits to deliver stays until that delivery ends;
/// deleting an event takes its delivery records with it. Streams resuming from a deleted event's id
/// get what came after it.
///
/// Every ferryd runs it; the deletes do not conflict, they only find less to do.
public struct JobEventRetention: Service {
    package let client: DatabasePool
    package let retention: Duration
    package let logger: Logger
    package static let interval = Duration.seconds(3600)
    /// Rows per delete statement, so that one sweep never holds many locks or a long transaction.
    package static let batch = 5000

    public init(client: DatabasePool, retentionDays: Int, logger: Logger) {
        self.client = client
        self.retention = .seconds(retentionDays * 86_400)
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let deleted = try await client.withConnection { try await Self.prune(olderThan: retention, on: $0, logger: logger) }
                    if deleted > 0 { logger.info("deleted job events past their retention", metadata: ["events": "\(deleted)"]) }
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("deleting old job events failed; trying again later", metadata: ["error": LoggedError.metadata(error)])
                }
                try? await Task.sleep(for: Self.interval)
            }
        }
    }

    /// Deletes events older than `age` whose deliveries are all done, oldest first, in batches;
    /// returns how many.
    package static func prune(olderThan age: Duration, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let seconds = age.components.seconds
        var deleted = 0
        while true {
            // Ids grow with time: the first event young enough to keep bounds the candidates, read
            // through the primary key from the oldest.
            let rows = try await connection.query(
                """
                WITH kept AS (
                    SELECT coalesce(
                        (SELECT id FROM job_events WHERE created_at >= now() - \(seconds) * interval '1 second' ORDER BY id LIMIT 1),
                        (SELECT max(id) + 1 FROM job_events), 0) AS first_id
                ), doomed AS (
                    SELECT e.id FROM job_events e
                    WHERE e.id < (SELECT first_id FROM kept)
                      AND e.created_at < now() - \(seconds) * interval '1 second'
                      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
                    ORDER BY e.id LIMIT \(Self.batch)
                )
                DELETE FROM job_events WHERE id IN (SELECT id FROM doomed)
                RETURNING 1
                """, logger: logger)
            var count = 0
            for try await _ in rows { count += 1 }
            deleted += count
            if count < Self.batch { return deleted }
        }
    }
}
