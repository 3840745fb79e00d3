import FerryModel
import Foundation
import Logging
import PostgresNIO

/// `blobs`: bodies stored for later upload jobs. The file is written first (`GatewayFiles.blob`), the
/// row only once the file is complete, so a broken upload leaves no row.
package struct BlobStore: Sendable {
    package let client: DatabasePool
    package let logger: Logger

    package init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    package func insert(id: UUID, tenant: UUID, size: Int64, sha256: String, contentType: String?, path: String) async throws {
        try await client.query(
            """
            INSERT INTO blobs (id, tenant_id, size, sha256, content_type, path)
            VALUES (\(id), \(tenant), \(size), \(sha256), \(contentType), \(path))
            """, logger: logger)
    }
}
