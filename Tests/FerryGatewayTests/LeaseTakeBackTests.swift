@testable import FerryStore
import FerryVault
import Foundation
import Logging
import PostgresNIO
import Testing

/// Leases run out in the database's time, which also runs while the server is down and no worker
/// can renew anything (issue 18, "the database goes away"): `takeBackExpiredLeases` leaves expired
/// leases alone until the server has been up for a whole lease.
@Suite("Lease take-back after a restart", .timeLimit(.minutes(3)))
struct LeaseTakeBackTests {
    let logger = Logger(label: "ferry.tests.lease-take-back")

    @Test("an expired lease is taken back only once the server has been up for a lease, so a live worker can renew it first")
    func notBeforeTheServerHasBeenUpALease() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { database, connection, _ in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
            try await PostgresProbe.execute(
                """
                INSERT INTO jobs (tenant_id, kind, request, policies, max_attempts)
                VALUES (\(tenant), 'download', '{"url": "http://example.invalid/", "method": "GET", "headers": []}'::jsonb,
                        '{"follow_redirects": true, "max_redirects": 10}'::jsonb, 3)
                """, on: connection)
            let pool = DatabasePool(
                clientConfiguration: database.clientConfiguration, probeConfiguration: database.connectionConfiguration, logger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await pool.run() }
                defer { group.cancelAll() }
                let queue = JobQueue(client: pool, keyring: try VaultKeyring(keys: [try VaultKey(base64: VaultKey.generateText())]), logger: logger)
                let claims = try await queue.claim(owner: "worker-a", limit: 1, leaseSeconds: 60)
                #expect(claims.count == 1)
                // As if the server had been down for longer than the lease.
                try await PostgresProbe.execute("UPDATE jobs SET lease_expires_at = now() - interval '1 minute'", on: connection)
                let uptime = try await PostgresProbe.value(
                    "SELECT ceil(extract(epoch FROM now() - pg_postmaster_start_time()))::bigint", as: Int64.self,
                    on: database.connectionConfiguration)

                let early = try await queue.takeBackExpiredLeases(owner: "worker-b", running: [], leaseSeconds: Int(uptime ?? 0) + 3600)
                #expect(early == 0, "the server has been up for less than a lease")
                let state = try await PostgresProbe.value("SELECT state FROM jobs", as: String.self, on: database.connectionConfiguration)
                #expect(state == "running")

                let later = try await queue.takeBackExpiredLeases(owner: "worker-b", running: [], leaseSeconds: 0)
                #expect(later == 1)
            }
        }
    }
}
