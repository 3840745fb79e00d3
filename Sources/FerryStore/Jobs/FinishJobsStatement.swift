import FerryModel
import Foundation
import PostgresNIO

/// Writes how attempts ended and releases their leases, with each attempt's record and (for jobs
/// handed back to the queue) the workers' wake-up: one statement and one commit for every end that
/// `JobEndWriter` gathered. Returns the jobs that were still their worker's; an end whose lease was
/// lost writes nothing.
///
/// The ends come as one JSON array, read by `jsonb_to_recordset`: their fields are nullable, which
/// PostgreSQL arrays bound from Swift are not, and the response, result and decision are nested in
/// it as they are stored, encoded once. Both UPDATEs find their rows through the primary key
/// (`= ANY` of the ids) as well as the join, so statistics that say a table is empty (just after the
/// queue drained) cannot turn them into full scans. Prepared once per connection (why:
/// `ClaimJobsStatement`).
///
/// Each end's state and effects come from its transition, decided in Swift (`Completion.transition`);
/// the lease check stands for its `running` start state. The events of the new states and their
/// deliveries are written by the database: `JobEventsTrigger`.
struct FinishJobsStatement: PostgresPreparedStatement {
    typealias Row = UUID

    static let sql = """
        WITH given AS (
            SELECT * FROM jsonb_to_recordset($1::jsonb) AS g(
                job uuid, attempt integer, owner text, state text, bytes_done bigint, bytes_expected bigint,
                bytes_per_second bigint, response jsonb, result jsonb, error_code text, error_message text,
                resume_data text, retry_delay_us bigint, terminal boolean, decision jsonb,
                decision_timeout_seconds bigint, outcome text, http_status integer, wakes boolean)
        ), finished AS (
            UPDATE jobs SET state = g.state, lease_owner = NULL, lease_expires_at = NULL, stop_request = NULL,
                bytes_done = g.bytes_done, bytes_expected = g.bytes_expected, bytes_per_second = g.bytes_per_second,
                response = coalesce(g.response, jobs.response), result = g.result,
                error_code = g.error_code, error_message = g.error_message, resume_data = g.resume_data::jsonb,
                run_after = now() + g.retry_delay_us * interval '1 microsecond',
                finished_at = CASE WHEN g.terminal THEN now() ELSE NULL END,
                decision = g.decision,
                decision_deadline = now() + g.decision_timeout_seconds * interval '1 second'
            FROM given g
            WHERE jobs.id = ANY (ARRAY(SELECT job FROM given)) AND jobs.id = g.job AND jobs.lease_owner = g.owner
              AND jobs.attempt = g.attempt
            RETURNING jobs.id, g.attempt, g.outcome, g.error_code, g.http_status, g.bytes_done, g.wakes
        ), attempts AS (
            UPDATE job_attempts a SET finished_at = now(), outcome = f.outcome, error_code = f.error_code,
                http_status = f.http_status, bytes = f.bytes_done
            FROM finished f
            WHERE a.job_id = ANY (ARRAY(SELECT id FROM finished)) AND a.job_id = f.id AND a.attempt = f.attempt
        ), wake AS (
            SELECT pg_notify($2, '') WHERE EXISTS (SELECT 1 FROM finished WHERE wakes)
        )
        SELECT id, (SELECT count(*) FROM wake) FROM finished
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .text]

    /// One end, as `jsonb_to_recordset` reads it (absent fields are NULL).
    private struct Given: Encodable {
        var job: UUID
        var attempt: Int
        var owner: String
        var state: String
        var bytes_done: Int64
        var bytes_expected: Int64?
        var bytes_per_second: Int64?
        var response: JobRecord.StoredResponse?
        var result: JobRecord.StoredResult?
        var error_code: String?
        var error_message: String?
        var resume_data: String?
        var retry_delay_us: Int64
        var terminal: Bool
        var decision: PendingDecision?
        var decision_timeout_seconds: Int?
        var outcome: String
        var http_status: Int?
        /// A job handed back to the queue (shutdown) wakes the workers: rare, so it may commit in turn.
        var wakes: Bool

        init(_ end: JobEndWriter.End) {
            let completion = end.completion
            let transition = completion.transition
            job = end.job
            attempt = end.attempt
            owner = end.owner
            state = transition.to.rawValue
            bytes_done = completion.progress.bytesDone
            bytes_expected = completion.progress.bytesExpected
            bytes_per_second = completion.progress.bytesPerSecond
            response = completion.response
            result = completion.result
            error_code = completion.errorCode
            error_message = completion.errorMessage
            resume_data = completion.resumeData
            retry_delay_us = completion.retryDelay.map {
                Int64($0.components.seconds) * 1_000_000 + $0.components.attoseconds / 1_000_000_000_000
            } ?? 0
            terminal = transition.finishes
            decision = completion.decision
            decision_timeout_seconds = completion.decisionTimeoutSeconds
            outcome = completion.attemptOutcome
            http_status = completion.httpStatus
            wakes = transition.wakesWorkers
        }
    }

    var ends: [JobEndWriter.End]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(String(decoding: try JSONEncoder().encode(ends.map(Given.init)), as: UTF8.self))
        bindings.append(JobQueue.channel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((UUID, Int64).self).0
    }
}
