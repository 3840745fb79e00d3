@testable import FerryStore
import FerryVault
import Foundation
import Logging
import PostgresNIO

/// A migrated database with one tenant and `jobs` queued download jobs, and a running `DatabasePool`
/// with a `JobQueue` on it: what the tests of the queue's shared statements start from.
enum QueueTestDatabase {
    static func with(
        jobs count: Int, logger: Logger,
        _ body: (JobQueue, DatabasePool, PostgresConnection, TestDatabase, UUID) async throws -> Void
    ) async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { database, connection, _ in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name, max_running_jobs) VALUES (\(tenant), 'a', 200)", on: connection)
            try await PostgresProbe.execute(
                """
                INSERT INTO jobs (tenant_id, kind, request, policies, max_attempts)
                SELECT \(tenant), 'download', jsonb_build_object('url', 'http://example.invalid/' || g, 'method', 'GET', 'headers', '[]'::jsonb),
                       '{"follow_redirects": true, "max_redirects": 10}'::jsonb, 3
                FROM generate_series(1, \(count)) g
                """, on: connection)
            let client = DatabasePool(
                clientConfiguration: database.clientConfiguration, probeConfiguration: database.connectionConfiguration, logger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await client.run() }
                defer { group.cancelAll() }
                let queue = JobQueue(
                    client: client, keyring: try VaultKeyring(keys: [try VaultKey(base64: VaultKey.generateText())]), logger: logger,
                    defaultMaxRunningJobs: 200)
                try await body(queue, client, connection, database, tenant)
            }
        }
    }
}
