import FerryModel
import Foundation
import Logging
import PostgresNIO

/// A tenant's storage quota: what its blobs and its succeeded jobs' content may take together.
///
/// The limit is `tenants.max_storage_bytes`, else the process-wide `defaultLimit`
/// (`FERRY_MAX_STORAGE_BYTES_PER_TENANT`); neither: unlimited. Usage is counted from the database,
/// never kept beside it, so it cannot drift from what is stored: the sum of the blobs' sizes and of
/// the succeeded jobs' `result.size`. A running download is not in it yet; its runner holds it to the
/// allowance left when it started. What unfinished jobs say they expect (`expected_bytes`, BG-19) is
/// held for them from submission: it is `reserved`, and not part of anyone else's allowance.
package struct StorageQuota: Sendable {
    package let client: DatabasePool
    package let defaultLimit: Int64?
    package let logger: Logger
    /// Where limits read lately are kept; nil: read every time.
    package let limits: StorageLimitCache?

    package init(client: DatabasePool, defaultLimit: Int64?, limits: StorageLimitCache? = nil, logger: Logger) {
        self.client = client
        self.defaultLimit = defaultLimit
        self.limits = limits
        self.logger = logger
    }

    /// What a tenant may store: its limit and what it stores now.
    package struct Standing: Sendable, Equatable {
        package var limit: Int64
        package var used: Int64
        /// The expected bytes of the tenant's unfinished jobs (BG-19).
        package var reserved: Int64 = 0
        /// Bytes that still fit; 0 when the tenant is at or over its limit.
        package var allowance: Int64 { max(0, limit - used - reserved) }

        package init(limit: Int64, used: Int64, reserved: Int64 = 0) {
            self.limit = limit
            self.used = used
            self.reserved = reserved
        }

        /// The standing as a job that reserved `bytes` itself sees it: its own reservation is its room.
        package func excludingReservation(of bytes: Int64?) -> Standing {
            Standing(limit: limit, used: used, reserved: max(0, reserved - (bytes ?? 0)))
        }
    }

    /// The tenant's standing, or nil when it has no limit (or does not exist). An unlimited tenant
    /// costs one indexed row read: its usage is not summed.
    package func standing(tenant: UUID) async throws -> Standing? {
        if let limits {
            let (client, defaultLimit, logger) = (self.client, self.defaultLimit, self.logger)
            let limit = try await limits.limit(of: tenant) {
                try await client.withConnection { try await Self.limit(of: tenant, defaultLimit: defaultLimit, on: $0, logger: logger) }
            }
            guard let limit else { return nil }
            return try await client.withConnection { connection in
                let (used, reserved) = try await Self.usage(of: tenant, on: connection, logger: logger)
                return Standing(limit: limit, used: used, reserved: reserved)
            }
        }
        return try await client.withConnection { connection in
            try await Self.standing(tenant: tenant, defaultLimit: defaultLimit, on: connection, logger: logger)
        }
    }

    private static func limit(of tenant: UUID, defaultLimit: Int64?, on connection: PostgresConnection, logger: Logger) async throws -> Int64? {
        var limit: Int64?
        for try await value in try await connection.query(
            "SELECT coalesce(max_storage_bytes, \(defaultLimit)) FROM tenants WHERE id = \(tenant)", logger: logger
        ).decode(Int64?.self) {
            limit = value
        }
        return limit
    }

    /// As `standing(tenant:)`, on `connection`; with `lock`, the tenant's row is held `FOR UPDATE`
    /// until the transaction ends, so that two blobs stored at once cannot both take the last room.
    package static func standing(
        tenant: UUID, defaultLimit: Int64?, lock: Bool = false, on connection: PostgresConnection, logger: Logger
    ) async throws -> Standing? {
        let query: PostgresQuery = lock
            ? "SELECT coalesce(max_storage_bytes, \(defaultLimit)) FROM tenants WHERE id = \(tenant) FOR UPDATE"
            : "SELECT coalesce(max_storage_bytes, \(defaultLimit)) FROM tenants WHERE id = \(tenant)"
        var limit: Int64?
        for try await value in try await connection.query(query, logger: logger).decode(Int64?.self) { limit = value }
        guard let limit else { return nil }
        let (used, reserved) = try await usage(of: tenant, on: connection, logger: logger)
        return Standing(limit: limit, used: used, reserved: reserved)
    }

    /// What the tenant stores now (its blobs and its succeeded jobs' content still kept), and what its
    /// unfinished jobs expect (`jobs_expecting_bytes`, migrations/0018).
    private static func usage(of tenant: UUID, on connection: PostgresConnection, logger: Logger) async throws -> (used: Int64, reserved: Int64) {
        for try await value in try await connection.query(
            """
            SELECT \(unescaped: storedBytes(ofTenantIn: "t.id")),
                   (SELECT coalesce(sum((j.policies->>'expected_bytes')::bigint), 0) FROM jobs j
                    WHERE j.tenant_id = t.id AND j.policies ? 'expected_bytes' AND j.state NOT IN ('succeeded', 'failed', 'cancelled'))::bigint
            FROM tenants t WHERE t.id = \(tenant)
            """, logger: logger
        ).decode((Int64, Int64).self) {
            return value
        }
        return (0, 0)
    }

    /// SQL for the bytes the quota counts for the tenant whose id is in `column` (a bigint): its blobs
    /// and its succeeded jobs' content still kept. One definition for the quota and the admin's overview.
    package static func storedBytes(ofTenantIn column: String) -> String {
        """
        ((SELECT coalesce(sum(size), 0) FROM blobs WHERE tenant_id = \(column))
         + (SELECT coalesce(sum((result->>'size')::bigint), 0) FROM jobs
            WHERE tenant_id = \(column) AND state = 'succeeded' AND result IS NOT NULL AND result->'expired' IS NULL))::bigint
        """
    }

    /// The refusal for `bytes` more than `standing` allows.
    package static func exceeded(_ standing: Standing, adding bytes: Int64?, what: String) -> GatewayError {
        let size = bytes.map { "\($0) bytes" } ?? "more bytes"
        return GatewayError(
            .insufficientStorage, code: "storage_quota_exceeded",
            "\(what) (\(size)) does not fit in the tenant's storage quota of \(standing.limit) bytes, of which \(standing.used) are used"
                + (standing.reserved > 0 ? " and \(standing.reserved) expected by unfinished jobs" : "") + "; delete blobs or jobs to make room")
    }
}
