@testable import FerryStore
import FerrydTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The counts of jobs by state that the triggers on jobs keep (migrations/0022) and `/metrics` and
/// the overview read (`JobStateCounts`): always what counting the table gives.
@Suite("Job counts by state", .timeLimit(.minutes(3)))
struct JobStateCountsTests {
    let logger = Logger(label: "ferry.tests.job-state-counts")

    /// Runs `body` with a migrated database, a connection to it and a pool that reads the counts.
    func withCounts(_ body: (TestDatabase, PostgresConnection, @Sendable () async throws -> QueueStanding) async throws -> Void) async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { database, connection, _ in
            let client = DatabasePool(
                clientConfiguration: database.clientConfiguration, probeConfiguration: database.connectionConfiguration, logger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await client.run() }
                defer { group.cancelAll() }
                try await body(database, connection) { [logger] in try await JobStateCounts.standing(client: client, logger: logger) }
            }
        }
    }

    /// Counting the table itself, states without jobs left out.
    func counted(on connection: PostgresConnection) async throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for try await (state, count) in try await connection.query(
            "SELECT state, count(*)::bigint FROM jobs GROUP BY state", logger: logger
        ).decode((String, Int64).self) {
            counts[state] = count
        }
        return counts
    }

    func insertJobs(_ count: Int, tenant: UUID, on connection: PostgresConnection) async throws {
        try await PostgresProbe.execute(
            """
            INSERT INTO jobs (tenant_id, kind, request)
            SELECT \(tenant), 'download', jsonb_build_object('url', 'http://example.invalid/' || g)
            FROM generate_series(1, \(count)) g
            """, on: connection)
    }

    @Test("inserts, claims, ends, heartbeats, a rollback, deletes and a tenant's deletion keep the counts equal to counting the table")
    func countsFollowEveryChange() async throws {
        try await withCounts { _, connection, standing in
            let tenant = UUID()
            let other = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a'), (\(other), 'b')", on: connection)
            #expect(try await standing().jobsByState == [:])

            try await insertJobs(5, tenant: tenant, on: connection)
            try await insertJobs(2, tenant: other, on: connection)
            #expect(try await standing().jobsByState == ["queued": 7])

            // A claim of three, one end, a statement that changes no state.
            try await PostgresProbe.execute(
                """
                UPDATE jobs SET state = 'running' WHERE id IN (
                    SELECT id FROM jobs WHERE tenant_id = \(tenant) ORDER BY created_at, id LIMIT 3)
                """, on: connection)
            try await PostgresProbe.execute(
                """
                UPDATE jobs SET state = 'succeeded', finished_at = now(), result = '{}'
                WHERE id = (SELECT id FROM jobs WHERE state = 'running' ORDER BY id LIMIT 1)
                """, on: connection)
            try await PostgresProbe.execute("UPDATE jobs SET bytes_done = 10 WHERE state = 'running'", on: connection)
            #expect(try await standing().jobsByState == ["queued": 4, "running": 2, "succeeded": 1])
            #expect(try await standing().jobsByState == (try await counted(on: connection)))

            // What a transaction rolled back never counted.
            try await PostgresProbe.execute("BEGIN", on: connection)
            try await insertJobs(3, tenant: tenant, on: connection)
            try await PostgresProbe.execute("UPDATE jobs SET state = 'cancelled', finished_at = now() WHERE state = 'queued'", on: connection)
            try await PostgresProbe.execute("ROLLBACK", on: connection)
            #expect(try await standing().jobsByState == ["queued": 4, "running": 2, "succeeded": 1])

            try await PostgresProbe.execute("DELETE FROM jobs WHERE state = 'succeeded'", on: connection)
            #expect(try await standing().jobsByState == ["queued": 4, "running": 2])
            // The tenant's jobs go with it, through the foreign key's cascade.
            try await PostgresProbe.execute("DELETE FROM tenants WHERE id = \(tenant)", on: connection)
            #expect(try await standing().jobsByState == ["queued": 2])
            #expect(try await standing().jobsByState == (try await counted(on: connection)))

            try await PostgresProbe.execute("TRUNCATE jobs CASCADE", on: connection)
            #expect(try await standing().jobsByState == [:])
        }
    }

    @Test("the oldest runnable job's wait counts claimable jobs that are due, and none other")
    func oldestRunnableJob() async throws {
        try await withCounts { _, connection, standing in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
            try await insertJobs(3, tenant: tenant, on: connection)
            try await PostgresProbe.execute(
                """
                WITH j AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM jobs)
                UPDATE jobs SET run_after = CASE j.n WHEN 1 THEN now() - interval '1 hour'
                                                     WHEN 2 THEN now() - interval '10 minutes'
                                                     ELSE now() + interval '1 hour' END
                FROM j WHERE j.id = jobs.id
                """, on: connection)
            let waited = try await standing().oldestRunnableJobAge
            #expect(waited >= 3600 && waited < 3700, "\(waited)")
            // The hour-old job runs: the 10-minute one is the oldest that waits; the future one is not due.
            try await PostgresProbe.execute(
                "UPDATE jobs SET state = 'running' WHERE run_after < now() - interval '30 minutes'", on: connection)
            let next = try await standing().oldestRunnableJobAge
            #expect(next >= 600 && next < 700, "\(next)")
            try await PostgresProbe.execute("UPDATE jobs SET state = 'running' WHERE state = 'queued' AND run_after <= now()", on: connection)
            #expect(try await standing().oldestRunnableJobAge == 0)
        }
    }

    @Test("two transactions changing jobs at once do not wait for each other's count")
    func concurrentWritersDoNotWait() async throws {
        try await withCounts { database, connection, standing in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
            try await insertJobs(2, tenant: tenant, on: connection)
            try await PostgresProbe.execute("BEGIN", on: connection)
            try await PostgresProbe.execute(
                "UPDATE jobs SET state = 'running' WHERE id = (SELECT id FROM jobs ORDER BY id LIMIT 1)", on: connection)
            // A second connection ends the other job while the first transaction is open: with one
            // shared row per state it would wait for that commit, here up to its statement timeout.
            try await database.withConnection { second in
                try await PostgresProbe.execute("SET statement_timeout = '5s'", on: second)
                try await PostgresProbe.execute(
                    "UPDATE jobs SET state = 'running' WHERE id = (SELECT id FROM jobs ORDER BY id DESC LIMIT 1)", on: second)
                try await insertJobs(1, tenant: tenant, on: second)
            }
            try await PostgresProbe.execute("COMMIT", on: connection)
            #expect(try await standing().jobsByState == ["running": 2, "queued": 1])
        }
    }

    @Test("the rows of a backend that disconnected fold into backend 0 at the next read, the totals unchanged")
    func goneBackendsFold() async throws {
        try await withCounts { database, connection, standing in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
            let pid = try await database.withConnection { second in
                try await insertJobs(4, tenant: tenant, on: second)
                return try #require(try await PostgresProbe.value("SELECT pg_backend_pid()", as: Int32.self, on: second))
            }
            func rows(of backend: Int32) async throws -> Int64? {
                try await PostgresProbe.value(
                    "SELECT count(*)::bigint FROM job_state_counts WHERE backend = \(backend)", as: Int64.self, on: connection)
            }
            #expect(try await rows(of: pid) == 1)
            // The backend leaves pg_stat_activity a moment after its connection closes.
            let deadline = ContinuousClock.now + .seconds(20)
            while try await rows(of: pid) != 0, ContinuousClock.now < deadline {
                #expect(try await standing().jobsByState == ["queued": 4])
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await rows(of: pid) == 0, "the gone backend's row was folded")
            #expect(try await rows(of: 0) == 1)
            #expect(try await standing().jobsByState == ["queued": 4])
        }
    }

    @Test("the migration counts the jobs there were before it (0022)")
    func migrationCountsExistingJobs() async throws {
        let migrations = try InitialSchemaTests.builtInMigrations()
        try await TestDatabase.withFresh { database in
            try await database.withConnection { connection in
                let runner = MigrationRunner(logger: logger)
                _ = try await runner.apply(migrations.filter { $0.version < 22 }, directory: EmbeddedMigrations.origin, on: connection)
                let tenant = UUID()
                try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
                try await insertJobs(3, tenant: tenant, on: connection)
                try await PostgresProbe.execute("UPDATE jobs SET state = 'failed', finished_at = now() WHERE id = (SELECT id FROM jobs ORDER BY id LIMIT 1)", on: connection)
                _ = try await runner.apply(migrations, directory: EmbeddedMigrations.origin, on: connection)
                var counts: [String: Int64] = [:]
                for try await (state, jobs) in try await connection.query(
                    "SELECT state, sum(jobs)::bigint FROM job_state_counts GROUP BY state", logger: logger
                ).decode((String, Int64).self) {
                    counts[state] = jobs
                }
                #expect(counts == ["queued": 2, "failed": 1])
            }
        }
    }
}
