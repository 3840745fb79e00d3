import FerryModel
import Foundation
import Logging
import PostgresNIO

/// `blobs`: bodies stored for later upload jobs. The file is written first (`GatewayFiles.blob`), the
/// row only once the file is complete, so a broken upload leaves no row.
package struct BlobStore: Sendable {
    package let client: DatabasePool
    package let logger: Logger
    /// Tenants' storage quota where the tenant has none of its own (`StorageQuota`); nil: unlimited.
    package let maxStorageBytesPerTenant: Int64?

    package init(client: DatabasePool, logger: Logger, maxStorageBytesPerTenant: Int64? = nil) {
        self.client = client
        self.logger = logger
        self.maxStorageBytesPerTenant = maxStorageBytesPerTenant
    }

    /// The tenant's storage standing before a blob is stored: nil when it has no quota.
    package func storageStanding(tenant: UUID) async throws -> StorageQuota.Standing? {
        try await StorageQuota(client: client, defaultLimit: maxStorageBytesPerTenant, logger: logger).standing(tenant: tenant)
    }

    /// Records a stored blob; refused with `storage_quota_exceeded` when it does not fit in the
    /// tenant's quota as it stands now. The tenant's row is locked while it is counted, so blobs
    /// stored at the same time are counted one after the other and cannot both take the last room.
    package func insert(id: UUID, tenant: UUID, size: Int64, sha256: String, contentType: String?, path: String) async throws {
        let logger = self.logger
        let defaultLimit = maxStorageBytesPerTenant
        try await client.transaction(logger: logger) { connection in
            if let standing = try await StorageQuota.standing(tenant: tenant, defaultLimit: defaultLimit, lock: true, on: connection, logger: logger),
                size > standing.allowance
            {
                throw StorageQuota.exceeded(standing, adding: size, what: "the blob")
            }
            try await connection.query(
                """
                INSERT INTO blobs (id, tenant_id, size, sha256, content_type, path)
                VALUES (\(id), \(tenant), \(size), \(sha256), \(contentType), \(path))
                """, logger: logger)
        }
    }

    /// Deletes the tenant's blob; returns its file (relative to the data directory) for removal once
    /// the row is gone. Another tenant's blob is not found. A blob that an unfinished job (queued,
    /// running, paused, retrying, waiting for a decision) of any kind will send is refused with `blob_in_use`:
    /// deleting it would fail that job later with `body_unavailable`.
    ///
    /// The row is locked first: a job being submitted with this blob holds it `FOR SHARE`
    /// (`JobStore.checkBodySource`), so either the job commits first and is seen here, or the blob
    /// is gone when the submission looks.
    package func delete(_ id: UUID, tenant: UUID) async throws -> String {
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            var path: String?
            for try await found in try await connection.query(
                "SELECT path FROM blobs WHERE id = \(id) AND tenant_id = \(tenant) FOR UPDATE", logger: logger
            ).decode(String.self) {
                path = found
            }
            guard let path else { throw GatewayError(.notFound, code: "not_found", "blob \(id.lowercasedString) was not found") }
            // The body is stored as the request's `{"blob": id}`; compared as a uuid, whatever its case.
            var user: UUID?
            for try await job in try await connection.query(
                """
                SELECT id FROM jobs
                WHERE tenant_id = \(tenant) AND state NOT IN ('succeeded', 'failed', 'cancelled')
                  AND lower(request->'body'->>'blob') = \(id.uuidString.lowercased())
                LIMIT 1
                """, logger: logger
            ).decode(UUID.self) {
                user = job
            }
            if let user {
                throw GatewayError(
                    .conflict, code: "blob_in_use",
                    "blob \(id) is the body of job \(user), which has not finished; cancel or delete that job first")
            }
            try await connection.query("DELETE FROM blobs WHERE id = \(id)", logger: logger)
            return path
        }
    }
}
