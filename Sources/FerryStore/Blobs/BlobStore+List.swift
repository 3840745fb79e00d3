import Foundation
import PostgresNIO

extension BlobStore {
    /// A stored blob as its tenant lists it.
    package struct Listed: Sendable {
        package var id: UUID
        package var size: Int64
        package var sha256: String
        package var contentType: String?
        package var createdAt: Date
        package var createdMicros: Int64
    }

    /// The tenant's blobs, newest first, a page at a time (the cursor of credentials and jobs).
    package func blobs(tenant: UUID, limit: Int, after cursor: JobCursor?) async throws -> (blobs: [Listed], next: JobCursor?) {
        let rows = try await client.query(
            """
            SELECT id, size, sha256, content_type, created_at, (extract(epoch FROM created_at) * 1000000)::bigint FROM blobs
            WHERE tenant_id = \(tenant)
              AND (\(cursor?.createdMicros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(cursor?.createdMicros) * interval '1 microsecond', \(cursor?.id)))
            ORDER BY created_at DESC, id DESC
            LIMIT \(limit + 1)
            """, logger: logger)
        var blobs: [Listed] = []
        for try await (id, size, sha256, contentType, created, micros) in rows.decode((UUID, Int64, String, String?, Date, Int64).self) {
            blobs.append(Listed(id: id, size: size, sha256: sha256, contentType: contentType, createdAt: created, createdMicros: micros))
        }
        guard blobs.count > limit else { return (blobs, nil) }
        blobs.removeLast()
        return (blobs, blobs.last.map { JobCursor(createdMicros: $0.createdMicros, id: $0.id) })
    }
}
