@testable import FerryStore
import FerrydTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The bytes a tenant's succeeded jobs store, as the triggers on jobs keep them (`tenant_usage`,
/// migrations/0023) and the storage quota reads them: always what summing the jobs gives.
@Suite("Tenant usage", .timeLimit(.minutes(3)))
struct TenantUsageTests {
    let logger = Logger(label: "ferry.tests.tenant-usage")

    /// The quota's count of the tenant's stored bytes (no blobs here: only jobs).
    func used(_ tenant: UUID, on connection: PostgresConnection) async throws -> Int64? {
        try await StorageQuota.standing(tenant: tenant, defaultLimit: 1 << 40, on: connection, logger: logger)?.used
    }

    /// Summing the jobs themselves, by the rule the quota has always had.
    func summed(_ tenant: UUID, on connection: PostgresConnection) async throws -> Int64? {
        try await PostgresProbe.value(
            """
            SELECT coalesce(sum((result->>'size')::bigint), 0)::bigint FROM jobs
            WHERE tenant_id = \(tenant) AND state = 'succeeded' AND result IS NOT NULL AND result->'expired' IS NULL
            """, as: Int64.self, on: connection)
    }

    func insertJobs(_ count: Int, tenant: UUID, on connection: PostgresConnection) async throws {
        try await PostgresProbe.execute(
            """
            INSERT INTO jobs (tenant_id, kind, request)
            SELECT \(tenant), 'download', jsonb_build_object('url', 'http://example.invalid/' || g)
            FROM generate_series(1, \(count)) g
            """, on: connection)
    }

    /// Ends `count` of the tenant's queued jobs as succeeded, each with `size` bytes.
    func succeed(_ count: Int, of tenant: UUID, size: Int, on connection: PostgresConnection) async throws {
        try await PostgresProbe.execute(
            """
            UPDATE jobs SET state = 'succeeded', finished_at = now(), result = jsonb_build_object('size', \(size))
            WHERE id IN (SELECT id FROM jobs WHERE tenant_id = \(tenant) AND state = 'queued' ORDER BY id LIMIT \(count))
            """, on: connection)
    }

    @Test("ends, expiry, a rollback, deletes, a size that is no number and a tenant's deletion keep the quota's count equal to summing the jobs")
    func usageFollowsEveryChange() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let tenant = UUID()
            let other = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a'), (\(other), 'b')", on: connection)
            try await insertJobs(6, tenant: tenant, on: connection)
            try await insertJobs(2, tenant: other, on: connection)
            #expect(try await used(tenant, on: connection) == 0)

            // Three jobs of one tenant end in one statement, one of the other tenant in another.
            try await succeed(3, of: tenant, size: 1000, on: connection)
            try await succeed(1, of: other, size: 7, on: connection)
            #expect(try await used(tenant, on: connection) == 3000)
            #expect(try await used(other, on: connection) == 7)
            // A failed end and a statement that changes no result store nothing more.
            try await PostgresProbe.execute(
                "UPDATE jobs SET state = 'failed', finished_at = now() WHERE id = (SELECT id FROM jobs WHERE tenant_id = \(tenant) AND state = 'queued' ORDER BY id LIMIT 1)",
                on: connection)
            try await PostgresProbe.execute("UPDATE jobs SET priority = 3 WHERE tenant_id = \(tenant)", on: connection)
            #expect(try await used(tenant, on: connection) == 3000)

            // Retention expires one job's content (ContentRetention's update).
            try await PostgresProbe.execute(
                """
                UPDATE jobs SET result = result || '{"expired": true}'::jsonb
                WHERE id = (SELECT id FROM jobs WHERE tenant_id = \(tenant) AND state = 'succeeded' ORDER BY id LIMIT 1)
                """, on: connection)
            #expect(try await used(tenant, on: connection) == 2000)

            // What a transaction rolled back never counted.
            try await PostgresProbe.execute("BEGIN", on: connection)
            try await succeed(2, of: tenant, size: 500, on: connection)
            try await PostgresProbe.execute("ROLLBACK", on: connection)
            #expect(try await used(tenant, on: connection) == 2000)

            // A size that is not a number counts nothing, and the end still commits.
            try await PostgresProbe.execute(
                """
                UPDATE jobs SET state = 'succeeded', finished_at = now(), result = '{"size": "many"}'
                WHERE id = (SELECT id FROM jobs WHERE tenant_id = \(tenant) AND state = 'queued' ORDER BY id LIMIT 1)
                """, on: connection)
            #expect(try await used(tenant, on: connection) == 2000)

            try await PostgresProbe.execute(
                "DELETE FROM jobs WHERE id = (SELECT id FROM jobs WHERE tenant_id = \(tenant) AND result->>'size' = '1000' AND result->'expired' IS NULL ORDER BY id LIMIT 1)",
                on: connection)
            #expect(try await used(tenant, on: connection) == 1000)
            #expect(try await summed(other, on: connection) == 7)

            // The tenant's deletion takes its jobs and its row, and leaves the other's.
            try await PostgresProbe.execute("DELETE FROM tenants WHERE id = \(tenant)", on: connection)
            #expect(try await PostgresProbe.value("SELECT count(*)::bigint FROM tenant_usage WHERE tenant_id = \(tenant)", as: Int64.self, on: connection) == 0)
            #expect(try await used(other, on: connection) == 7)

            try await PostgresProbe.execute("TRUNCATE jobs CASCADE", on: connection)
            #expect(try await used(other, on: connection) == 0)
        }
    }

    @Test("the migration sums what the tenants' jobs stored before it (0023)")
    func migrationSumsExistingJobs() async throws {
        let migrations = try InitialSchemaTests.builtInMigrations()
        try await TestDatabase.withFresh { database in
            try await database.withConnection { connection in
                let runner = MigrationRunner(logger: logger)
                _ = try await runner.apply(migrations.filter { $0.version < 23 }, directory: EmbeddedMigrations.origin, on: connection)
                let tenant = UUID()
                try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
                try await insertJobs(4, tenant: tenant, on: connection)
                try await succeed(3, of: tenant, size: 250, on: connection)
                _ = try await runner.apply(migrations, directory: EmbeddedMigrations.origin, on: connection)
                #expect(try await used(tenant, on: connection) == 750)
                #expect(try await summed(tenant, on: connection) == 750)
            }
        }
    }
}
