@testable import FerryModel
@testable import FerryStore
import Foundation
import Logging
import PostgresNIO
import Testing

/// `JobEventsTrigger` documents in Swift what the database writes on a job's change of state; these
/// tests hold it to the live definitions of a migrated database, so neither can change alone.
@Suite("Job events trigger definitions", .timeLimit(.minutes(3)))
struct JobEventsTriggerDefinitionTests {
    let logger = Logger(label: "ferry.tests.job-events-trigger-definitions")

    @Test("each documented trigger exists as written, calls the documented function, which says what the page says and never NOTIFYs")
    func liveDefinitions() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            var live: [String: (definition: String, function: String, source: String)] = [:]
            for try await (name, definition, function, source) in try await connection.query(
                """
                SELECT t.tgname::text, pg_get_triggerdef(t.oid), p.proname::text, p.prosrc
                FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                WHERE t.tgrelid = 'jobs'::regclass AND NOT t.tgisinternal
                """, logger: logger
            ).decode((String, String, String, String).self) {
                // The schema the test database puts `jobs` in is not part of the definition.
                let unqualified = definition.replacingOccurrences(of: #" ON [a-z_]+\.jobs "#, with: " ON jobs ", options: .regularExpression)
                live[name] = (unqualified, function, source)
            }
            #expect(Set(live.keys).subtracting(["jobs_touch_updated_at"]).subtracting(JobStateCounts.triggers) == Set(JobEventsTrigger.all.map(\.name)),
                    "every trigger on jobs that writes events or settles a change is documented")
            #expect(Set(JobStateCounts.triggers).isSubset(of: live.keys), "the triggers that keep the counts by state")
            for trigger in JobEventsTrigger.all {
                guard let found = live[trigger.name] else {
                    Issue.record("no trigger \(trigger.name) on jobs")
                    continue
                }
                #expect(found.definition == trigger.definition)
                #expect(found.function == trigger.function)
                for text in trigger.contains {
                    #expect(found.source.contains(text), "\(trigger.function) contains \(text)")
                }
                #expect(found.source.contains("pg_notify") == JobEventsTrigger.notifies, "\(trigger.function)")
            }
        }
    }

    @Test("the named migration holds each function's current version: the last to define it, with the body the database runs")
    func currentVersions() async throws {
        let migrations = try InitialSchemaTests.builtInMigrations()
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            for trigger in JobEventsTrigger.all {
                let definitions = migrations.compactMap { migration in
                    Self.body(of: trigger.function, in: migration.sql).map { (migration.fileName, $0) }
                }
                #expect(definitions.last?.0 == trigger.migration, "\(trigger.function) is defined in \(definitions.map(\.0))")
                let source = try await PostgresProbe.value(
                    "SELECT prosrc FROM pg_proc WHERE proname = \(trigger.function)", as: String.self, on: connection)
                #expect(source == definitions.last?.1, "\(trigger.function) runs the body of \(trigger.migration)")
            }
        }
    }

    @Test("an event's job_snapshot has every column of jobs but the hidden ones, in order and of the same types, and ferry_job_snapshot fills each from its own column")
    func snapshotMatchesJobs() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            func attributes(of relation: String) async throws -> [String] {
                var found: [String] = []
                for try await (name, type) in try await connection.query(
                    """
                    SELECT a.attname::text, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
                    WHERE a.attrelid = \(relation)::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
                    """, logger: logger
                ).decode((String, String).self) {
                    found.append("\(name) \(type)")
                }
                return found
            }
            let jobs = try await attributes(of: "jobs")
            let snapshot = try await attributes(of: JobEventsTrigger.snapshotType)
            #expect(!jobs.isEmpty)
            #expect(snapshot == jobs.filter { !JobEventsTrigger.hiddenFields.contains(String($0.prefix { $0 != " " })) })

            // Each column holds a value of its own in one row, so a snapshot that took a value from
            // the wrong column, or left one out, differs from the row read as JSON.
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
            let mismatch = try await PostgresProbe.value(
                """
                WITH j AS (
                    INSERT INTO jobs (tenant_id, kind, state, priority, request, policies, attempt, max_attempts, bytes_done,
                                      bytes_expected, bytes_per_second, response, result, error_code, error_message, resume_data,
                                      stop_request, lease_owner, lease_expires_at, run_after, idempotency_key, idempotency_hash,
                                      created_at, updated_at, decision, decision_deadline, decision_answers)
                    VALUES (\(tenant), 'data', 'waiting_for_decision', 7, '{"url": "http://example.invalid/"}', '{"discretionary": true}',
                            2, 3, 11, 13, 17, '{"status": 500}', '{"size": 1}', 'http_error', 'gone', '{"offset": 1}',
                            'cancel', 'worker', now() + interval '1 minute', now() + interval '2 minutes', 'key', sha256('k'),
                            now() - interval '3 minutes', now() - interval '4 minutes', '{"kind": "trust"}', now() + interval '5 minutes',
                            '{"a": 1}')
                    RETURNING *)
                SELECT (to_jsonb(\(unescaped: JobEventsTrigger.snapshotFunction)(j))
                        <> to_jsonb(j) - ARRAY[\(unescaped: JobEventsTrigger.hiddenFields.map { "'\($0)'" }.joined(separator: ", "))])::text
                FROM j
                """, as: String.self, on: connection)
            #expect(mismatch == "false")
        }
    }

    @Test("ANALYZE of job_events gathers statistics of every column but the job snapshots (migration 0025)")
    func snapshotsNotAnalyzed() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
            // Each inserted job writes its job.queued event, snapshot included (JobEventsTrigger.onInsert).
            try await PostgresProbe.execute(
                """
                INSERT INTO jobs (tenant_id, kind, request)
                SELECT \(tenant), 'download', jsonb_build_object('url', 'http://example.invalid/' || g) FROM generate_series(1, 50) g
                """, on: connection)
            try await PostgresProbe.execute("ANALYZE job_events", on: connection)
            var analyzed: [String] = []
            for try await name in try await connection.query(
                "SELECT attname::text FROM pg_stats WHERE tablename = 'job_events' ORDER BY attname", logger: logger
            ).decode(String.self) {
                analyzed.append(name)
            }
            #expect(analyzed.contains("tenant_id") && analyzed.contains("job_id") && analyzed.contains("type"), "\(analyzed)")
            #expect(!analyzed.contains("job"), "\(analyzed)")
        }
    }

    @Test("the functions' event type is JobState.eventType for every state; a submitted job starts in JobStateMachine.initialState")
    func eventTypesAndInitialState() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            for state in JobState.allCases {
                let type = try await PostgresProbe.value(
                    "SELECT \(unescaped: JobEventsTrigger.eventType(of: "j")) FROM (VALUES (\(state.rawValue))) AS j(state)",
                    as: String.self, on: connection)
                #expect(type == state.eventType, "\(state.rawValue)")
            }
            let initial = try await PostgresProbe.value(
                "SELECT column_default::text FROM information_schema.columns WHERE table_name = 'jobs' AND column_name = 'state'",
                as: String.self, on: connection)
            #expect(initial == "\(JobStateSQL.literal(JobStateMachine.initialState))::text")
        }
    }

    @Test("a job taken through the table's transitions gets the event each announces, and its callback gets the final one")
    func transitionsAnnounceTheirEvents() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'a')", on: connection)
            try await PostgresProbe.execute(
                """
                INSERT INTO webhook_endpoints (tenant_id, url, events, secret)
                VALUES (\(tenant), 'http://example.invalid/all', \(JobState.allCases.map(\.eventType)), 'whsec_a')
                """, on: connection)
            let job = try #require(try await PostgresProbe.value(
                """
                INSERT INTO jobs (tenant_id, kind, request, policies)
                VALUES (\(tenant), 'download', '{"url": "http://example.invalid/"}', '{"callback_url": "http://example.invalid/callback"}')
                RETURNING id
                """, as: UUID.self, on: connection))
            let path: [(JobEvent, JobState)] = [
                (.claim, .queued), (.awaitDecision, .running), (.decide, .waitingForDecision), (.pause, .queued), (.resume, .paused),
                (.claim, .queued), (.retry, .running), (.claim, .retrying), (.cancel, .running),
            ]
            var announced = [JobStateMachine.initialState.eventType]
            for (event, state) in path {
                let transition = JobStateMachine.transition(event, from: state)
                let waiting = transition.to == .waitingForDecision
                try await PostgresProbe.execute(
                    """
                    UPDATE jobs SET state = \(transition.to.rawValue),
                        finished_at = CASE WHEN \(transition.finishes) THEN now() END,
                        decision = CASE WHEN \(waiting) THEN '{"id": "d1", "kind": "redirect"}'::jsonb END,
                        decision_deadline = CASE WHEN \(waiting) THEN now() + interval '1 hour' END
                    WHERE id = \(job)
                    """, on: connection)
                announced.append(transition.announcedEventType)
            }
            var written: [String] = []
            for try await type in try await connection.query("SELECT type FROM job_events WHERE job_id = \(job) ORDER BY id", logger: logger)
                .decode(String.self) {
                written.append(type)
            }
            #expect(written == announced)
            let endpointDeliveries = try await PostgresProbe.value(
                "SELECT count(*)::bigint FROM webhook_deliveries WHERE url = 'http://example.invalid/all'", as: Int64.self, on: connection)
            #expect(endpointDeliveries == Int64(announced.count), "the endpoint subscribed to every state's type gets each")
            let callbacks = try await PostgresProbe.value(
                "SELECT string_agg(event_type, ',') FROM webhook_deliveries WHERE url = 'http://example.invalid/callback'",
                as: String.self, on: connection)
            #expect(callbacks == "job.cancelled", "the callback hears of the final state only")
        }
    }

    /// The body between the dollar quotes of `CREATE [OR REPLACE] FUNCTION name()` in a migration.
    static func body(of function: String, in sql: String) -> String? {
        let pattern = #"CREATE (?:OR REPLACE )?FUNCTION "# + function + #"\(\)[^$]*\$\$(.*?)\$\$"#
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators]) else { return nil }
        let range = NSRange(sql.startIndex..., in: sql)
        guard let match = regex.matches(in: sql, range: range).last, let body = Range(match.range(at: 1), in: sql) else { return nil }
        return String(sql[body])
    }
}
