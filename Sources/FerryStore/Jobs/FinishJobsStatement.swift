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
/// it as they are stored, encoded once (`Given.write`, and `JobRecord+JSONText` for the nested
/// response and result). Prepared once per connection (why: `ClaimJobsStatement`), so each plan lives
/// on after the statistics and the table sizes it was made for:
/// - The UPDATE of `jobs` finds its rows through the primary key (`= ANY` of the ids) as well as the
///   join, so that statistics that say the table is empty (just after the queue drained) cannot turn
///   it into a scan of every job kept.
/// - Each attempt's row is reached by an upsert on its primary key, which goes through the unique
///   index whatever the planner believes. The `UPDATE ... FROM finished` it replaces was planned as
///   a scan of all of `job_attempts` whenever the table had fewer pages than ten probes of its index
///   cost (a fresh database, a queue that drained), and that plan stayed while the table filled: in
///   bench P3 it read a million rows for 8,000 ends (`FinishJobsPlanTests`). The row always exists
///   (the claim inserted it); the INSERT half only keeps the statement total.
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
            RETURNING jobs.id, g.attempt, g.owner, g.outcome, g.error_code, g.http_status, g.bytes_done, g.wakes
        ), attempts AS (
            INSERT INTO job_attempts (job_id, attempt, worker, finished_at, outcome, error_code, http_status, bytes)
            SELECT f.id, f.attempt, f.owner, now(), f.outcome, f.error_code, f.http_status, f.bytes_done FROM finished f
            ON CONFLICT (job_id, attempt) DO UPDATE SET finished_at = EXCLUDED.finished_at, outcome = EXCLUDED.outcome,
                error_code = EXCLUDED.error_code, http_status = EXCLUDED.http_status, bytes = EXCLUDED.bytes
        ), wake AS (
            SELECT pg_notify($2, '') WHERE EXISTS (SELECT 1 FROM finished WHERE wakes)
        )
        SELECT id, (SELECT count(*) FROM wake) FROM finished
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .text]

    /// One end, as `jsonb_to_recordset` reads it (absent fields are NULL).
    private struct Given {
        var job: UUID
        var attempt: Int
        var owner: String
        var state: String
        var bytesDone: Int64
        var bytesExpected: Int64?
        var bytesPerSecond: Int64?
        var response: JobRecord.StoredResponse?
        var result: JobRecord.StoredResult?
        var errorCode: String?
        var errorMessage: String?
        var resumeData: String?
        var retryDelayMicroseconds: Int64
        var terminal: Bool
        var decision: PendingDecision?
        var decisionTimeoutSeconds: Int?
        var outcome: String
        var httpStatus: Int?
        /// A job handed back to the queue (shutdown) wakes the workers: rare, so it may commit in turn.
        var wakes: Bool

        init(_ end: JobEndWriter.End) {
            let completion = end.completion
            let transition = completion.transition
            job = end.job
            attempt = end.attempt
            owner = end.owner
            state = transition.to.rawValue
            bytesDone = completion.progress.bytesDone
            bytesExpected = completion.progress.bytesExpected
            bytesPerSecond = completion.progress.bytesPerSecond
            response = completion.response
            result = completion.result
            errorCode = completion.errorCode
            errorMessage = completion.errorMessage
            resumeData = completion.resumeData
            retryDelayMicroseconds = completion.retryDelay.map {
                Int64($0.components.seconds) * 1_000_000 + $0.components.attoseconds / 1_000_000_000_000
            } ?? 0
            terminal = transition.finishes
            decision = completion.decision
            decisionTimeoutSeconds = completion.decisionTimeoutSeconds
            outcome = completion.attemptOutcome
            httpStatus = completion.httpStatus
            wakes = transition.wakesWorkers
        }

        /// Written by hand (`JSONText`): `JSONEncoder` took about 25 µs an end, a job's largest cost
        /// in ferryd after the transfer itself. A pending decision, rare, still goes through it.
        func write(into json: inout JSONText) throws {
            try json.object { json in
                json.member("job", job.lowercasedString)
                json.member("attempt", attempt)
                json.member("owner", owner)
                json.member("state", state)
                json.member("bytes_done", bytesDone)
                json.member("bytes_expected", bytesExpected)
                json.member("bytes_per_second", bytesPerSecond)
                if let response {
                    json.key("response")
                    response.write(into: &json)
                }
                if let result {
                    json.key("result")
                    result.write(into: &json)
                }
                json.member("error_code", errorCode)
                json.member("error_message", errorMessage)
                json.member("resume_data", resumeData)
                json.member("retry_delay_us", retryDelayMicroseconds)
                json.member("terminal", terminal)
                if let decision {
                    json.key("decision")
                    json.encoded(try JSONEncoder().encode(decision))
                }
                json.member("decision_timeout_seconds", decisionTimeoutSeconds)
                json.member("outcome", outcome)
                json.member("http_status", httpStatus)
                json.member("wakes", wakes)
            }
        }
    }

    var ends: [JobEndWriter.End]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        var json = JSONText(capacity: 1024 * ends.count)
        try json.array(ends) { json, end in try Given(end).write(into: &json) }
        bindings.append(json.text)
        bindings.append(JobQueue.channel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((UUID, Int64).self).0
    }
}
