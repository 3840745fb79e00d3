import FerryModel
import Foundation
import PostgresNIO

/// Discretionary jobs give their workers back (BG-05, BG-17): what a pool whose workers are all busy,
/// some with discretionary jobs, asks to decide whether one of those should make room.
extension JobQueue {
    /// Whether a job that is not discretionary waits now, of a tenant under its running limit: one a
    /// freed worker would claim. Tenants with waiting jobs are found by skipping through
    /// `jobs_claimable_in_order` one at a time, as the claim does, so a long queue is not read.
    public func nonDiscretionaryJobWaits() async throws -> Bool {
        let rows = try await client.query(
            """
            WITH RECURSIVE waiting_tenants AS (
                (SELECT tenant_id FROM jobs WHERE state IN (\(unescaped: JobStateSQL.claimable)) ORDER BY tenant_id LIMIT 1)
                UNION ALL
                SELECT (SELECT j.tenant_id FROM jobs j WHERE j.state IN (\(unescaped: JobStateSQL.claimable)) AND j.tenant_id > w.tenant_id
                        ORDER BY j.tenant_id LIMIT 1)
                FROM waiting_tenants w WHERE w.tenant_id IS NOT NULL
            )
            SELECT EXISTS (
                SELECT 1 FROM waiting_tenants w JOIN tenants t ON t.id = w.tenant_id AND t.disabled_at IS NULL
                WHERE EXISTS (
                        SELECT 1 FROM jobs j
                        WHERE j.tenant_id = t.id AND j.state IN (\(unescaped: JobStateSQL.claimable)) AND NOT j.discretionary
                          AND j.run_after <= now())
                  AND (SELECT count(*) FROM jobs r WHERE r.tenant_id = t.id AND r.state = \(unescaped: JobStateSQL.claimed))
                      < coalesce(t.max_running_jobs, \(defaultMaxRunningJobs)))
            """, logger: logger)
        for try await waits in rows.decode(Bool.self) { return waits }
        return false
    }
}
