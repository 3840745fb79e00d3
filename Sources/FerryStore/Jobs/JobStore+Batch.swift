import FerryModel
import Foundation
import Logging
import PostgresNIO
import URLLoading

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
        let keyring = self.keyring
        let outcome = try await client.transaction(logger: logger) { connection -> SubmitBatchOutcome in
            if let key = idempotencyKey {
                let keys = InsertJobBatchStatement.idempotencyKeys(key, count: jobs.count)
                let earlier = try await Self.jobs(idempotencyKeys: keys, tenant: tenant, on: connection, logger: logger)
                if !earlier.isEmpty {
                    guard earlier.allSatisfy({ $0.hash == bodyDigest }) else {
                        throw GatewayError(.conflict, code: "idempotency_key_reused",
                                      "this Idempotency-Key was used before with a different request body")
                    }
                    return .replayed(earlier.map(\.job))
                }
            }
            for job in jobs where job.request.body?.refersToStoredContent ?? false {
                try await Self.checkBodySource(job.request.body, tenant: tenant, on: connection, logger: logger)
            }
            let ids = jobs.map { _ in UUID.random() }
            let requests = try zip(ids, jobs).map { id, job in try SealedJobRequest.json(job.request, job: id, keyring: keyring) }
            let statement = InsertJobBatchStatement(
                tenant: tenant, defaultMaxQueued: defaultMaxQueued, ids: ids, jobs: jobs, storedRequests: requests, idempotencyKey: idempotencyKey,
                idempotencyHash: idempotencyKey == nil ? nil : bodyDigest)
            var inserted: [UUID: JobRecord] = [:]
            for try await job in try await connection.execute(statement, logger: logger) { inserted[job.id] = job }
            guard inserted.count == jobs.count else {
                // Throwing rolls back the jobs that were inserted.
                try await Self.explainRefused(
                    jobs, tenant: tenant, idempotencyKey: idempotencyKey, defaultMaxQueued: defaultMaxQueued, on: connection, logger: logger)
            }
            return .created(ids.compactMap { inserted[$0] })
        }
        if case .created = outcome { wakeup.ring() }
        return outcome
    }
}
