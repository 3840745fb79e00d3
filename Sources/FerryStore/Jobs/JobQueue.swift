import FerryModel
import FerryVault
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

    package let client: DatabasePool
    package let logger: Logger
    /// Running-job limit for tenants without their own (`tenants.max_running_jobs`).
    package let defaultMaxRunningJobs: Int
    package let ends: JobEndWriter
    package let heartbeats: HeartbeatWriter
    /// Seals resume data on its way to the table and opens what a claim reads (`SealedResumeData`,
    /// `SealedJobRequest`, `SealedSessionConfiguration`).
    package let keyring: VaultKeyring

    public init(client: DatabasePool, keyring: VaultKeyring, logger: Logger, defaultMaxRunningJobs: Int = 64) {
        self.client = client
        self.keyring = keyring
        self.logger = logger
        self.defaultMaxRunningJobs = defaultMaxRunningJobs
        self.ends = JobEndWriter(client: client, logger: logger)
        self.heartbeats = HeartbeatWriter(client: client, logger: logger)
    }

    /// Waiting jobs read per tenant beyond the claim's limit: jobs another claimer holds locked right
    /// now are skipped, and the next ones must be there to take their place.
    package static let claimSlack = 32

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
        package var decisionAnswers: [String: StoredDecisionAnswer] = [:]
        /// What the owner has stored that the job's engine session must be brought up to date with.
        package var stored = OwnerStoredState.unknown
        /// Why a value sealed in the job or its session did not open (no configured vault key opens
        /// it): the job cannot run as submitted, and `job` holds `<redacted>` in its place.
        public var unopenableSecret: String?
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
    /// tenants with waiting jobs are found by skipping through `jobs_claimable_in_order` one tenant at a time,
    /// and each one's first `limit + claimSlack` jobs come from the same index, already in turn order
    /// (`ClaimJobsStatement`).
    public func claim(owner: String, limit: Int, leaseSeconds: Int) async throws -> [Claim] {
        let statement = ClaimJobsStatement(
            defaultMaxRunningJobs: defaultMaxRunningJobs, candidatesPerTenant: limit + Self.claimSlack, limit: limit, owner: owner,
            leaseSeconds: leaseSeconds, keyring: keyring)
        var claims: [Claim] = []
        for try await claim in try await client.execute(statement, logger: logger) { claims.append(claim) }
        return claims
    }

    /// Progress as the worker last saw it.
    public struct Progress: Sendable, Equatable {
        public var bytesDone: Int64
        public var bytesExpected: Int64?
        public var bytesPerSecond: Int64?

        package init(bytesDone: Int64, bytesExpected: Int64? = nil, bytesPerSecond: Int64? = nil) {
            self.bytesDone = bytesDone
            self.bytesExpected = bytesExpected
            self.bytesPerSecond = bytesPerSecond
        }
    }

    /// What a heartbeat learns.
    public enum HeartbeatAnswer: Sendable, Equatable {
        case carryOn
        case stopRequested(String)
        /// Another worker holds the job now: stop, and write nothing more.
        case leaseLost
    }

    /// Renews the lease, stores progress (and resume data, when given), and reads any stop request.
    /// Heartbeats of many jobs at once share one statement (`HeartbeatWriter`). With `announcingTo`
    /// (the job's tenant), live event streams on every ferryd learn the progress too (`JobEventFeed`).
    public func heartbeat(
        job: UUID, attempt: Int, owner: String, leaseSeconds: Int, progress: Progress, resumeData: String?,
        announcingTo tenant: UUID? = nil
    ) async throws -> HeartbeatAnswer {
        let sealed = try SealedResumeData.json(resumeData, job: job, keyring: keyring)
        return try await heartbeats.write(HeartbeatWriter.Beat(
            job: job, attempt: attempt, owner: owner, leaseSeconds: leaseSeconds, progress: progress, sealedResumeData: sealed,
            announcedTo: tenant))
    }

    /// How an attempt ended, as the job row will say.
    public struct Completion: Sendable {
        /// The end of the attempt, from `running` (`JobStateMachine.attemptEnd`).
        public var transition: JobTransition
        public var state: JobState { transition.to }
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

        /// The attempt ended with `event` (one of `JobEvent.attemptEnds`).
        public init(
            _ event: JobEvent, attemptOutcome: String, progress: Progress, response: JobRecord.StoredResponse? = nil,
            result: JobRecord.StoredResult? = nil, errorCode: String? = nil, errorMessage: String? = nil, resumeData: String? = nil,
            retryDelay: Duration? = nil, httpStatus: Int? = nil, decision: PendingDecision? = nil, decisionTimeoutSeconds: Int? = nil
        ) {
            self.transition = JobStateMachine.attemptEnd(event)
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

    /// Writes the attempt's end and releases the lease, in one transaction (shared with other ends
    /// written at the same time: `JobEndWriter`). False when the lease had already been lost (nothing
    /// is written then).
    @discardableResult
    public func finish(job: UUID, attempt: Int, owner: String, _ completion: Completion) async throws -> Bool {
        var completion = completion
        completion.resumeData = try SealedResumeData.json(completion.resumeData, job: job, keyring: keyring)
        // A response's Set-Cookie (the cookie's value) is shown redacted and read by nothing: not stored.
        if var response = completion.response {
            for index in response.headers.indices where CredentialHeaders.carriesCredentials(response.headers[index].name) {
                response.headers[index].value = CredentialHeaders.placeholder
            }
            completion.response = response
        }
        return try await ends.write(JobEndWriter.End(job: job, attempt: attempt, owner: owner, completion: completion))
    }

    /// Jobs whose worker stopped renewing its lease go back to the queue (or, when a pause or cancel
    /// was asked for meanwhile, to that state); their attempt is recorded as interrupted. Returns how
    /// many were taken back. The states come from the table (`JobStateSQL.onExpiry`); the events of
    /// the new states are written by the database: `JobEventsTrigger`.
    ///
    /// `owner`'s jobs in `running` are left alone: their runners are alive in the calling process
    /// (late with a heartbeat under load), and taking them back would start a second runner on the
    /// same partial file. Other processes take them back if this one dies.
    ///
    /// Nothing is taken back until the server has been up for `leaseSeconds`: leases run out in the
    /// database's time, so while it was stopped every lease kept running out although no worker
    /// could renew it; their workers get one lease to reach it again.
    @discardableResult
    public func takeBackExpiredLeases(owner: String, running: [UUID], leaseSeconds: Int) async throws -> Int {
        let rows = try await client.query(
            """
            WITH expired AS (
                UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, run_after = now(),
                    state = \(unescaped: Self.stateOnExpiry),
                    finished_at = \(unescaped: Self.finishedAtOnExpiry),
                    stop_request = NULL
                WHERE state IN (\(unescaped: JobStateSQL.expirable)) AND lease_expires_at < now()
                    AND NOT (lease_owner = \(owner) AND id = ANY(\(running)::uuid[]))
                    AND pg_postmaster_start_time() < now() - \(leaseSeconds) * interval '1 second'
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

    private static let stateOnExpiry = JobStateSQL.onExpiry { JobStateSQL.literal($0.to) }
    private static let finishedAtOnExpiry = JobStateSQL.onExpiry { $0.finishes ? "now()" : "NULL" }

    /// The error code of a job whose decision was not answered in time.
    public static let decisionTimedOut = "decision_timed_out"

    /// An unanswered decision fails its job.
    private static let overdue = JobStateMachine.transition(.fail, from: .waitingForDecision)

    /// Fails the jobs whose decision waited past its deadline (`decision_timed_out`) and returns, one
    /// per job, the partial file of its download (absolute, from its resume data) for removal: nothing
    /// will continue it. Any ferryd may do it; the row lock makes each fail once. The failed events
    /// are written by the database: `JobEventsTrigger`.
    public func failOverdueDecisions() async throws -> [String?] {
        let rows = try await client.query(
            """
            WITH overdue AS (
                SELECT id, resume_data->>'partial_file' AS partial_file FROM jobs
                WHERE state = \(unescaped: JobStateSQL.literal(Self.overdue.from)) AND decision_deadline < now()
                FOR UPDATE SKIP LOCKED
            )
            UPDATE jobs SET state = \(unescaped: JobStateSQL.literal(Self.overdue.to)), finished_at = now(),
                error_code = \(Self.decisionTimedOut),
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
