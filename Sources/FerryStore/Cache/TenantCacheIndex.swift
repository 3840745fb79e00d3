import FerryModel
import Foundation
import Logging
import PostgresNIO

/// `cache_entries`: every tenant's cache index, shared by all ferryds of the database.
package struct TenantCacheIndex: Sendable {
    package let client: DatabasePool
    package let logger: Logger

    /// The tenant's entries changed after `afterRevision` (0: all), and the highest revision seen.
    package func entries(tenant: UUID, afterRevision: Int64) async throws -> (entries: [TenantCacheEntry], revision: Int64) {
        let rows = try await client.query(
            """
            SELECT key, body_file, cost, stored_at, last_used_at, head::text, revision FROM cache_entries
            WHERE tenant_id = \(tenant) AND revision > \(afterRevision)
            """, logger: logger)
        var entries: [TenantCacheEntry] = []
        var highest = afterRevision
        for try await (key, bodyFile, cost, storedAt, lastUsedAt, head, revision) in rows.decode((String, String, Int64, Date, Date, String, Int64).self) {
            highest = max(highest, revision)
            guard let head = try? JobSpecification.decode(TenantCacheEntry.Head.self, json: head) else { continue }
            entries.append(TenantCacheEntry(key: key, bodyFile: bodyFile, cost: Int(cost), storedAt: storedAt, lastUsedAt: lastUsedAt, head: head))
        }
        return (entries, highest)
    }

    /// Writes one ferryd's changes to the tenant's entries, then evicts the least recently used until
    /// the tenant's entries fit `limit` bytes. Returns the body files no entry names any more, for the
    /// caller to delete (after the commit, so no reader is left with a row whose file is gone for good).
    ///
    /// One transaction holding the tenant's advisory lock: flushes of one tenant from several ferryds
    /// take turns (no deadlock between their upserts and evictions); other tenants are not held up.
    package func write(_ pending: [String: TenantCachePendingWrite], tenant: UUID, limit: Int) async throws -> [String] {
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection -> [String] in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(tenant.uuidString.lowercased()), 6))", logger: logger)
            var unused: [String] = []
            // In key order, the same in every ferryd.
            for (key, write) in pending.sorted(by: { $0.key < $1.key }) {
                switch write {
                case .store(let entry):
                    let head = JobSpecification.json(entry.head)
                    let rows = try await connection.query(
                        """
                        WITH old AS (SELECT body_file FROM cache_entries WHERE tenant_id = \(tenant) AND key = \(key))
                        INSERT INTO cache_entries (tenant_id, key, body_file, cost, head, stored_at, last_used_at)
                        VALUES (\(tenant), \(key), \(entry.bodyFile), \(Int64(entry.cost)), \(head)::jsonb, \(entry.storedAt), \(entry.lastUsedAt))
                        ON CONFLICT (tenant_id, key) DO UPDATE SET
                            body_file = EXCLUDED.body_file, cost = EXCLUDED.cost, head = EXCLUDED.head, stored_at = EXCLUDED.stored_at,
                            last_used_at = EXCLUDED.last_used_at, revision = nextval('cache_entry_revisions')
                        RETURNING (SELECT body_file FROM old)
                        """, logger: logger)
                    for try await old in rows.decode(String?.self) {
                        if let old, old != entry.bodyFile { unused.append(old) }
                    }
                case .use(let date):
                    try await connection.query(
                        """
                        UPDATE cache_entries SET last_used_at = greatest(last_used_at, \(date))
                        WHERE tenant_id = \(tenant) AND key = \(key)
                        """, logger: logger)
                case .remove(let bodyFile):
                    try await connection.query(
                        "DELETE FROM cache_entries WHERE tenant_id = \(tenant) AND key = \(key) AND body_file = \(bodyFile)", logger: logger)
                    unused.append(bodyFile)
                }
            }
            // Only a new entry can take the tenant past its limit; uses and removals cannot.
            guard pending.values.contains(where: { if case .store = $0 { true } else { false } }) else { return unused }
            let evicted = try await connection.query(
                """
                DELETE FROM cache_entries c USING (
                    SELECT key FROM (
                        SELECT key, sum(cost) OVER (ORDER BY last_used_at DESC, key) AS used
                        FROM cache_entries WHERE tenant_id = \(tenant)
                    ) ranked WHERE used > \(Int64(limit))
                ) victims
                WHERE c.tenant_id = \(tenant) AND c.key = victims.key
                RETURNING c.body_file
                """, logger: logger)
            for try await file in evicted.decode(String.self) { unused.append(file) }
            return unused
        }
    }

    package init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }
}
