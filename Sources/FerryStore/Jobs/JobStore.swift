import Crypto
import FerryModel
import FerryVault
import Foundation
import Logging
import PostgresNIO
import URLLoading

/// The API's side of `jobs`: submitting, reading, listing, and the operator's controls. Every query
/// that a tenant's request makes names the tenant, so another tenant's job is simply not found.
public struct JobStore: Sendable {
    package let client: DatabasePool
    package let logger: Logger
    /// Queued-job limit for tenants without their own (`tenants.max_queued_jobs`).
    package let defaultMaxQueuedJobs: Int
    package let wakeup: QueueWakeup
    private let queueRoom = QueueRoomEstimates()
    /// Seals the credential-bearing headers of submitted jobs (`SealedJobRequest`).
    package let keyring: VaultKeyring

    public init(client: DatabasePool, keyring: VaultKeyring, logger: Logger, defaultMaxQueuedJobs: Int = 100_000) {
        self.client = client
        self.keyring = keyring
        self.logger = logger
        self.defaultMaxQueuedJobs = defaultMaxQueuedJobs
        self.wakeup = QueueWakeup(client: client, logger: logger)
    }

    /// Which jobs a caller may touch: one tenant's, or (the admin) every tenant's.
    public enum Scope: Sendable {
        case tenant(UUID)
        case everyTenant

        package var tenantID: UUID? {
            if case .tenant(let id) = self { return id }
            return nil
        }
    }

    public enum SubmitOutcome: Sendable {
        case created(JobRecord)
        /// The same Idempotency-Key with the same body: the job made the first time.
        case replayed(JobRecord)
    }

    /// Inserts a queued job and wakes the workers. With an idempotency key, a second submission with
    /// the same key and body returns the first job; with another body it is a 409.
    public func submit(
        _ job: JobSpecification, tenant: UUID, idempotencyKey: String?, bodyDigest: Data
    ) async throws -> SubmitOutcome {
        let outcome = try await insertOrReplay(job, tenant: tenant, idempotencyKey: idempotencyKey, bodyDigest: bodyDigest)
        if case .created = outcome { wakeup.ring() }
        return outcome
    }

    private func insertOrReplay(
        _ job: JobSpecification, tenant: UUID, idempotencyKey: String?, bodyDigest: Data
    ) async throws -> SubmitOutcome {
        let logger = self.logger
        let defaultMaxQueued = defaultMaxQueuedJobs
        let queueRoom = self.queueRoom
        let countRoom = !queueRoom.maySkipCount(tenant: tenant)
        let id = UUID.random()
        let storedRequest = try SealedJobRequest.json(job.request, job: id, keyring: keyring)
        // The queue's room and the session are checked by the insert itself.
        func insert(hash: Data?, on connection: PostgresConnection) async throws -> JobRecord {
            let inserted = try await Self.insert(
                job, id: id, storedRequest: storedRequest, tenant: tenant, idempotencyKey: idempotencyKey, hash: hash, countRoom: countRoom, defaultMaxQueued: defaultMaxQueued,
                on: connection, logger: logger)
            if let room = inserted.room { queueRoom.record(tenant: tenant, waiting: room.waiting, limit: room.limit) }
            return inserted.job
        }
        if idempotencyKey == nil, !(job.request.body?.refersToStoredContent ?? false) {
            // The common case: one statement, one round trip.
            return .created(try await client.withConnection { connection in try await insert(hash: nil, on: connection) })
        }
        return try await client.transaction(logger: logger) { connection in
            if let key = idempotencyKey, let existing = try await Self.jobs(idempotencyKeys: [key], tenant: tenant, on: connection, logger: logger).first {
                guard existing.hash == bodyDigest else {
                    throw GatewayError(.conflict, code: "idempotency_key_reused",
                                  "this Idempotency-Key was used before with a different request body")
                }
                return .replayed(existing.job)
            }
            try await Self.checkBodySource(job.request.body, tenant: tenant, on: connection, logger: logger)
            return .created(try await insert(hash: idempotencyKey == nil ? nil : bodyDigest, on: connection))
        }
    }

    /// Inserts the job if the tenant's queue has room, in one statement. With `countRoom` false the
    /// waiting jobs are not counted (`QueueRoomEstimates` says there is room) and no `room` comes back;
    /// otherwise `room` is the waiting jobs, this one included, and the tenant's limit.
    private static func insert(
        _ job: JobSpecification, id: UUID, storedRequest: String, tenant: UUID, idempotencyKey: String?, hash: Data?, countRoom: Bool,
        defaultMaxQueued: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> (job: JobRecord, room: (waiting: Int64, limit: Int64)?) {
        let statement = InsertJobStatement(
            countRoom: countRoom, tenant: tenant, defaultMaxQueued: defaultMaxQueued, id: id, job: job, storedRequest: storedRequest,
            idempotencyKey: idempotencyKey,
            idempotencyHash: hash)
        for try await inserted in try await connection.execute(statement, logger: logger) {
            return (inserted.job, countRoom ? (inserted.waiting, inserted.limit) : nil)
        }
        try await explainRefused([job], tenant: tenant, idempotencyKey: idempotencyKey, defaultMaxQueued: defaultMaxQueued, on: connection, logger: logger)
    }

    /// Why an insert took fewer of `jobs` than given: a session that is not usable or a queue without
    /// room for them all (these throw saying which), or (with a key) another request with the same
    /// key that won the race between its check and the insert.
    package static func explainRefused(
        _ jobs: [JobSpecification], tenant: UUID, idempotencyKey: String?, defaultMaxQueued: Int,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Never {
        var checked: Set<UUID> = []
        for session in jobs.compactMap(\.sessionID) where checked.insert(session).inserted {
            try await checkSession(session, tenant: tenant, on: connection, logger: logger)
        }
        try await checkQueueRoom(tenant: tenant, adding: jobs.count, defaultLimit: defaultMaxQueued, on: connection, logger: logger)
        guard idempotencyKey != nil else {
            // Without a key only a full queue is left: it had no room when the insert ran, and a
            // worker has taken jobs from it since.
            if jobs.count == 1 { throw queueFull("this tenant's queue was full; wait for some jobs to run") }
            throw queueFull("this tenant's queue had no room for a batch of \(jobs.count); wait for some jobs to run")
        }
        throw GatewayError(.conflict, code: "idempotency_key_in_use", "a request with this Idempotency-Key is being processed; retry it")
    }

    /// The jobs made with these idempotency keys, in the order they were made, with the request body
    /// digest each was stored with.
    package static func jobs(
        idempotencyKeys keys: [String], tenant: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws -> [(job: JobRecord, hash: Data)] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: JobRecord.columns), idempotency_hash FROM jobs
            WHERE tenant_id = \(tenant) AND idempotency_key = ANY(\(keys))
            ORDER BY created_at, id
            """, logger: logger)
        var found: [(job: JobRecord, hash: Data)] = []
        for try await row in rows {
            found.append((try JobRecord(row: row), try row.makeRandomAccess()[JobRecord.columnCount].decode(Data.self)))
        }
        return found
    }

    /// Throws `queue_full` unless the tenant's queue has room for `adding` more jobs.
    private static func checkQueueRoom(tenant: UUID, adding: Int = 1, defaultLimit: Int, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            SELECT (SELECT count(*) FROM jobs WHERE tenant_id = \(tenant) AND state IN (\(unescaped: JobStateSQL.claimable)))::bigint,
                   coalesce((SELECT max_queued_jobs FROM tenants WHERE id = \(tenant)), \(defaultLimit))::bigint
            """, logger: logger)
        for try await (queued, limit) in rows.decode((Int64, Int64).self) where queued + Int64(adding) > limit {
            if adding == 1 { throw queueFull("this tenant already has \(queued) jobs waiting (limit \(limit)); wait for some to run") }
            throw queueFull("this tenant has \(queued) jobs waiting (limit \(limit)): no room for a batch of \(adding); wait for some to run or send fewer")
        }
    }

    private static func queueFull(_ detail: String) -> GatewayError {
        GatewayError(.limit, code: "queue_full", detail, retryAfterSeconds: 5)
    }

    private static func checkSession(_ session: UUID, tenant: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            "SELECT invalidated_at IS NOT NULL FROM sessions WHERE id = \(session) AND tenant_id = \(tenant)", logger: logger)
        for try await invalidated in rows.decode(Bool.self) {
            if invalidated { throw GatewayError(.conflict, code: "session_invalidated", "session \(session) was invalidated and takes no new jobs") }
            return
        }
        throw GatewayError(.notFound, code: "session_not_found", "session \(session.lowercasedString) was not found")
    }

    /// A body from a blob or another job must exist now, and be the tenant's own. The blob's row is
    /// held `FOR SHARE` until the job is committed, so a `DELETE /v1/blobs/{id}` meanwhile waits and
    /// then sees the job (`BlobStore.delete`).
    package static func checkBodySource(_ body: JobSpecification.Body?, tenant: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        switch body {
        case .blob(let id)?:
            var found = false
            for try await _ in try await connection.query("SELECT 1 FROM blobs WHERE id = \(id) AND tenant_id = \(tenant) FOR SHARE", logger: logger) {
                found = true
            }
            if !found { throw GatewayError(.notFound, code: "blob_not_found", "blob \(id.lowercasedString) was not found") }
        case .jobContent(let id)?:
            var found: (String, Bool)?
            for try await row in try await connection.query(
                "SELECT state, result IS NOT NULL AND result->'expired' IS NULL FROM jobs WHERE id = \(id) AND tenant_id = \(tenant)", logger: logger
            ).decode((String, Bool).self) {
                found = row
            }
            guard let (state, hasContent) = found else { throw GatewayError(.notFound, code: "job_not_found", "job \(id.lowercasedString) was not found") }
            guard state == "succeeded", hasContent else {
                throw GatewayError(.conflict, code: "job_content_unavailable", "job \(id) is \(state) and has no content; only a succeeded job's content can be sent")
            }
        case .inline?, nil:
            return
        }
    }

    public func job(_ id: UUID, scope: Scope) async throws -> JobRecord? {
        for try await job in try await client.execute(ReadJobStatement(id: id, tenant: scope.tenantID), logger: logger) { return job }
        return nil
    }

    /// A page of jobs, newest first, after `cursor` (from the previous page).
    /// `urlContains`: only jobs whose request URL contains this text, letter case aside.
    public func jobs(
        scope: Scope, state: JobState?, urlContains: String? = nil, limit: Int, after cursor: JobCursor?
    ) async throws -> (jobs: [JobRecord], next: JobCursor?) {
        let rows = try await client.query(
            """
            SELECT \(unescaped: JobRecord.columns) FROM jobs
            WHERE (\(scope.tenantID)::uuid IS NULL OR tenant_id = \(scope.tenantID))
              AND (\(state?.rawValue)::text IS NULL OR state = \(state?.rawValue))
              AND (\(urlContains)::text IS NULL OR strpos(lower(request->>'url'), lower(\(urlContains))) > 0)
              AND (\(cursor?.createdMicros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(cursor?.createdMicros) * interval '1 microsecond', \(cursor?.id)))
            ORDER BY created_at DESC, id DESC
            LIMIT \(limit + 1)
            """, logger: logger)
        var jobs: [JobRecord] = []
        let repeated = RepeatedJSONTexts()
        for try await row in rows { jobs.append(try JobRecord(row: row, repeated: repeated)) }
        guard jobs.count > limit else { return (jobs, nil) }
        jobs.removeLast()
        return (jobs, jobs.last.map { JobCursor(createdMicros: $0.createdMicros, id: $0.id) })
    }

    /// Pause, resume or cancel. A queued, retrying or paused job changes at once; a running one gets a
    /// stop request that its worker (in whatever ferryd holds the lease) carries out within a second or
    /// so. An event the job's state does not allow is a 409 with `illegal_transition`.
    public func control(_ id: UUID, event: JobEvent, scope: Scope) async throws -> JobRecord {
        let logger = self.logger
        let (job, partialFile) = try await client.transaction(logger: logger) { connection -> (JobRecord, String?) in
            let rows = try await connection.query(
                """
                SELECT state, stop_request, resume_data->>'partial_file' FROM jobs
                WHERE id = \(id) AND (\(scope.tenantID)::uuid IS NULL OR tenant_id = \(scope.tenantID)) FOR UPDATE
                """, logger: logger)
            var found: (String, String?, String?)?
            for try await row in rows.decode((String, String?, String?).self) { found = row }
            guard let (stateText, stopRequest, partialFile) = found, let state = JobState(rawValue: stateText) else {
                throw GatewayError.notFound("job \(id.lowercasedString)")
            }
            let transition: JobTransition
            switch JobStateMachine.apply(event, to: state) {
            case .failure(let illegal): throw GatewayError(.conflict, code: illegal.code, illegal.description)
            case .success(let value): transition = value
            }
            // A job waiting for a decision has no worker: it changes at once, like a queued one.
            if transition.asksWorker {
                // The worker owns the transfer: ask it. A cancel overrides a pending pause.
                if stopRequest != JobEvent.cancel.rawValue {
                    try await connection.query("UPDATE jobs SET stop_request = \(event.rawValue) WHERE id = \(id)", logger: logger)
                    try await connection.query("SELECT pg_notify(\(JobQueue.stopChannel), \(id.uuidString))", logger: logger)
                }
            } else {
                // The event of the new state is written by the database: JobEventsTrigger.
                let finished = transition.finishes
                let cancelled = transition.to == .cancelled
                try await connection.query(
                    """
                    UPDATE jobs SET state = \(transition.to.rawValue), stop_request = NULL,
                        run_after = \(unescaped: JobStateSQL.earliestRun(policies: "policies")),
                        finished_at = CASE WHEN \(finished) THEN now() ELSE NULL END,
                        error_code = CASE WHEN \(cancelled) THEN 'cancelled' ELSE error_code END,
                        error_message = CASE WHEN \(cancelled) THEN 'cancelled through the API' ELSE error_message END,
                        resume_data = CASE WHEN \(finished) THEN NULL ELSE resume_data END
                    WHERE id = \(id)
                    """, logger: logger)
                if transition.wakesWorkers { try await connection.query("SELECT pg_notify(\(JobQueue.channel), '')", logger: logger) }
            }
            let reread = try await connection.query("SELECT \(unescaped: JobRecord.columns) FROM jobs WHERE id = \(id)", logger: logger)
            for try await row in reread {
                let job = try JobRecord(row: row)
                return (job, job.state == .cancelled ? partialFile : nil)
            }
            throw GatewayError.notFound("job \(id.lowercasedString)")
        }
        // Only once the cancellation is committed: the partial download will never be continued.
        if let partialFile { unlink(partialFile) }
        return job
    }

    /// Deletes a finished job; returns its result file (relative to the data directory) for removal.
    public func delete(_ id: UUID, scope: Scope) async throws -> String? {
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT state, result->>'file' FROM jobs
                WHERE id = \(id) AND (\(scope.tenantID)::uuid IS NULL OR tenant_id = \(scope.tenantID)) FOR UPDATE
                """, logger: logger)
            var found: (String, String?)?
            for try await row in rows.decode((String, String?).self) { found = row }
            guard let (state, file) = found else { throw GatewayError.notFound("job \(id.lowercasedString)") }
            guard JobState(rawValue: state)?.isTerminal == true else {
                throw GatewayError(.conflict, code: "job_not_finished", "a \(state) job cannot be deleted; cancel it first")
            }
            try await connection.query("DELETE FROM jobs WHERE id = \(id)", logger: logger)
            return file
        }
    }

    /// SHA-256 of a request body, for idempotency.
    public static func digest(_ body: [UInt8]) -> Data {
        Data(SHA256.hash(data: body))
    }
}

/// Where a page of `GET /v1/jobs` ends: the last job's creation time (exact microseconds) and id,
/// as an opaque base64url token.
public struct JobCursor: Sendable, Equatable {
    public var createdMicros: Int64
    public var id: UUID

    public var token: String {
        Data("\(createdMicros):\(id.uuidString)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    public init(createdMicros: Int64, id: UUID) {
        self.createdMicros = createdMicros
        self.id = id
    }

    /// 1970 to the end of year 9999: every time a row can have. A forged time outside it would overflow
    /// PostgreSQL's interval arithmetic in the page's query.
    static let representableMicros: ClosedRange<Int64> = 0...253_402_300_799_999_999

    public init?(token: String) {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let micros = Int64(parts[0]), Self.representableMicros.contains(micros),
              let id = UUID(idText: String(parts[1]))
        else { return nil }
        self.init(createdMicros: micros, id: id)
    }
}
