@testable import FerryStore
import Foundation
import Logging
import PostgresNIO
import Testing

/// `job_events` does not grow without bound: events past the retention go, with their finished
/// deliveries; recent ones and those a webhook delivery still retries stay.
@Suite("Job event retention", .timeLimit(.minutes(3)))
struct JobEventRetentionTests {
    let logger = Logger(label: "ferry.tests.retention")

    @Test("old events go in batches, with their delivered or failed deliveries; recent and still-pending ones stay")
    func prunesOldEvents() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
            func event(ageInDays days: Int, delivery status: String? = nil) async throws -> Int64 {
                let id = try #require(try await PostgresProbe.value(
                    """
                    INSERT INTO job_events (tenant_id, job_id, type, job, created_at)
                    VALUES (\(tenant), \(UUID()), 'job.succeeded', jsonb_populate_record(NULL::job_snapshot, '{"state": "succeeded"}'),
                            now() - \(days) * interval '1 day') RETURNING id
                    """, as: Int64.self, on: connection))
                if let status {
                    try await PostgresProbe.execute(
                        """
                        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, url, status, next_attempt_at)
                        VALUES (\(tenant), \(id), \(UUID()), 'job.succeeded', 'http://example.invalid/', \(status),
                                CASE WHEN \(status) = 'pending' THEN now() END)
                        """, on: connection)
                }
                return id
            }
            let oldPlain = try await event(ageInDays: 10)
            let oldDelivered = try await event(ageInDays: 9, delivery: "delivered")
            let oldPending = try await event(ageInDays: 9, delivery: "pending")
            let oldFailed = try await event(ageInDays: 8, delivery: "failed")
            let recent = try await event(ageInDays: 1)
            let recentPending = try await event(ageInDays: 0, delivery: "pending")

            let deleted = try await JobEventRetention.prune(olderThan: .seconds(7 * 86_400), on: connection, logger: logger)
            #expect(deleted == 3)
            var left: [Int64] = []
            for try await id in try await connection.query("SELECT id FROM job_events ORDER BY id", logger: logger).decode(Int64.self) {
                left.append(id)
            }
            #expect(left == [oldPending, recent, recentPending])
            #expect(!left.contains(oldPlain) && !left.contains(oldDelivered) && !left.contains(oldFailed))
            let deliveries = try await PostgresProbe.value("SELECT count(*) FROM webhook_deliveries", as: Int64.self, on: connection)
            #expect(deliveries == 2, "the delivered and failed records went with their events")

            // A second sweep finds nothing more to do.
            #expect(try await JobEventRetention.prune(olderThan: .seconds(7 * 86_400), on: connection, logger: logger) == 0)
        }
    }
}
