import FerryModel
import FerryVault
import Foundation
import Logging
import PostgresNIO

/// A tenant's gateway sessions (`sessions`): create, read, list, invalidate. Credential-bearing
/// headers and a proxy's password are sealed in the stored configuration
/// (`SealedSessionConfiguration`); what this store reads back shows them redacted, as the views do.
/// Only a worker's claim opens them.
public struct SessionStore: Sendable {
    package let client: DatabasePool
    package let keyring: VaultKeyring
    package let logger: Logger

    public init(client: DatabasePool, keyring: VaultKeyring, logger: Logger) {
        self.client = client
        self.keyring = keyring
        self.logger = logger
    }

    public struct Record: Sendable {
        public var id: UUID
        public var kind: String
        public var settings: SessionSettings
        public var createdAt: Date
        public var invalidatedAt: Date?
        public var invalidationMode: String?

        package init(id: UUID, kind: String, settings: SessionSettings, createdAt: Date, invalidatedAt: Date? = nil, invalidationMode: String? = nil) {
            self.id = id
            self.kind = kind
            self.settings = settings
            self.createdAt = createdAt
            self.invalidatedAt = invalidatedAt
            self.invalidationMode = invalidationMode
        }
    }

    package static let columns = "id, kind, configuration::text, created_at, invalidated_at, invalidation_mode"

    package static func record(_ row: PostgresRow) throws -> Record {
        let (id, kind, configuration, createdAt, invalidatedAt, mode) = try row.decode((UUID, String, String, Date, Date?, String?).self)
        return Record(
            id: id, kind: kind, settings: try SealedSessionConfiguration.decode(configuration, session: id, reading: .redact),
            createdAt: createdAt, invalidatedAt: invalidatedAt, invalidationMode: mode)
    }

    public func create(kind: String, settings: SessionSettings, tenant: UUID) async throws -> Record {
        let id = UUID()
        let configuration = try SealedSessionConfiguration.json(settings, session: id, keyring: keyring)
        let rows = try await client.query(
            """
            INSERT INTO sessions (id, tenant_id, kind, configuration) VALUES (\(id), \(tenant), \(kind), \(configuration)::jsonb)
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        for try await row in rows { return try Self.record(row) }
        throw StoreInvariantError("the session was not created")
    }

    public func session(_ id: UUID, tenant: UUID) async throws -> Record? {
        let rows = try await client.query(
            "SELECT \(unescaped: Self.columns) FROM sessions WHERE id = \(id) AND tenant_id = \(tenant)", logger: logger)
        for try await row in rows { return try Self.record(row) }
        return nil
    }

    public func sessions(tenant: UUID) async throws -> [Record] {
        let rows = try await client.query(
            "SELECT \(unescaped: Self.columns) FROM sessions WHERE tenant_id = \(tenant) ORDER BY created_at DESC, id DESC LIMIT 1000",
            logger: logger)
        var records: [Record] = []
        for try await row in rows { records.append(try Self.record(row)) }
        return records
    }

    /// Invalidates a session as the seeds' session does (SES-33): no new jobs either way; `finish`
    /// lets its jobs run to the end, `cancel` cancels them (running ones through their worker).
    /// Invalidating again is harmless, and a later `cancel` still cancels what a `finish` left running.
    /// Returns the session, and how many of its jobs were cancelled at once (not those left to a worker).
    public func invalidate(_ id: UUID, mode: String, tenant: UUID) async throws -> (record: Record, cancelledAtOnce: Int) {
        let logger = self.logger
        let (record, partialFiles, cancelled) = try await client.transaction(logger: logger) { connection -> (Record, [String], Int) in
            let rows = try await connection.query(
                """
                UPDATE sessions SET invalidated_at = coalesce(invalidated_at, now()), invalidation_mode = \(mode)
                WHERE id = \(id) AND tenant_id = \(tenant) RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            var updated: Record?
            for try await row in rows { updated = try Self.record(row) }
            guard let updated else { throw GatewayError.notFound("session \(id)") }
            guard mode == "cancel" else { return (updated, [], 0) }
            // A job waiting for a decision has no worker to ask: it is cancelled here, like a queued one.
            // The cancelled events are written by the database: JobEventsTrigger.
            let partials = try await connection.query(
                """
                UPDATE jobs SET state = \(unescaped: JobStateSQL.cancelled), finished_at = now(), error_code = 'cancelled',
                    error_message = 'its session was invalidated with mode=cancel', resume_data = NULL
                WHERE session_id = \(id) AND state IN (\(unescaped: JobStateSQL.cancellableAtOnce))
                RETURNING (SELECT r.resume_data->>'partial_file' FROM jobs r WHERE r.id = jobs.id)
                """, logger: logger)
            var partialFiles: [String] = []
            var cancelled = 0
            for try await path in partials.decode(String?.self) {
                cancelled += 1
                if let path { partialFiles.append(path) }
            }
            try await connection.query(
                """
                UPDATE jobs SET stop_request = \(unescaped: JobStateSQL.literalStopRequest(.cancel))
                WHERE session_id = \(id) AND state IN (\(unescaped: JobStateSQL.cancellableByWorker))
                """, logger: logger)
            return (updated, partialFiles, cancelled)
        }
        // Only once the cancellations are committed: their partial downloads will never be continued.
        for path in partialFiles { unlink(path) }
        return (record, cancelled)
    }
}
