import FerryModel
import Foundation
import PostgresNIO

/// Inserts a submitted job if its tenant's queue has room and its session (if any) takes jobs, in one
/// statement (`JobStore.submit`). Returns the job, and with `countRoom` the tenant's waiting jobs
/// (this one included) and limit; without it the queue is not counted (`QueueRoomEstimates` said
/// there is room) and those two are 1 and the limit.
///
/// Prepared once per connection, with its parameter types given (why: `ClaimJobsStatement`).
///
/// A job starts in the column default, `JobStateMachine.initialState`; its job.queued event and the
/// event's deliveries are written by the database: `JobEventsTrigger`.
struct InsertJobStatement: PostgresPreparedStatement {
    typealias Row = (job: JobRecord, waiting: Int64, limit: Int64)

    static let sql = """
        WITH room AS (
            SELECT CASE WHEN $1 THEN (SELECT count(*) FROM jobs WHERE tenant_id = $2 AND state IN (\(JobStateSQL.claimable)))
                        ELSE 0 END AS queued,
                   coalesce((SELECT max_queued_jobs FROM tenants WHERE id = $2), $3) AS cap
        ), inserted AS (
            INSERT INTO jobs (id, tenant_id, session_id, kind, priority, request, policies, max_attempts, idempotency_key, idempotency_hash,
                              run_after)
            SELECT $12, $2, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11, \(JobStateSQL.earliestRun(policies: "$8::jsonb"))
            FROM room WHERE room.queued < room.cap
              AND ($4::uuid IS NULL OR EXISTS (
                  SELECT 1 FROM sessions s WHERE s.id = $4 AND s.tenant_id = $2 AND s.invalidated_at IS NULL))
            ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING *
        )
        SELECT \(JobRecord.columns), (SELECT queued + 1 FROM room)::bigint, (SELECT cap FROM room)::bigint FROM inserted
        """
    static let bindingDataTypes: [PostgresDataType] = [.bool, .uuid, .int8, .uuid, .text, .int8, .text, .text, .int8, .text, .bytea, .uuid]

    var countRoom: Bool
    var tenant: UUID
    var defaultMaxQueued: Int
    /// Chosen here, since the request's sealed values name it (`SealedJobRequest`).
    var id: UUID
    var job: JobSpecification
    /// `job.request` as stored: its credential-bearing values sealed.
    var storedRequest: String
    var idempotencyKey: String?
    var idempotencyHash: Data?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 12)
        bindings.append(countRoom)
        bindings.append(tenant)
        bindings.append(defaultMaxQueued)
        bindings.append(job.sessionID)
        bindings.append(job.kind.rawValue)
        bindings.append(job.priority)
        bindings.append(storedRequest)
        bindings.append(JobSpecification.json(job.policies))
        bindings.append(job.maxAttempts)
        bindings.append(idempotencyKey)
        try bindings.append(idempotencyHash)
        bindings.append(id)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let columns = row.makeRandomAccess()
        return (try JobRecord(row: row), try columns[JobRecord.columnCount].decode(Int64.self), try columns[JobRecord.columnCount + 1].decode(Int64.self))
    }
}
