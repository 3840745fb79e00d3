import Foundation
import Logging
import PostgresNIO

/// The workers' side of `jobs`: claiming, lease renewal with progress, finishing, and taking back
/// jobs whose worker died. Every write of a claimed job names its lease owner and attempt, so a
/// worker that lost its lease (stalled, then came back) can never overwrite the job's new attempt,
/// even one its own process claimed.
public struct JobQueue: Sendable {
    /// NOTIFY channel: a job became claimable (submitted, resumed, released).
    public static let channel = "ferry_jobs"
    /// NOTIFY channel: a running job was asked to pause or cancel; the payload is its id.
    public static let stopChannel = "ferry_job_stops"

    let client: PostgresClient
    let logger: Logger
    /// Running-job limit for tenants without their own (`tenants.max_running_jobs`).
    let defaultMaxRunningJobs: Int

    public init(client: PostgresClient, logger: Logger, defaultMaxRunningJobs: Int = 64) {
        self.client = client
        self.logger = logger
        self.defaultMaxRunningJobs = defaultMaxRunningJobs
    }

    /// Waiting jobs read per tenant beyond the claim's limit: jobs another claimer holds locked right
    /// now are skipped, and the next ones must be there to take their place.
    static let claimSlack = 32

    /// A job a worker now holds.
    public struct Claim: Sendable {
        public var job: JobRecord
        /// Attempts of this job that failed and were retried before this one.
        public var earlierFailures: Int
        /// The configuration of the gateway session the job runs in, if any.
        public var session: SessionSettings?
        /// That session's kind (`default`, `ephemeral`, `background`).
        public var sessionKind: String?
        /// The client's answers to the job's earlier decisions, by decision id.
        var decisionAnswers: [String: StoredDecisionAnswer] = [:]
    }

    /// Claims up to `limit` jobs in one statement (`FOR UPDATE SKIP LOCKED`, so concurrent workers in
    /// any number of processes never get the same job).
    ///
    /// Fairness: each tenant's waiting jobs are numbered by priority then age; a job's turn is its
    /// number plus the jobs its tenant already runs. Lowest turn first, and among equal turns the
    /// tenant served least recently, means tenants take turns: one tenant's 10,000 queued jobs do not
    /// keep another's single job waiting. A tenant at its running limit is skipped.
    ///
    /// Only the first few waiting jobs of each tenant can be picked, so only those are read: the
    /// tenants with waiting jobs are found by skipping through `jobs_claimable` one tenant at a time,
    /// and each one's first `limit + claimSlack` jobs come from the same index, already in turn order.
    ///
    /// The plan must not depend on how fresh the table's statistics are: a queue filled within
    /// seconds still looks empty to the planner, which then joined the ranked candidates to every
    /// waiting job and ranked them again for each (220 ms a claim with 2,000 queued). So `ranked` is
    /// computed once (MATERIALIZED), and the candidates, in turn order, are locked one by one through
    /// the primary key until `limit` are held (`IS TRUE` keeps the planner from choosing the partial
    /// index, whose predicate the plain `IN` matches, and scanning all of it for each id).
    public func claim(owner: String, limit: Int, leaseSeconds: Int) async throws -> [Claim] {
        let candidatesPerTenant = limit + Self.claimSlack
        let rows = try await client.query(
            """
            WITH RECURSIVE waiting_tenants AS (
                (SELECT tenant_id FROM jobs WHERE state IN ('queued', 'retrying') ORDER BY tenant_id LIMIT 1)
                UNION ALL
                SELECT (SELECT j.tenant_id FROM jobs j WHERE j.state IN ('queued', 'retrying') AND j.tenant_id > w.tenant_id
                        ORDER BY j.tenant_id LIMIT 1)
                FROM waiting_tenants w WHERE w.tenant_id IS NOT NULL
            ), running AS (
                SELECT tenant_id, count(*) AS n FROM jobs WHERE state = 'running' GROUP BY tenant_id
            ), ranked AS MATERIALIZED (
                SELECT c.id AS job_id,
                       coalesce(r.n, 0) + row_number() OVER (PARTITION BY t.id ORDER BY c.priority DESC, c.created_at, c.id) AS turn,
                       coalesce(t.max_running_jobs, \(defaultMaxRunningJobs)) AS cap,
                       tt.last_claimed_at AS last_claimed_at, c.priority AS priority, c.created_at AS created_at
                FROM waiting_tenants w
                JOIN tenants t ON t.id = w.tenant_id AND t.disabled_at IS NULL
                LEFT JOIN tenant_turns tt ON tt.tenant_id = t.id
                LEFT JOIN running r ON r.tenant_id = t.id
                CROSS JOIN LATERAL (
                    SELECT j.id, j.priority, j.created_at FROM jobs j
                    WHERE j.tenant_id = t.id AND j.state IN ('queued', 'retrying') AND j.run_after <= now()
                    ORDER BY j.priority DESC, j.created_at, j.id
                    LIMIT \(candidatesPerTenant)
                ) c
            ), picked AS (
                SELECT j.id AS job_id
                FROM (SELECT job_id FROM ranked WHERE turn <= cap
                      ORDER BY turn, last_claimed_at NULLS FIRST, priority DESC, created_at) k
                CROSS JOIN LATERAL (
                    SELECT id FROM jobs
                    WHERE id = k.job_id AND (state IN ('queued', 'retrying')) IS TRUE AND run_after <= now()
                    FOR UPDATE SKIP LOCKED
                ) j
                LIMIT \(limit)
            ), claimed AS (
                UPDATE jobs SET state = 'running', attempt = attempt + 1, lease_owner = \(owner),
                    lease_expires_at = now() + \(leaseSeconds) * interval '1 second', stop_request = NULL
                FROM picked WHERE jobs.id = picked.job_id
                RETURNING jobs.*
            ), attempts AS (
                INSERT INTO job_attempts (job_id, attempt, worker) SELECT id, attempt, \(owner) FROM claimed
            ), served AS (
                INSERT INTO tenant_turns (tenant_id, last_claimed_at) SELECT DISTINCT tenant_id, now() FROM claimed
                ON CONFLICT (tenant_id) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at
            )
            SELECT \(unescaped: JobRecord.columns),
                   (SELECT count(*) FROM job_attempts a WHERE a.job_id = claimed.id AND a.outcome = 'retrying')::bigint,
                   (SELECT s.configuration::text FROM sessions s WHERE s.id = claimed.session_id),
                   (SELECT s.kind FROM sessions s WHERE s.id = claimed.session_id),
                   claimed.decision_answers::text
            FROM claimed
            """, logger: logger)
        var claims: [Claim] = []
        for try await row in rows {
            let columns = row.makeRandomAccess()
            let failures = try columns[JobRecord.columnCount].decode(Int64.self)
            let session = try columns[JobRecord.columnCount + 1].decode(String?.self).map { try JobSpecification.decode(SessionSettings.self, json: $0) }
            let sessionKind = try columns[JobRecord.columnCount + 2].decode(String?.self)
            let answers = try JobSpecification.decode([String: StoredDecisionAnswer].self, json: try columns[JobRecord.columnCount + 3].decode(String.self))
            claims.append(Claim(
                job: try JobRecord(row: row), earlierFailures: Int(failures), session: session, sessionKind: sessionKind, decisionAnswers: answers))
        }
        return claims
    }

    /// Progress as the worker last saw it.
    public struct Progress: Sendable, Equatable {
        public var bytesDone: Int64
        public var bytesExpected: Int64?
        public var bytesPerSecond: Int64?
    }

    /// What a heartbeat learns.
    public enum HeartbeatAnswer: Sendable, Equatable {
        case carryOn
        case stopRequested(String)
        /// Another worker holds the job now: stop, and write nothing more.
        case leaseLost
    }

    /// Renews the lease, stores progress (and resume data, when given), and reads any stop request.
    public func heartbeat(
        job: UUID, attempt: Int, owner: String, leaseSeconds: Int, progress: Progress, resumeData: String?
    ) async throws -> HeartbeatAnswer {
        let rows = try await client.query(
            """
            UPDATE jobs SET bytes_done = \(progress.bytesDone), bytes_expected = \(progress.bytesExpected),
                bytes_per_second = \(progress.bytesPerSecond),
                resume_data = coalesce(\(resumeData)::jsonb, resume_data),
                lease_expires_at = now() + \(leaseSeconds) * interval '1 second'
            WHERE id = \(job) AND lease_owner = \(owner) AND attempt = \(attempt) AND state = 'running'
            RETURNING stop_request
            """, logger: logger)
        for try await stop in rows.decode(String?.self) {
            return stop.map { .stopRequested($0) } ?? .carryOn
        }
        return .leaseLost
    }

    /// Tells live event streams on every ferryd how far a running job is (`JobEventFeed`): a NOTIFY
    /// in a statement of its own, after the heartbeat's update and never inside it (migrations/0008).
    public func announce(_ progress: Progress, job: UUID, tenant: UUID) async throws {
        let payload = JobEventNotice.ProgressPayload(
            tenant: tenant, job: job, bytes_done: progress.bytesDone, bytes_expected: progress.bytesExpected, rate: progress.bytesPerSecond)
        let text = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        try await client.query("SELECT pg_notify(\(JobEventFeed.channel), \(text))", logger: logger)
    }

    /// How an attempt ended, as the job row will say.
    public struct Completion: Sendable {
        public var state: JobState
        /// `job_attempts.outcome`.
        public var attemptOutcome: String
        public var progress: Progress
        public var response: JobRecord.StoredResponse?
        public var result: JobRecord.StoredResult?
        public var errorCode: String?
        public var errorMessage: String?
        public var resumeData: String?
        /// When a retrying job may run again.
        public var retryDelay: Duration?
        public var httpStatus: Int?
        /// waiting_for_decision: what the client must decide, and for how many seconds it may wait.
        public var decision: PendingDecision?
        public var decisionTimeoutSeconds: Int?

        public init(
            state: JobState, attemptOutcome: String, progress: Progress, response: JobRecord.StoredResponse? = nil,
            result: JobRecord.StoredResult? = nil, errorCode: String? = nil, errorMessage: String? = nil, resumeData: String? = nil,
            retryDelay: Duration? = nil, httpStatus: Int? = nil, decision: PendingDecision? = nil, decisionTimeoutSeconds: Int? = nil
        ) {
            self.state = state
            self.attemptOutcome = attemptOutcome
            self.progress = progress
            self.response = response
            self.result = result
            self.errorCode = errorCode
            self.errorMessage = errorMessage
            self.resumeData = resumeData
            self.retryDelay = retryDelay
            self.httpStatus = httpStatus ?? response?.status
            self.decision = decision
            self.decisionTimeoutSeconds = decisionTimeoutSeconds
        }
    }

    /// Writes the attempt's end and releases the lease, in one transaction. False when the lease had
    /// already been lost (nothing is written then).
    @discardableResult
    public func finish(job: UUID, attempt: Int, owner: String, _ completion: Completion) async throws -> Bool {
        let logger = self.logger
        let delayMicros = completion.retryDelay.map { Int64($0.components.seconds) * 1_000_000 + $0.components.attoseconds / 1_000_000_000_000 } ?? 0
        let responseJSON = completion.response.map { JobSpecification.json($0) }
        let resultJSON = completion.result.map { JobSpecification.json($0) }
        let decisionJSON = completion.decision.map { JobSpecification.json($0) }
        let terminal = completion.state.isTerminal
        // One statement, so one round trip and one commit: the job, its attempt and the wake-up
        // for a job handed back to the queue change together or not at all.
        let rows = try await client.query(
            """
            WITH finished AS (
                UPDATE jobs SET state = \(completion.state.rawValue), lease_owner = NULL, lease_expires_at = NULL, stop_request = NULL,
                    bytes_done = \(completion.progress.bytesDone), bytes_expected = \(completion.progress.bytesExpected),
                    bytes_per_second = \(completion.progress.bytesPerSecond),
                    response = coalesce(\(responseJSON)::jsonb, response), result = \(resultJSON)::jsonb,
                    error_code = \(completion.errorCode), error_message = \(completion.errorMessage),
                    resume_data = \(completion.resumeData)::jsonb,
                    run_after = now() + \(delayMicros) * interval '1 microsecond',
                    finished_at = CASE WHEN \(terminal) THEN now() ELSE NULL END,
                    decision = \(decisionJSON)::jsonb,
                    decision_deadline = now() + \(completion.decisionTimeoutSeconds)::integer * interval '1 second'
                WHERE id = \(job) AND lease_owner = \(owner) AND attempt = \(attempt)
                RETURNING id
            ), attempt AS (
                UPDATE job_attempts SET finished_at = now(), outcome = \(completion.attemptOutcome),
                    error_code = \(completion.errorCode), http_status = \(completion.httpStatus), bytes = \(completion.progress.bytesDone)
                WHERE job_id = \(job) AND attempt = \(attempt) AND EXISTS (SELECT 1 FROM finished)
            ), wake AS (
                SELECT pg_notify(\(Self.channel), '') WHERE \(completion.state == .queued) AND EXISTS (SELECT 1 FROM finished)
            )
            SELECT (SELECT count(*) FROM finished)::bigint, (SELECT count(*) FROM wake)::bigint
            """, logger: logger)
        var updated = false
        for try await (count, _) in rows.decode((Int64, Int64).self) { updated = count > 0 }
        return updated
    }

    /// Jobs whose worker stopped renewing its lease go back to the queue (or, when a pause or cancel
    /// was asked for meanwhile, to that state); their attempt is recorded as interrupted. Returns how
    /// many were taken back.
    @discardableResult
    ///
    /// `owner`'s jobs in `running` are left alone: their runners are alive in the calling process
    /// (late with a heartbeat under load), and taking them back would start a second runner on the
    /// same partial file. Other processes take them back if this one dies.
    public func takeBackExpiredLeases(owner: String, running: [UUID]) async throws -> Int {
        let rows = try await client.query(
            """
            WITH expired AS (
                UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, run_after = now(),
                    state = CASE stop_request WHEN 'pause' THEN 'paused' WHEN 'cancel' THEN 'cancelled' ELSE 'queued' END,
                    finished_at = CASE WHEN stop_request = 'cancel' THEN now() ELSE NULL END,
                    stop_request = NULL
                WHERE state IN ('running', 'waiting_for_decision') AND lease_expires_at < now()
                    AND NOT (lease_owner = \(owner) AND id = ANY(\(running)::uuid[]))
                RETURNING id, attempt
            ), interrupted AS (
                UPDATE job_attempts a SET outcome = 'interrupted', finished_at = now()
                FROM expired e WHERE a.job_id = e.id AND a.attempt = e.attempt AND a.outcome IS NULL
            ), wake AS (
                SELECT pg_notify(\(Self.channel), '') FROM (SELECT 1 FROM expired LIMIT 1) AS any_expired
            )
            SELECT count(*)::bigint FROM expired, (SELECT count(*) FROM wake) AS woken
            """, logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// Fails the jobs whose decision waited past its deadline (`decision_timed_out`) and returns, one
    /// per job, the partial file of its download (absolute, from its resume data) for removal: nothing
    /// will continue it. Any ferryd may do it; the row lock makes each fail once.
    public func failOverdueDecisions() async throws -> [String?] {
        let rows = try await client.query(
            """
            WITH overdue AS (
                SELECT id, resume_data->>'partial_file' AS partial_file FROM jobs
                WHERE state = 'waiting_for_decision' AND decision_deadline < now()
                FOR UPDATE SKIP LOCKED
            )
            UPDATE jobs SET state = 'failed', finished_at = now(), error_code = 'decision_timed_out',
                error_message = 'the ' || (decision->>'kind') || ' decision was not answered by its deadline, '
                    || to_char(decision_deadline AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                resume_data = NULL
            FROM overdue WHERE jobs.id = overdue.id
            RETURNING overdue.partial_file
            """, logger: logger)
        var files: [String?] = []
        for try await file in rows.decode(String?.self) { files.append(file) }
        return files
    }

    /// The file an upload job's body comes from, relative to the data directory.
    public func bodyFile(for body: JobSpecification.Body, tenant: UUID) async throws -> String? {
        let rows: PostgresRowSequence
        switch body {
        case .blob(let id):
            rows = try await client.query("SELECT path FROM blobs WHERE id = \(id) AND tenant_id = \(tenant)", logger: logger)
        case .jobContent(let id):
            rows = try await client.query(
                "SELECT result->>'file' FROM jobs WHERE id = \(id) AND tenant_id = \(tenant) AND state = 'succeeded'", logger: logger)
        case .inline:
            return nil
        }
        for try await path in rows.decode(String?.self) { return path }
        return nil
    }
}
