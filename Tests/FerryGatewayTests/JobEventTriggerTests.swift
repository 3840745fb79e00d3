import Foundation
import Logging
import PostgresNIO
import Testing

/// The events the database writes for jobs (migrations 0003, 0008, 0010): one per inserted job,
/// written by one statement per INSERT however many jobs it makes, in the jobs' order, each with its
/// endpoint deliveries; and one per state change.
@Suite("Job event triggers", .timeLimit(.minutes(3)))
struct JobEventTriggerTests {
    let logger = Logger(label: "ferry.tests.job-event-triggers")

    @Test("an INSERT of several jobs writes their job.queued events in order, delivered to subscribed endpoints; a state change writes its own")
    func insertedJobsAndStateChanges() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let tenant = UUID()
            let other = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a'), (\(other), 'b')", on: connection)
            try await PostgresProbe.execute(
                """
                INSERT INTO webhook_endpoints (tenant_id, url, events, secret) VALUES
                    (\(tenant), 'http://example.invalid/queued', ARRAY['job.queued'], 'whsec_a'),
                    (\(tenant), 'http://example.invalid/done', ARRAY['job.succeeded'], 'whsec_b'),
                    (\(other), 'http://example.invalid/other', ARRAY['job.queued'], 'whsec_c')
                """, on: connection)
            var ids: [UUID] = []
            for try await id in try await connection.query(
                """
                INSERT INTO jobs (tenant_id, kind, request, idempotency_key, idempotency_hash, created_at)
                SELECT \(tenant), 'download', jsonb_build_object('url', 'http://example.invalid/' || g), 'key ' || g,
                       sha256(g::text::bytea), now() + g * interval '1 microsecond'
                FROM generate_series(1, 3) g
                RETURNING id
                """, logger: logger
            ).decode(UUID.self) {
                ids.append(id)
            }

            var events: [(UUID, String, String?, Bool)] = []
            for try await row in try await connection.query(
                "SELECT job_id, type, (job).state, to_jsonb(job) ?| ARRAY['idempotency_key', 'resume_data'] FROM job_events ORDER BY id",
                logger: logger
            ).decode((UUID, String, String?, Bool).self) {
                events.append(row)
            }
            #expect(events.map(\.0) == ids, "one event per job, in the jobs' order")
            #expect(events.allSatisfy { $0.1 == "job.queued" && $0.2 == "queued" })
            #expect(events.allSatisfy { !$0.3 }, "the idempotency key and resume data stay out of the event")
            let deliveries = try await PostgresProbe.value(
                "SELECT string_agg(url, ',' ORDER BY event_id) FROM webhook_deliveries", as: String.self, on: connection)
            #expect(deliveries == Array(repeating: "http://example.invalid/queued", count: 3).joined(separator: ","),
                    "only the tenant's endpoint subscribed to job.queued")

            // An INSERT that makes no job writes no event.
            try await PostgresProbe.execute(
                """
                INSERT INTO jobs (tenant_id, kind, request, idempotency_key, idempotency_hash)
                VALUES (\(tenant), 'download', '{"url": "http://example.invalid/1"}', 'key 1', sha256('1'::bytea))
                ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
                """, on: connection)
            #expect(try await PostgresProbe.value("SELECT count(*) FROM job_events", as: Int64.self, on: connection) == 3)

            // A state change is one event, delivered to the endpoint subscribed to it.
            try await PostgresProbe.execute(
                "UPDATE jobs SET state = 'succeeded', finished_at = now(), result = '{}' WHERE id = \(ids[0])", on: connection)
            try await PostgresProbe.execute("UPDATE jobs SET priority = 5 WHERE id = \(ids[1])", on: connection)
            #expect(try await PostgresProbe.value("SELECT count(*) FROM job_events", as: Int64.self, on: connection) == 4)
            let succeeded = try await PostgresProbe.value(
                "SELECT d.url FROM webhook_deliveries d JOIN job_events e ON e.id = d.event_id WHERE e.type = 'job.succeeded'",
                as: String.self, on: connection)
            #expect(succeeded == "http://example.invalid/done")
        }
    }

    @Test("deleting a tenant deletes its events and their deliveries, and no other tenant's (0021: no foreign key to tenants on either)")
    func deletedTenantTakesItsEvents() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let gone = UUID()
            let kept = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(gone), 'a'), (\(kept), 'b')", on: connection)
            for tenant in [gone, kept] {
                try await PostgresProbe.execute(
                    """
                    INSERT INTO webhook_endpoints (tenant_id, url, events, secret)
                    VALUES (\(tenant), 'http://example.invalid/', ARRAY['job.queued', 'job.succeeded'], 'whsec_a')
                    """, on: connection)
                try await PostgresProbe.execute(
                    """
                    INSERT INTO jobs (tenant_id, kind, request, policies)
                    SELECT \(tenant), 'download', jsonb_build_object('url', 'http://example.invalid/' || g),
                           '{"callback_url": "http://example.invalid/callback"}'
                    FROM generate_series(1, 2) g
                    """, on: connection)
                try await PostgresProbe.execute(
                    "UPDATE jobs SET state = 'succeeded', finished_at = now(), result = '{}' WHERE tenant_id = \(tenant)", on: connection)
            }
            func counts(_ tenant: UUID) async throws -> String? {
                try await PostgresProbe.value(
                    """
                    SELECT (SELECT count(*) FROM job_events WHERE tenant_id = \(tenant)) || ' events, '
                        || (SELECT count(*) FROM webhook_deliveries WHERE tenant_id = \(tenant)) || ' deliveries'
                    """, as: String.self, on: connection)
            }
            // Two jobs, each queued and succeeded: an endpoint delivery per event and a callback per end.
            #expect(try await counts(gone) == "4 events, 6 deliveries")
            #expect(try await counts(kept) == "4 events, 6 deliveries")

            try await PostgresProbe.execute("DELETE FROM tenants WHERE id = \(gone)", on: connection)
            #expect(try await counts(gone) == "0 events, 0 deliveries")
            #expect(try await counts(kept) == "4 events, 6 deliveries")
            #expect(try await PostgresProbe.value("SELECT count(*) FROM jobs", as: Int64.self, on: connection) == 2)
        }
    }
}
