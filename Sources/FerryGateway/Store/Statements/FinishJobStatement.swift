import Foundation
import PostgresNIO

/// Writes how an attempt ended and releases the lease, together with the attempt's record and (for a
/// job handed back to the queue) the workers' wake-up: one statement, one commit (`JobQueue.finish`).
/// Returns whether the job was still this worker's.
///
/// Prepared once per connection, as are the other statements in this folder: sent as text, these
/// statements were parsed, analysed and planned on every execution, about 40% of PostgreSQL's CPU in
/// the P3 bench. Parameter types are given, since a nil in the first call would leave one open.
struct FinishJobStatement: PostgresPreparedStatement {
    typealias Row = Bool

    static let sql = """
        WITH finished AS (
            UPDATE jobs SET state = $4, lease_owner = NULL, lease_expires_at = NULL, stop_request = NULL,
                bytes_done = $5, bytes_expected = $6, bytes_per_second = $7,
                response = coalesce($8::jsonb, response), result = $9::jsonb,
                error_code = $10, error_message = $11, resume_data = $12::jsonb,
                run_after = now() + $13 * interval '1 microsecond',
                finished_at = CASE WHEN $14 THEN now() ELSE NULL END,
                decision = $15::jsonb,
                decision_deadline = now() + $16 * interval '1 second'
            WHERE id = $1 AND lease_owner = $3 AND attempt = $2
            RETURNING id
        ), attempt AS (
            UPDATE job_attempts SET finished_at = now(), outcome = $17, error_code = $10, http_status = $18, bytes = $5
            WHERE job_id = $1 AND attempt = $2 AND EXISTS (SELECT 1 FROM finished)
        ), wake AS (
            SELECT pg_notify($20, '') WHERE $19 AND EXISTS (SELECT 1 FROM finished)
        )
        SELECT EXISTS (SELECT 1 FROM finished), (SELECT count(*) FROM wake)
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .uuid, .int8, .text, .text, .int8, .int8, .int8, .text, .text, .text,
        .text, .text, .int8, .bool, .text, .int8, .text, .int8, .bool, .text,
    ]

    var job: UUID
    var attempt: Int
    var owner: String
    var completion: JobQueue.Completion

    func makeBindings() throws -> PostgresBindings {
        let delay = completion.retryDelay.map { Int64($0.components.seconds) * 1_000_000 + $0.components.attoseconds / 1_000_000_000_000 } ?? 0
        var bindings = PostgresBindings(capacity: 20)
        bindings.append(job)
        bindings.append(attempt)
        bindings.append(owner)
        bindings.append(completion.state.rawValue)
        bindings.append(completion.progress.bytesDone)
        bindings.append(completion.progress.bytesExpected)
        bindings.append(completion.progress.bytesPerSecond)
        bindings.append(completion.response.map { JobSpecification.json($0) })
        bindings.append(completion.result.map { JobSpecification.json($0) })
        bindings.append(completion.errorCode)
        bindings.append(completion.errorMessage)
        bindings.append(completion.resumeData)
        bindings.append(delay)
        bindings.append(completion.state.isTerminal)
        bindings.append(completion.decision.map { JobSpecification.json($0) })
        bindings.append(completion.decisionTimeoutSeconds)
        bindings.append(completion.attemptOutcome)
        bindings.append(completion.httpStatus)
        // A job handed back to the queue (shutdown) wakes the workers: rare, so it may commit in turn.
        bindings.append(completion.state == .queued)
        bindings.append(JobQueue.channel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (updated, _) = try row.decode((Bool, Int64).self)
        return updated
    }
}
