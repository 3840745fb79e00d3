import Foundation
import PostgresNIO

extension JobStore {
    /// One run of a job by a worker (`job_attempts`), as the job's page shows it.
    public struct Attempt: Sendable {
        public var attempt: Int
        public var startedAt: Date
        /// Nil while it runs.
        public var finishedAt: Date?
        /// succeeded, failed, retrying, paused, cancelled, interrupted (its worker lost the lease); nil while it runs.
        public var outcome: String?
        public var errorCode: String?
        public var httpStatus: Int?
        /// Bytes it received.
        public var bytes: Int64
    }

    /// The job's attempts, first first; nil when the job does not exist in `scope`.
    public func attempts(of id: UUID, scope: Scope) async throws -> [Attempt]? {
        // The left join keeps the job's row when it has no attempt yet: a found job with none is [].
        let rows = try await client.query(
            """
            SELECT a.attempt, a.started_at, a.finished_at, a.outcome, a.error_code, a.http_status, a.bytes
            FROM jobs j LEFT JOIN job_attempts a ON a.job_id = j.id
            WHERE j.id = \(id) AND (\(scope.tenantID)::uuid IS NULL OR j.tenant_id = \(scope.tenantID))
            ORDER BY a.attempt
            """, logger: logger)
        var found = false
        var attempts: [Attempt] = []
        for try await (attempt, started, finished, outcome, errorCode, status, bytes) in rows.decode(
            (Int?, Date?, Date?, String?, String?, Int?, Int64?).self)
        {
            found = true
            guard let attempt, let started else { continue }
            attempts.append(Attempt(
                attempt: attempt, startedAt: started, finishedAt: finished, outcome: outcome, errorCode: errorCode, httpStatus: status,
                bytes: bytes ?? 0))
        }
        return found ? attempts : nil
    }
}
