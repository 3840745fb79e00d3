@testable import FerryModel
@testable import FerryStore
import Foundation
import Logging
import PostgresNIO
import Testing

/// The statement triggers of `JobEventsTrigger` on statements of many jobs, on a connection whose
/// first statement touched one job: PL/pgSQL plans each trigger statement for the rows of its
/// first call and keeps that plan (migrations/0020). What must hold at any size: one event per
/// inserted job and per change of state, none for a change of other columns, event ids in the jobs'
/// order, and every delivery pointing at its own job's event.
@Suite("Job events of large statements", .timeLimit(.minutes(3)))
struct JobEventsLargeStatementTests {
    let logger = Logger(label: "ferry.tests.job-events-large-statements")
    static let count = 1_500

    @Test("after a statement of one job: 1,500 inserted, heartbeated, claimed and cancelled at once get exactly their events, in order, each delivery on its own event")
    func largeStatementsAfterASmallOne() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
            try await PostgresProbe.execute(
                """
                INSERT INTO webhook_endpoints (tenant_id, url, events, secret)
                VALUES (\(tenant), 'http://example.invalid/all', \(["job.queued", "job.running", "job.cancelled"]), 'whsec_a')
                """, on: connection)
            // The connection's first call of each trigger: one row.
            let first = try #require(try await PostgresProbe.value(
                "INSERT INTO jobs (tenant_id, kind, request, policies) VALUES (\(tenant), 'download', '{\"url\": \"http://example.invalid/\"}', '{}') RETURNING id",
                as: UUID.self, on: connection))
            try await PostgresProbe.execute(
                "UPDATE jobs SET state = 'running', lease_owner = 'w', lease_expires_at = now() + interval '1 minute' WHERE id = \(first)",
                on: connection)
            try await PostgresProbe.execute("DELETE FROM jobs WHERE id = \(first)", on: connection)
            try await PostgresProbe.execute("DELETE FROM job_events", on: connection)

            try await PostgresProbe.execute(
                """
                INSERT INTO jobs (tenant_id, kind, request, policies, created_at)
                SELECT \(tenant), 'download', jsonb_build_object('url', 'http://example.invalid/' || i),
                       '{"callback_url": "http://example.invalid/callback"}', now() + i * interval '1 microsecond'
                FROM generate_series(1, \(Self.count)) i
                """, on: connection)
            try await expectEvents("job.queued", jobsOrder: "j.created_at, j.id", on: connection)

            try await PostgresProbe.execute("UPDATE jobs SET bytes_done = bytes_done + 1", on: connection)
            #expect(try await eventCount(on: connection) == Int64(Self.count), "a change of other columns writes no event")

            try await PostgresProbe.execute(
                "UPDATE jobs SET state = 'running', lease_owner = 'w', lease_expires_at = now() + interval '1 minute'", on: connection)
            try await expectEvents("job.running", jobsOrder: "j.id", on: connection)

            try await PostgresProbe.execute(
                "UPDATE jobs SET state = 'cancelled', lease_owner = NULL, lease_expires_at = NULL, finished_at = now()", on: connection)
            try await expectEvents("job.cancelled", jobsOrder: "j.id", on: connection)
            let callbacks = try await PostgresProbe.value(
                "SELECT count(*)::bigint FROM webhook_deliveries WHERE url = 'http://example.invalid/callback'", as: Int64.self, on: connection)
            #expect(callbacks == Int64(Self.count), "each cancelled job's callback gets its final event; no earlier one")
            let misdirected = try await PostgresProbe.value(
                """
                SELECT count(*)::bigint FROM webhook_deliveries d JOIN job_events e ON e.id = d.event_id
                WHERE e.job_id <> d.job_id OR e.type <> d.event_type OR e.tenant_id <> d.tenant_id
                """, as: Int64.self, on: connection)
            #expect(misdirected == 0, "every delivery carries its own event's job and type")
            #expect(try await eventCount(on: connection) == Int64(3 * Self.count))
        }
    }

    /// One `type` event per job, whose ids follow `jobsOrder`, whose snapshot is the job's, and one
    /// endpoint delivery on each.
    private func expectEvents(_ type: String, jobsOrder: String, on connection: PostgresConnection) async throws {
        let events = try await PostgresProbe.value(
            "SELECT count(DISTINCT job_id)::bigint FROM job_events WHERE type = \(type)", as: Int64.self, on: connection)
        #expect(events == Int64(Self.count), "\(type): one event per job")
        let outOfOrder = try await PostgresProbe.value(
            """
            SELECT count(*)::bigint FROM (
                SELECT row_number() OVER (ORDER BY e.id) AS by_event, row_number() OVER (ORDER BY \(unescaped: jobsOrder)) AS by_job
                FROM job_events e JOIN jobs j ON j.id = e.job_id WHERE e.type = \(type)) x
            WHERE by_event <> by_job
            """, as: Int64.self, on: connection)
        #expect(outOfOrder == 0, "\(type): event ids follow the jobs' order")
        let wrongSnapshots = try await PostgresProbe.value(
            """
            SELECT count(*)::bigint FROM job_events e
            WHERE e.type = \(type) AND ((e.job).id <> e.job_id OR (e.job).state <> substr(e.type, 5) OR to_jsonb(e.job) ? 'resume_data')
            """, as: Int64.self, on: connection)
        #expect(wrongSnapshots == 0, "\(type): each event's job is its own row in the new state, without hidden fields")
        let deliveries = try await PostgresProbe.value(
            "SELECT count(*)::bigint FROM webhook_deliveries WHERE event_type = \(type) AND url = 'http://example.invalid/all'",
            as: Int64.self, on: connection)
        #expect(deliveries == Int64(Self.count), "\(type): the subscribed endpoint gets one delivery per event")
    }

    private func eventCount(on connection: PostgresConnection) async throws -> Int64? {
        try await PostgresProbe.value("SELECT count(*)::bigint FROM job_events", as: Int64.self, on: connection)
    }
}
