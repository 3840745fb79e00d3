import FerryPrivatePostgres
import FerryStore
import Foundation
import Logging
import PostgresNIO
import Testing
import URLLoadingTestSupport

/// The migrations built into ferryd (`Sources/FerryStore/Embedded/migrations/`) applied to an empty database: the gateway's tables exist and
/// enforce what the design says (tenants own their rows; job states are a closed set).
@Suite(.timeLimit(.minutes(3)))
struct InitialSchemaTests {
    let logger = Logger(label: "ferry.tests.schema")

    /// The schema ferryd applies: the set compiled into it.
    static func builtInMigrations() throws -> [Migration] {
        try EmbeddedMigrations.load()
    }

    func withMigratedDatabase(_ body: (PostgresConnection) async throws -> Void) async throws {
        try await Self.withMigratedDatabase(logger: logger) { _, connection, report in
            #expect(report.lines.first == "applied 0001_initial")
            try await body(connection)
        }
    }

    /// A fresh database with the built-in migrations applied, and a connection to it.
    static func withMigratedDatabase(
        logger: Logger, _ body: (TestDatabase, PostgresConnection, MigrationReport) async throws -> Void
    ) async throws {
        let migrations = try builtInMigrations()
        try await TestDatabase.withFresh { database in
            try await database.withConnection { connection in
                let report = try await MigrationRunner(logger: logger).apply(migrations, directory: EmbeddedMigrations.origin, on: connection)
                try await body(database, connection, report)
            }
        }
    }

    func rejects(_ statement: PostgresQuery, on connection: PostgresConnection, sqlState: String) async {
        do {
            try await PostgresProbe.execute(statement, on: connection)
            Issue.record("expected SQLSTATE \(sqlState), but the statement succeeded")
        } catch {
            #expect(PostgresErrorDescription.sqlState(of: error) == sqlState, "\(PostgresErrorDescription.describe(error))")
        }
    }

    @Test func theGatewayTablesExist() async throws {
        try await withMigratedDatabase { connection in
            var tables: [String] = []
            let rows = try await connection.query(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1", logger: logger)
            for try await name in rows.decode(String.self) {
                tables.append(name)
            }
            #expect(tables == [
                "api_keys", "blobs", "cache_entries", "credentials", "ferry_migrations", "job_attempts", "job_events", "job_state_counts", "jobs",
                "session_cookies", "sessions", "tenant_turns", "tenants", "vault_sealing", "webhook_attempts", "webhook_deliveries", "webhook_endpoints",
                "webhook_secrets",
            ])
        }
    }

    @Test("jobs and job_attempts are vacuumed after a few hundred changes, not a fifth of the table (0009), and keep their pages (0012)")
    func queueTablesVacuumSoon() async throws {
        try await withMigratedDatabase { connection in
            for table in ["jobs", "job_attempts"] {
                let options = try await PostgresProbe.value(
                    "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = \(table) AND relkind = 'r'", as: String.self,
                    on: connection)
                #expect(options?.contains("autovacuum_vacuum_scale_factor=0.02") == true, "\(table): \(options ?? "none")")
                #expect(options?.contains("autovacuum_analyze_threshold=500") == true, "\(table): \(options ?? "none")")
                #expect(options?.contains("vacuum_truncate=false") == true, "\(table): \(options ?? "none")")
            }
        }
    }

    @Test("an Idempotency-Key is unique per tenant; jobs without one add nothing to its index, and jobs_for_claiming is gone (0011)")
    func idempotencyKeysIndexOnlyKeyedJobs() async throws {
        try await withMigratedDatabase { connection in
            let tenant = UUID()
            let other = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a'), (\(other), 'b')", on: connection)
            let hash = "'\\x\(String(repeating: "ab", count: 32))'::bytea"
            func insert(_ owner: UUID, key: String?) -> PostgresQuery {
                "INSERT INTO jobs (tenant_id, kind, request, idempotency_key, idempotency_hash) VALUES (\(owner), 'download', '{}', \(key), \(unescaped: key == nil ? "NULL" : hash))"
            }
            try await PostgresProbe.execute(insert(tenant, key: "k"), on: connection)
            try await PostgresProbe.execute(insert(other, key: "k"), on: connection)
            await rejects(insert(tenant, key: "k"), on: connection, sqlState: "23505")
            try await PostgresProbe.execute(insert(tenant, key: nil), on: connection)
            try await PostgresProbe.execute(insert(tenant, key: nil), on: connection)

            let definition = try await PostgresProbe.value(
                "SELECT indexdef FROM pg_indexes WHERE tablename = 'jobs' AND indexname = 'jobs_by_idempotency_key'", as: String.self, on: connection)
            #expect(definition?.hasSuffix("WHERE (idempotency_key IS NOT NULL)") == true, "\(definition ?? "no such index")")
            let claimingIndex = try await PostgresProbe.value(
                "SELECT count(*)::bigint FROM pg_indexes WHERE indexname = 'jobs_for_claiming'", as: Int64.self, on: connection)
            #expect(claimingIndex == 0)
        }
    }

    @Test func jobsKeepToTheirStatesTheirTenantAndTheirTimestamps() async throws {
        try await withMigratedDatabase { connection in
            let tenant = UUID()
            let other = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a'), (\(other), 'b')", on: connection)
            let session = UUID()
            try await PostgresProbe.execute(
                "INSERT INTO sessions (id, tenant_id, kind) VALUES (\(session), \(other), 'default')", on: connection)
            let request = #"{"url": "https://example.org/"}"#

            await rejects(
                "INSERT INTO jobs (tenant_id, kind, state, request) VALUES (\(tenant), 'download', 'bogus', \(request)::jsonb)",
                on: connection, sqlState: "23514")
            await rejects(
                "INSERT INTO jobs (tenant_id, kind, state, request) VALUES (\(tenant), 'download', 'succeeded', \(request)::jsonb)",
                on: connection, sqlState: "23514")  // a final state needs finished_at
            await rejects(
                "INSERT INTO jobs (tenant_id, session_id, kind, request) VALUES (\(tenant), \(session), 'download', \(request)::jsonb)",
                on: connection, sqlState: "23503")  // another tenant's session

            let job = UUID()
            try await PostgresProbe.execute(
                "INSERT INTO jobs (id, tenant_id, kind, request, idempotency_key, idempotency_hash) VALUES (\(job), \(tenant), 'download', \(request)::jsonb, 'k1', decode(repeat('ab', 32), 'hex'))",
                on: connection)
            await rejects(
                "INSERT INTO jobs (tenant_id, kind, request, idempotency_key, idempotency_hash) VALUES (\(tenant), 'data', \(request)::jsonb, 'k1', decode(repeat('cd', 32), 'hex'))",
                on: connection, sqlState: "23505")  // one idempotency key per tenant

            let before = try await PostgresProbe.value("SELECT updated_at FROM jobs WHERE id = \(job)", as: Date.self, on: connection)
            try await PostgresProbe.execute("UPDATE jobs SET priority = 5 WHERE id = \(job)", on: connection)
            let after = try await PostgresProbe.value("SELECT updated_at FROM jobs WHERE id = \(job)", as: Date.self, on: connection)
            #expect(try #require(after) >= #require(before))

            try await PostgresProbe.execute("INSERT INTO job_attempts (job_id, attempt) VALUES (\(job), 1)", on: connection)
            try await PostgresProbe.execute("DELETE FROM tenants WHERE id = \(tenant)", on: connection)
            let remaining = try await PostgresProbe.value(
                "SELECT (SELECT count(*) FROM jobs) + (SELECT count(*) FROM job_attempts)", as: Int.self, on: connection)
            #expect(remaining == 0, "a tenant's jobs and their attempts go with the tenant")
        }
    }

    @Test func apiKeysAreUniqueHashesAndAdminKeysHaveNoTenant() async throws {
        try await withMigratedDatabase { connection in
            try await PostgresProbe.execute("INSERT INTO api_keys (key_hash, label) VALUES (sha256('admin'), 'admin')", on: connection)
            await rejects("INSERT INTO api_keys (key_hash) VALUES (sha256('admin'))", on: connection, sqlState: "23505")
            await rejects("INSERT INTO api_keys (key_hash) VALUES ('short')", on: connection, sqlState: "23514")
        }
    }
}
