import FerryModel
import Foundation
import PostgresNIO

/// Inserts a batch of submitted jobs in one statement (`JobStore.submitBatch`), if the tenant's queue
/// has room for all of them and each job's session (if any) is the tenant's and takes jobs. Returns
/// the jobs inserted: fewer than given means the batch must be refused (its transaction rolls back).
///
/// The jobs come as one array per column. Their ids are made here, so that the rows coming back can
/// be put in the order given; `created_at` grows by a microsecond per job, so that they run (and are
/// listed) in that order too, as jobs submitted one after another would.
///
/// A job starts in the column default, `JobStateMachine.initialState`; its job.queued event and the
/// event's deliveries are written by the database: `JobEventsTrigger`.
struct InsertJobBatchStatement: PostgresPreparedStatement {
    typealias Row = JobRecord

    static let sql = """
        WITH room AS (
            SELECT (SELECT count(*) FROM jobs WHERE tenant_id = $1 AND state IN (\(JobStateSQL.claimable))) AS queued,
                   coalesce((SELECT max_queued_jobs FROM tenants WHERE id = $1), $2) AS cap
        ), given AS (
            SELECT * FROM unnest($3::uuid[], $4::text[], $5::text[], $6::int8[], $7::text[], $8::text[], $9::int8[])
                WITH ORDINALITY AS g(id, session_id, kind, priority, request, policies, max_attempts, position)
        ), inserted AS (
            INSERT INTO jobs (id, tenant_id, session_id, kind, priority, request, policies, max_attempts,
                              idempotency_key, idempotency_hash, created_at, run_after)
            SELECT g.id, $1, nullif(g.session_id, '')::uuid, g.kind, g.priority, g.request::jsonb, g.policies::jsonb, g.max_attempts,
                   $10 || ' ' || (g.position - 1), $11, now() + (g.position - 1) * interval '1 microsecond',
                   \(JobStateSQL.earliestRun(policies: "g.policies::jsonb"))
            FROM given g, room
            WHERE room.queued + cardinality($3::uuid[]) <= room.cap
              AND (g.session_id = '' OR EXISTS (
                  SELECT 1 FROM sessions s WHERE s.id = nullif(g.session_id, '')::uuid AND s.tenant_id = $1 AND s.invalidated_at IS NULL))
            ORDER BY g.position
            ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING *
        )
        SELECT \(JobRecord.columns) FROM inserted
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .uuid, .int8, .uuidArray, .textArray, .textArray, .int8Array, .textArray, .textArray, .int8Array, .text, .bytea,
    ]

    var tenant: UUID
    var defaultMaxQueued: Int
    var ids: [UUID]
    var jobs: [JobSpecification]
    /// Each job's request as stored, its credential-bearing values sealed for its id.
    var storedRequests: [String]
    /// Job i's key is this, a space and i: a space cannot appear in a single job's key, so the two
    /// never collide.
    var idempotencyKey: String?
    var idempotencyHash: Data?
    /// A batch's jobs mostly share their policies.
    let repeated = RepeatedJSONTexts()

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 11)
        bindings.append(tenant)
        bindings.append(defaultMaxQueued)
        bindings.append(ids)
        bindings.append(jobs.map { $0.sessionID?.uuidString ?? "" })
        bindings.append(jobs.map(\.kind.rawValue))
        bindings.append(jobs.map(\.priority))
        bindings.append(storedRequests)
        bindings.append(jobs.map { JobSpecification.json($0.policies) })
        bindings.append(jobs.map(\.maxAttempts))
        bindings.append(idempotencyKey)
        try bindings.append(idempotencyHash)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try JobRecord(row: row, repeated: repeated)
    }

    static func idempotencyKeys(_ key: String, count: Int) -> [String] {
        (0..<count).map { "\(key) \($0)" }
    }
}
