import FerryModel

/// What the database itself writes when a job is inserted or changes state. Every statement that
/// inserts jobs or changes `jobs.state` refers here.
///
/// Job events and webhook deliveries are written by triggers on `jobs`, in the transaction of the
/// change (design: "State changes and the webhook events they cause are written in one
/// transaction"). A claim of many jobs or a shared statement of many ends thus writes its events
/// without a second round trip and without a loop in Swift. `JobEventsTriggerDefinitionTests`
/// reads the live definitions from `pg_proc` and `pg_trigger` on a migrated database and compares
/// them with what is written here, so this page cannot drift from the schema unnoticed.
///
/// On a change of state (`onStateChange`): an AFTER UPDATE statement trigger calls
/// `ferry_record_state_changes()`, which, for every row of the statement whose state changed
/// (between its old and new transition tables), in one statement, in the order of the jobs' ids,
/// writes:
/// 1. one `job_events` row, of type `JobState.eventType` of the new state (`job.<state>`, and
///    `job.decision_required` for `waiting_for_decision`), whose `job` is the new row as a
///    `job_snapshot` (`snapshotFunction`: the row without `hiddenFields`);
/// 2. if the new state is final (succeeded, failed, cancelled) and the job's
///    `policies.callback_url` is set, one `webhook_deliveries` row to that URL;
/// 3. one `webhook_deliveries` row per enabled endpoint of the tenant subscribed to the type.
/// A claim or a shared finish of many jobs thus writes all their events at once; an update that
/// changes no state (a heartbeat statement, once a tick for all running jobs) costs one empty join.
///
/// On an insert (`onInsert`): an AFTER INSERT statement trigger calls `ferry_record_inserted_jobs()`,
/// which does the same for every row the statement inserted, in the order of the jobs'
/// `created_at` and id (so their event ids follow the jobs' order).
///
/// Neither NOTIFYs: a transaction that NOTIFYs commits only after the one before it has flushed
/// (migrations/0008), which serialised every claim and finish of the P3 bench. `JobEventFeed` polls
/// `job_events` by id instead.
///
/// The rows they write name their tenant without a foreign key (migrations/0021): the job's own key
/// holds it, and a key per event and delivery looked up and locked the tenant's row, in every claim
/// and finish of every worker. `tenants_delete_events`, on tenants, deletes a tenant's events (and so
/// their deliveries) with it.
///
/// Neither joins a transition table to another or to the events it wrote (migrations/0020): PL/pgSQL
/// keeps a statement's plan for the connection, made for the rows of its first call, and a first
/// call of one row left nested loops that made a heartbeat of 2,000 running jobs or a cancel of
/// 2,000 jobs quadratic (0.5 and 2.7 s). An event's id is drawn from the sequence as its job's row is
/// read, so its deliveries come from that row; a changed state is a hashed `NOT IN` of the old
/// table's (id, state) pairs.
///
/// After it (`onSessionEnd`): `ferry_record_session_events_finished()`, an AFTER UPDATE statement
/// trigger named to fire after `onStateChange` (triggers of one event fire in name order). When a
/// statement ends the last unfinished job of a background session, it writes a
/// `session.events_finished` event (BG-09) after that job's own, with that job as its `job`, and its
/// deliveries: the session's `background.callback_url` unless `sends_launch_events` is false (BG-16),
/// and endpoints subscribed to the type. Sessions ending jobs at once take turns on an advisory lock,
/// so that the last of two ends seen at the same time still writes it. A statement that ends no job of
/// a background session (most of them) costs one look at the ended jobs' sessions (migrations/0024).
///
/// The snapshot is a composite value, not JSON (migrations/0023): `to_jsonb` and the readers'
/// `jsonb_populate_record` cost PostgreSQL about four times what storing the row costs. Readers
/// expand it with `JobEventStore.jobColumns(of:)`. `job_snapshot` is a type of its own, with the
/// columns of `jobs` in their order, but the hidden ones; a migration that adds a column to `jobs`
/// adds it to the type and the function too (`JobEventsTriggerDefinitionTests` compares them).
///
/// Around them (`beforeStateChange`, `onProgress`):
/// - `ferry_settle_job_decision()`, BEFORE UPDATE when the state changes: leaving
///   `waiting_for_decision` drops `decision` and `decision_deadline`, reaching a final state drops
///   `decision_answers` (they may hold sealed passwords nothing needs again). A statement that
///   moves a job out of waiting therefore need not clear them itself.
/// - `ferry_announce_job_progress()`, AFTER UPDATE OF bytes_done while running: a `job.progress`
///   event and its deliveries, only for a tenant with an endpoint subscribed to it, at most one
///   per job every 5 seconds. Live progress goes out by NOTIFY from `HeartbeatWriter`, not here.
enum JobEventsTrigger {
    /// A trigger on `jobs` and the function it calls, as the database reports them.
    struct Trigger: Sendable {
        /// `pg_trigger.tgname`.
        var name: String
        /// `pg_get_triggerdef` of the trigger, with the table's schema left out.
        var definition: String
        var function: String
        /// The migration whose `CREATE [OR REPLACE] FUNCTION` is the function's current version:
        /// the last one in `Embedded/migrations/` that defines it.
        var migration: String
        /// Text the function's body (`pg_proc.prosrc`) contains.
        var contains: [String]
    }

    /// The fields of a job row that events leave out: secrets (answers may hold sealed passwords),
    /// and what only the worker or the submission needs. `job_snapshot` has every other column.
    static let hiddenFields = ["resume_data", "idempotency_key", "idempotency_hash", "decision_answers"]

    /// The SQL function that makes an event's `job` of a `jobs` row, and the type it returns.
    static let snapshotFunction = "ferry_job_snapshot"
    static let snapshotType = "job_snapshot"

    /// The final states, for which the callback URL gets a delivery.
    static let callbackStates = JobState.allCases.filter(\.isTerminal)

    /// How the functions compute the event type of `row`'s state; mirrors `JobState.eventType`
    /// (the test evaluates it for every state).
    static func eventType(of row: String) -> String {
        "CASE \(row).state WHEN \(JobStateSQL.literal(.waitingForDecision)) THEN '\(JobState.waitingForDecision.eventType)' ELSE 'job.' || \(row).state END"
    }

    static let onStateChange = Trigger(
        name: "jobs_record_events_on_state_change",
        definition: "CREATE TRIGGER jobs_record_events_on_state_change AFTER UPDATE ON jobs"
            + " REFERENCING OLD TABLE AS previous_jobs NEW TABLE AS changed_jobs"
            + " FOR EACH STATEMENT EXECUTE FUNCTION ferry_record_state_changes()",
        function: "ferry_record_state_changes",
        migration: "0023_job_event_snapshots.sql",
        contains: [
            "WHERE (n.id, n.state) NOT IN (SELECT o.id, o.state FROM previous_jobs o)",
            eventType(of: "n"),
            "nextval('job_events_id_seq') AS event_id",
            "ORDER BY n.id",
            "INSERT INTO job_events (id, tenant_id, job_id, type, job)",
            "\(snapshotFunction)(n)",
            "WHERE c.state IN (\(JobStateSQL.list(callbackStates))) AND c.callback_url IS NOT NULL",
            "c.type = ANY (w.events)",
        ])

    static let onInsert = Trigger(
        name: "jobs_record_events_on_insert",
        definition: "CREATE TRIGGER jobs_record_events_on_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS inserted_jobs"
            + " FOR EACH STATEMENT EXECUTE FUNCTION ferry_record_inserted_jobs()",
        function: "ferry_record_inserted_jobs",
        migration: "0023_job_event_snapshots.sql",
        contains: [
            eventType(of: "n"),
            "nextval('job_events_id_seq') AS event_id",
            "\(snapshotFunction)(n)",
            "ORDER BY n.created_at, n.id",
            "WHERE c.state IN (\(JobStateSQL.list(callbackStates))) AND c.callback_url IS NOT NULL",
            "c.type = ANY (w.events)",
        ])

    static let beforeStateChange = Trigger(
        name: "jobs_settle_decision",
        definition: "CREATE TRIGGER jobs_settle_decision BEFORE UPDATE ON jobs FOR EACH ROW"
            + " WHEN ((old.state IS DISTINCT FROM new.state)) EXECUTE FUNCTION ferry_settle_job_decision()",
        function: "ferry_settle_job_decision",
        migration: "0006_job_decisions.sql",
        contains: [
            "IF NEW.state <> \(JobStateSQL.literal(.waitingForDecision)) THEN",
            "IF NEW.state IN (\(JobStateSQL.list(callbackStates))) THEN",
        ])

    static let onProgress = Trigger(
        name: "jobs_announce_progress",
        definition: "CREATE TRIGGER jobs_announce_progress AFTER UPDATE OF bytes_done ON jobs FOR EACH ROW"
            + " WHEN (((new.state = 'running'::text) AND (old.state = 'running'::text) AND (old.bytes_done IS DISTINCT FROM new.bytes_done)))"
            + " EXECUTE FUNCTION ferry_announce_job_progress()",
        function: "ferry_announce_job_progress",
        migration: "0023_job_event_snapshots.sql",
        contains: [
            "'job.progress' = ANY (e.events)",
            "v.created_at > now() - interval '5 seconds'",
            "\(snapshotFunction)(NEW)",
        ])

    static let onSessionEnd = Trigger(
        name: "jobs_session_events_finished",
        definition: "CREATE TRIGGER jobs_session_events_finished AFTER UPDATE ON jobs"
            + " REFERENCING OLD TABLE AS previous_jobs NEW TABLE AS changed_jobs"
            + " FOR EACH STATEMENT EXECUTE FUNCTION ferry_record_session_events_finished()",
        function: "ferry_record_session_events_finished",
        migration: "0024_session_events_for_background_sessions_only.sql",
        contains: [
            "pg_advisory_xact_lock",
            "AND n.id NOT IN (SELECT o.id FROM previous_jobs o WHERE o.state IN (\(JobStateSQL.list(callbackStates))))",
            "s.kind = 'background'",
            "'session.events_finished'",
            "\(snapshotFunction)(n) AS snapshot",
            "coalesce((f.session_background->>'sends_launch_events')::boolean, true)",
            "e.type = ANY (w.events)",
        ])

    /// Every trigger on `jobs` that writes events or settles a change of state.
    static let all = [onStateChange, onInsert, beforeStateChange, onProgress, onSessionEnd]

    /// None of them NOTIFYs (see above).
    static let notifies = false
}
