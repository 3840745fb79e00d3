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
        /// A background session's name, chosen by its client (BG-12).
        public var identifier: String?
        public var settings: SessionSettings
        public var createdAt: Date
        public var invalidatedAt: Date?
        public var invalidationMode: String?

        package init(
            id: UUID, kind: String, identifier: String? = nil, settings: SessionSettings, createdAt: Date, invalidatedAt: Date? = nil,
            invalidationMode: String? = nil
        ) {
            self.id = id
            self.kind = kind
            self.identifier = identifier
            self.settings = settings
            self.createdAt = createdAt
            self.invalidatedAt = invalidatedAt
            self.invalidationMode = invalidationMode
        }
    }

    package static let columns = "id, kind, identifier, configuration::text, created_at, invalidated_at, invalidation_mode"

    package static func record(_ row: PostgresRow) throws -> Record {
        let (id, kind, identifier, configuration, createdAt, invalidatedAt, mode) = try row.decode(
            (UUID, String, String?, String, Date, Date?, String?).self)
        return Record(
            id: id, kind: kind, identifier: identifier,
            settings: try SealedSessionConfiguration.decode(configuration, session: id, reading: .redact),
            createdAt: createdAt, invalidatedAt: invalidatedAt, invalidationMode: mode)
    }

    public enum Creation: Sendable {
        case created(Record)
        /// A live background session of the tenant already had this identifier: the client rejoins
        /// it (BG-08, BG-13), its configuration as first given.
        case rejoined(Record)
    }

    /// Makes a session; a background session with an `identifier` that a live session of the tenant
    /// already has is that session instead. The unique index `sessions_live_identifier` settles two
    /// creations at once: one inserts, the other finds it (BG-23: never two live sessions of one name).
    public func create(kind: String, identifier: String? = nil, settings: SessionSettings, tenant: UUID) async throws -> Creation {
        let id = UUID()
        let configuration = try SealedSessionConfiguration.json(settings, session: id, keyring: keyring)
        for _ in 0..<3 {
            let rows = try await client.query(
                """
                INSERT INTO sessions (id, tenant_id, kind, identifier, configuration)
                VALUES (\(id), \(tenant), \(kind), \(identifier), \(configuration)::jsonb)
                ON CONFLICT (tenant_id, identifier) WHERE identifier IS NOT NULL AND invalidated_at IS NULL DO NOTHING
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            for try await row in rows { return .created(try Self.record(row)) }
            guard let identifier else { break }
            let existing = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM sessions
                WHERE tenant_id = \(tenant) AND identifier = \(identifier) AND invalidated_at IS NULL
                """, logger: logger)
            for try await row in existing { return .rejoined(try Self.record(row)) }
            // Invalidated between the insert and the read: its identifier is free again.
        }
        throw StoreInvariantError("the session was not created")
    }

    /// The session's jobs that have not ended, oldest first: what a rejoining client takes up again
    /// (BG-08, the seeds' getAllTasks). At most `limit`.
    public func outstandingJobs(of session: UUID, tenant: UUID, limit: Int = 1000) async throws -> [JobRecord] {
        let rows = try await client.query(
            """
            SELECT \(unescaped: JobRecord.columns) FROM jobs
            WHERE session_id = \(session) AND tenant_id = \(tenant) AND finished_at IS NULL
            ORDER BY created_at, id LIMIT \(limit)
            """, logger: logger)
        var jobs: [JobRecord] = []
        let repeated = RepeatedJSONTexts()
        for try await row in rows { jobs.append(try JobRecord(row: row, repeated: repeated)) }
        return jobs
    }

    /// Where the session's event stream starts for a client that names no Last-Event-ID: after the
    /// last event a client of the session acknowledged. With `acknowledging`, that id is recorded
    /// first (ids only move forward, and never past the tenant's latest event: an id made up by a
    /// client cannot hide events still to come). Nil when the session is not the tenant's.
    public func eventStart(of session: UUID, tenant: UUID, acknowledging acknowledged: Int64?) async throws -> Int64? {
        let rows = try await client.query(
            """
            UPDATE sessions SET acknowledged_event_id = greatest(acknowledged_event_id, least(
                coalesce(\(acknowledged), 0), (SELECT coalesce(max(e.id), 0) FROM job_events e WHERE e.tenant_id = \(tenant))))
            WHERE id = \(session) AND tenant_id = \(tenant) RETURNING acknowledged_event_id
            """, logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        return nil
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
