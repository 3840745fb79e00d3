import FerryModel
import FerryVault
import Foundation
import PostgresNIO

/// Claims up to `limit` waiting jobs for a worker in one statement (`JobQueue.claim`, which says how
/// tenants take turns), returning each with its earlier failures, its session's settings and kind,
/// the answers to its earlier decisions, and whether its owner has cookies or connection credentials
/// stored (`OwnerStoredState`).
///
/// The plan must not depend on how fresh the table's statistics are, nor on the values (a prepared
/// statement soon runs a generic plan): a queue filled within seconds still looks empty to the
/// planner, which then joined the ranked candidates to every waiting job and ranked them again for
/// each (220 ms a claim with 2,000 queued). So `ranked` is computed once (MATERIALIZED), and the
/// candidates, in turn order, are locked one by one through the primary key until `limit` are held
/// (`IS TRUE` keeps the planner from choosing the partial index, whose predicate the plain `IN`
/// matches, and scanning all of it for each id). The UPDATE then finds the picked jobs through the
/// primary key (`= ANY` of their ids) rather than a join: statistics taken just after the queue
/// drained say the table is empty, and the join's plan then read every job once per claim.
///
/// A tenant's running jobs are counted only for the tenants that have jobs waiting, each through
/// `jobs_by_tenant_state`: a count of every tenant's running jobs at once has no index that leads
/// with the state, so it read every entry of that index, one per job ever kept (about 1 ms a claim at
/// 200,000 kept jobs, 0.02 ms for the waiting tenant).
///
/// Discretionary jobs (BG-05, BG-17) come after every other waiting job, of every tenant: a worker
/// takes one only when nothing else is left for it (`jobs_claimable_in_order`, migrations/0018).
///
/// Prepared once per connection, as are the other statements in this folder: sent as text, these
/// statements were parsed, analysed and planned on every execution, about 40% of PostgreSQL's CPU in
/// the P3 bench. Parameter types are given, since a nil in the first call would leave one open.
///
/// The states are the claim's transitions (`JobStateSQL.claimable`, `.claimed`); the job.running
/// events and their deliveries are written by the database: `JobEventsTrigger`.
struct ClaimJobsStatement: PostgresPreparedStatement {
    typealias Row = JobQueue.Claim

    static let sql = """
        WITH RECURSIVE waiting_tenants AS (
            (SELECT tenant_id FROM jobs WHERE state IN (\(JobStateSQL.claimable)) ORDER BY tenant_id LIMIT 1)
            UNION ALL
            SELECT (SELECT j.tenant_id FROM jobs j WHERE j.state IN (\(JobStateSQL.claimable)) AND j.tenant_id > w.tenant_id
                    ORDER BY j.tenant_id LIMIT 1)
            FROM waiting_tenants w WHERE w.tenant_id IS NOT NULL
        ), ranked AS MATERIALIZED (
            SELECT c.id AS job_id,
                   r.n + row_number() OVER (PARTITION BY t.id ORDER BY c.discretionary, c.priority DESC, c.created_at, c.id) AS turn,
                   coalesce(t.max_running_jobs, $1) AS cap,
                   tt.last_claimed_at AS last_claimed_at, c.discretionary AS discretionary, c.priority AS priority, c.created_at AS created_at
            FROM waiting_tenants w
            JOIN tenants t ON t.id = w.tenant_id AND t.disabled_at IS NULL
            LEFT JOIN tenant_turns tt ON tt.tenant_id = t.id
            CROSS JOIN LATERAL (
                SELECT count(*) AS n FROM jobs r WHERE r.tenant_id = t.id AND r.state = \(JobStateSQL.claimed)
            ) r
            CROSS JOIN LATERAL (
                SELECT j.id, j.discretionary, j.priority, j.created_at FROM jobs j
                WHERE j.tenant_id = t.id AND j.state IN (\(JobStateSQL.claimable)) AND j.run_after <= now()
                ORDER BY j.discretionary, j.priority DESC, j.created_at, j.id
                LIMIT $2
            ) c
        ), picked AS (
            SELECT j.id AS job_id
            FROM (SELECT job_id FROM ranked WHERE turn <= cap
                  ORDER BY discretionary, turn, last_claimed_at NULLS FIRST, priority DESC, created_at) k
            CROSS JOIN LATERAL (
                SELECT id FROM jobs
                WHERE id = k.job_id AND (state IN (\(JobStateSQL.claimable))) IS TRUE AND run_after <= now()
                FOR UPDATE SKIP LOCKED
            ) j
            LIMIT $3
        ), claimed AS (
            UPDATE jobs SET state = \(JobStateSQL.claimed), attempt = attempt + 1, lease_owner = $4,
                lease_expires_at = now() + $5 * interval '1 second', stop_request = NULL
            WHERE jobs.id = ANY (ARRAY(SELECT job_id FROM picked))
            RETURNING jobs.*
        ), attempts AS (
            INSERT INTO job_attempts (job_id, attempt, worker) SELECT id, attempt, $4 FROM claimed
        ), served AS (
            INSERT INTO tenant_turns (tenant_id, last_claimed_at) SELECT DISTINCT tenant_id, now() FROM claimed
            ON CONFLICT (tenant_id) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at
        )
        SELECT \(JobRecord.columns),
               (SELECT count(*) FROM job_attempts a WHERE a.job_id = claimed.id AND a.outcome = 'retrying')::bigint,
               (SELECT s.configuration::text FROM sessions s WHERE s.id = claimed.session_id),
               (SELECT s.kind FROM sessions s WHERE s.id = claimed.session_id),
               claimed.decision_answers::text,
               EXISTS (SELECT 1 FROM session_cookies c
                       WHERE c.session_id = claimed.session_id AND (c.expires_at IS NULL OR c.expires_at > now())),
               EXISTS (SELECT 1 FROM credentials k
                       WHERE k.tenant_id = claimed.tenant_id AND k.method IN ('server_trust', 'client_certificate')
                         AND (k.persistence = 'permanent' OR k.session_id = claimed.session_id))
        FROM claimed
        """
    static let bindingDataTypes: [PostgresDataType] = [.int8, .int8, .int8, .text, .int8]

    var defaultMaxRunningJobs: Int
    /// How many of each tenant's first waiting jobs are ranked: more than `limit`, since some may be
    /// locked by another worker's claim.
    var candidatesPerTenant: Int
    var limit: Int
    var owner: String
    var leaseSeconds: Int
    /// Opens the job's sealed headers and resume data and its session's secrets: the worker sends them.
    var keyring: VaultKeyring
    /// The claimed jobs mostly share their policies, session and (no) decision answers.
    let repeated = RepeatedJSONTexts()

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(defaultMaxRunningJobs)
        bindings.append(candidatesPerTenant)
        bindings.append(limit)
        bindings.append(owner)
        bindings.append(leaseSeconds)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let columns = row.makeRandomAccess()
        let failures = try columns[JobRecord.columnCount].decode(Int64.self)
        let sessionID = try columns[2].decode(UUID?.self)
        let sessionText = try columns[JobRecord.columnCount + 1].decode(String?.self)
        let sessionKind = try columns[JobRecord.columnCount + 2].decode(String?.self)
        let answers = try repeated.value([String: StoredDecisionAnswer].self, json: try columns[JobRecord.columnCount + 3].decode(String.self))
        let stored = OwnerStoredState(
            cookies: try columns[JobRecord.columnCount + 4].decode(Bool.self),
            connectionCredentials: try columns[JobRecord.columnCount + 5].decode(Bool.self))
        // A value that does not open must not fail the whole claim (its jobs are already running):
        // the job is handed to its runner redacted, with the reason, and fails there.
        let opened: (job: JobRecord, session: SessionSettings?, unopenable: String?)
        do {
            opened = (
                try JobRecord(row: row, reading: .open(keyring), repeated: repeated),
                try sessionText.map { try session($0, id: sessionID, reading: .open(keyring)) }, nil)
        } catch let error as VaultError {
            opened = (
                try JobRecord(row: row, repeated: repeated),
                try sessionText.map { try session($0, id: sessionID, reading: .redact) }, "\(error)")
        }
        return JobQueue.Claim(
            job: opened.job, earlierFailures: Int(failures), session: opened.session, sessionKind: sessionKind, decisionAnswers: answers,
            stored: stored, unopenableSecret: opened.unopenable)
    }

    /// A session's settings, opened or redacted, decoded once for all its jobs in the claim.
    private func session(_ text: String, id: UUID?, reading: SecretReading) throws -> SessionSettings {
        let id = id ?? UUID()
        let opens = if case .open = reading { true } else { false }
        let context = id.uuidString + (opens ? " opened" : " redacted")
        return try repeated.value(SessionSettings.self, json: text, context: context) {
            try SealedSessionConfiguration.decode($0, session: id, reading: reading)
        }
    }
}
