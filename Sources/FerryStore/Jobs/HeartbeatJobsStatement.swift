import Foundation
import PostgresNIO

/// Renews the leases of running jobs and stores their progress (and resume data, where given), in
/// one statement for every heartbeat `HeartbeatWriter` gathered; returns each job that is still its
/// worker's, with its stop request. A job missing from the rows has lost its lease.
///
/// The beats come as one JSON array, read by `jsonb_to_recordset`, as in `FinishJobsStatement` (and
/// for the same reasons: nullable fields, and rows found through the primary key). Prepared once per
/// connection (why: `ClaimJobsStatement`).
struct HeartbeatJobsStatement: PostgresPreparedStatement {
    typealias Row = (UUID, String?)

    static let sql = """
        WITH given AS (
            SELECT * FROM jsonb_to_recordset($1::jsonb) AS g(
                job uuid, attempt integer, owner text, lease_seconds integer, bytes_done bigint,
                bytes_expected bigint, bytes_per_second bigint, resume_data text)
        )
        UPDATE jobs SET bytes_done = g.bytes_done, bytes_expected = g.bytes_expected,
            bytes_per_second = g.bytes_per_second, resume_data = coalesce(g.resume_data::jsonb, jobs.resume_data),
            lease_expires_at = now() + g.lease_seconds * interval '1 second'
        FROM given g
        WHERE jobs.id = ANY (ARRAY(SELECT job FROM given)) AND jobs.id = g.job AND jobs.lease_owner = g.owner
          AND jobs.attempt = g.attempt AND jobs.state = 'running'
        RETURNING jobs.id, jobs.stop_request
        """
    static let bindingDataTypes: [PostgresDataType] = [.text]

    /// One beat, as `jsonb_to_recordset` reads it (absent fields are NULL).
    private struct Given: Encodable {
        var job: UUID
        var attempt: Int
        var owner: String
        var lease_seconds: Int
        var bytes_done: Int64
        var bytes_expected: Int64?
        var bytes_per_second: Int64?
        /// Sealed already (`SealedResumeData`).
        var resume_data: String?

        init(_ beat: HeartbeatWriter.Beat) {
            job = beat.job
            attempt = beat.attempt
            owner = beat.owner
            lease_seconds = beat.leaseSeconds
            bytes_done = beat.progress.bytesDone
            bytes_expected = beat.progress.bytesExpected
            bytes_per_second = beat.progress.bytesPerSecond
            resume_data = beat.sealedResumeData
        }
    }

    var beats: [HeartbeatWriter.Beat]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(String(decoding: try JSONEncoder().encode(beats.map(Given.init)), as: UTF8.self))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
