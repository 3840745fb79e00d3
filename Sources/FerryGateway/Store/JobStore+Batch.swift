import Foundation
import Logging
import PostgresNIO

/// `POST /v1/jobs/batch`: many jobs in one transaction and one statement, all or none.
extension JobStore {
    public enum SubmitBatchOutcome: Sendable {
        /// The jobs, in the order given.
        case created([JobRecord])
        /// The same Idempotency-Key with the same body: the jobs made the first time, in their order,
        /// without those deleted since.
        case replayed([JobRecord])
    }

    /// Inserts the jobs, queued, and wakes the workers; or inserts none of them and throws why: the
    /// batch does not fit in the tenant's queue (`queue_full`), a session or a body's blob or job is
    /// not the tenant's, or the idempotency key belongs to another body.
    public func submitBatch(
        _ jobs: [JobSpecification], tenant: UUID, idempotencyKey: String?, bodyDigest: Data
    ) async throws -> SubmitBatchOutcome {
        let logger = self.logger
        let defaultMaxQueued = defaultMaxQueuedJobs
        let outcome = try await client.withTransaction(logger: logger) { connection -> SubmitBatchOutcome in
            if let key = idempotencyKey {
                let keys = InsertJobBatchStatement.idempotencyKeys(key, count: jobs.count)
                let earlier = try await Self.jobs(idempotencyKeys: keys, tenant: tenant, on: connection, logger: logger)
                if !earlier.isEmpty {
                    guard earlier.allSatisfy({ $0.hash == bodyDigest }) else {
                        throw Problem(.conflict, code: "idempotency_key_reused",
                                      "this Idempotency-Key was used before with a different request body")
                    }
                    return .replayed(earlier.map(\.job))
                }
            }
            for job in jobs where job.request.body?.refersToStoredContent ?? false {
                try await Self.checkBodySource(job.request.body, tenant: tenant, on: connection, logger: logger)
            }
            let ids = jobs.map { _ in UUID() }
            let statement = InsertJobBatchStatement(
                tenant: tenant, defaultMaxQueued: defaultMaxQueued, ids: ids, jobs: jobs, idempotencyKey: idempotencyKey,
                idempotencyHash: idempotencyKey == nil ? nil : bodyDigest)
            var inserted: [UUID: JobRecord] = [:]
            for try await job in try await connection.execute(statement, logger: logger) { inserted[job.id] = job }
            guard inserted.count == jobs.count else {
                // Throwing rolls back the jobs that were inserted.
                try await Self.explainRefusedBatch(
                    jobs, tenant: tenant, idempotencyKey: idempotencyKey, defaultMaxQueued: defaultMaxQueued, on: connection, logger: logger)
            }
            return .created(ids.compactMap { inserted[$0] })
        }
        if case .created = outcome { wakeup.ring() }
        return outcome
    }

    /// The jobs an earlier batch with these keys made, in the batch's order, with the body digest each
    /// was stored with.
    private static func jobs(
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

    /// Why the insert took fewer jobs than given: a session that is not usable, a queue without room
    /// for the whole batch, or (with a key) a concurrent request holding the same key.
    private static func explainRefusedBatch(
        _ jobs: [JobSpecification], tenant: UUID, idempotencyKey: String?, defaultMaxQueued: Int,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Never {
        var checked: Set<UUID> = []
        for session in jobs.compactMap(\.sessionID) where checked.insert(session).inserted {
            try await checkSession(session, tenant: tenant, on: connection, logger: logger)
        }
        try await checkQueueRoom(tenant: tenant, adding: jobs.count, defaultLimit: defaultMaxQueued, on: connection, logger: logger)
        guard idempotencyKey != nil else {
            // Only a full queue is left: it had no room when the insert ran, and has had some since.
            throw queueFull("this tenant's queue had no room for a batch of \(jobs.count); wait for some jobs to run")
        }
        throw Problem(.conflict, code: "idempotency_key_in_use", "a request with this Idempotency-Key is being processed; retry it")
    }
}
