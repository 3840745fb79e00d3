import FerryModel
import Foundation
import Logging
import PostgresNIO

/// The admin's overview, in a few aggregate statements over every tenant (`OperationsOverview`).
public struct OverviewStore: Sendable {
    let client: DatabasePool
    let logger: Logger

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func overview() async throws -> OperationsOverview {
        let jobsByState = try await JobStateCounts.standing(client: client, logger: logger).jobsByState

        // Minutes relative to now (0: this minute, 59: an hour ago), so the series has no gaps.
        var bytes = [Int64](repeating: 0, count: 60)
        var succeeded = [Int64](repeating: 0, count: 60)
        for try await (ago, sum, count) in try await client.query(
            """
            SELECT (extract(epoch FROM date_trunc('minute', now()) - date_trunc('minute', finished_at)) / 60)::int AS ago,
                   coalesce(sum(bytes), 0)::bigint, count(*) FILTER (WHERE outcome = 'succeeded')::bigint
            FROM job_attempts
            WHERE finished_at > date_trunc('minute', now()) - interval '59 minutes'
            GROUP BY ago
            """, logger: logger
        ).decode((Int, Int64, Int64).self) where (0..<60).contains(ago) {
            bytes[ago] = sum
            succeeded[ago] = count
        }
        var now = Date()
        for try await value in try await client.query("SELECT date_trunc('minute', now())", logger: logger).decode(Date.self) { now = value }
        let lastHour = (0..<60).reversed().map { ago in
            OperationsOverview.Minute(start: now.addingTimeInterval(-60 * Double(ago)), bytes: bytes[ago], succeeded: succeeded[ago])
        }

        var oldest: OperationsOverview.QueuedJob?
        for try await (id, tenant, created) in try await client.query(
            "SELECT id, tenant_id, created_at FROM jobs WHERE state = 'queued' ORDER BY created_at, id LIMIT 1", logger: logger
        ).decode((UUID, UUID, Date).self) {
            oldest = OperationsOverview.QueuedJob(id: id, tenant: tenant, createdAt: created)
        }

        var failed: Int64 = 0
        var failedLastHour: Int64 = 0
        for try await (all, recent) in try await client.query(
            """
            SELECT count(*)::bigint, count(*) FILTER (WHERE created_at > now() - interval '1 hour')::bigint
            FROM webhook_deliveries WHERE status = 'failed'
            """, logger: logger
        ).decode((Int64, Int64).self) {
            (failed, failedLastHour) = (all, recent)
        }

        var tenants: [OperationsOverview.TenantUsage] = []
        for try await (tenant, running, queued, stored) in try await client.query(
            """
            SELECT t.id,
                   (SELECT count(*) FROM jobs WHERE tenant_id = t.id AND state = 'running')::bigint,
                   (SELECT count(*) FROM jobs WHERE tenant_id = t.id AND state = 'queued')::bigint,
                   \(unescaped: StorageQuota.storedBytes(ofTenantIn: "t.id"))
            FROM tenants t ORDER BY t.created_at, t.id
            """, logger: logger
        ).decode((UUID, Int64, Int64, Int64).self) {
            tenants.append(OperationsOverview.TenantUsage(tenant: tenant, running: running, queued: queued, storedBytes: stored))
        }
        return OperationsOverview(
            jobsByState: jobsByState, lastHour: lastHour, oldestQueued: oldest, failedDeliveries: failed,
            failedDeliveriesLastHour: failedLastHour, tenants: tenants)
    }
}
