import FerryModel
import Foundation
import Logging
import PostgresNIO

/// Reads `job_events`: the stored state events a stream replays and follows. Each event carries the
/// job row as it was right after the change (a `job_snapshot`, migrations/0023), expanded into the
/// same columns as a live job, so the event's job view is built exactly like `GET /v1/jobs/{id}`'s.
package struct JobEventStore: Sendable {
    package let client: DatabasePool
    package let logger: Logger

    package struct StoredEvent: Sendable {
        package var id: Int64
        package var type: String
        package var job: JobRecord
        /// A `job.part` event's part (LC-10); nil for every other event.
        package var part: JobPartView?

        package init(id: Int64, type: String, job: JobRecord, part: JobPartView? = nil) {
            self.id = id
            self.type = type
            self.job = job
            self.part = part
        }
    }

    /// The columns of a `jobs` row from the snapshot of `event` (an alias of `job_events`), for a
    /// subquery that `JobRecord.columns` reads: the snapshot leaves the resume data out, which an
    /// event never shows.
    package static func jobColumns(of event: String) -> String {
        "(\(event).job).*, NULL::jsonb AS resume_data"
    }

    /// A page of stored events, and whether more follow it.
    package struct EventPage: Sendable {
        package var events: [StoredEvent]
        package var hasMore: Bool
    }

    /// State events (not stored progress) of `tenant`, of one `job` or all, with ids above `after`,
    /// oldest first: at most `limit` of them, and no more than `maxBytes` of job rows (as text)
    /// beyond the first, so that a page of jobs with long URLs or many headers stays small in
    /// memory. The sizes are measured in the database, which sends only the rows that fit.
    /// With `session`, only the events of that session's jobs (a session's stream, BG-14).
    package func events(
        tenant: UUID, job: UUID?, session: UUID? = nil, after: Int64, limit: Int = 500, maxBytes: Int = 256 << 10
    ) async throws -> EventPage {
        let rows = try await client.query(
            """
            SELECT \(unescaped: JobRecord.columns), event_id, event_type, event_part, candidates FROM (
                SELECT e.id AS event_id, e.type AS event_type, e.part::text AS event_part, page.candidates,
                       \(unescaped: Self.jobColumns(of: "e"))
                FROM (
                    SELECT id, count(*) OVER () AS candidates,
                           sum(octet_length(job::text)) OVER (ORDER BY id) - octet_length(job::text) AS bytes_before
                    FROM job_events
                    WHERE tenant_id = \(tenant) AND (\(job)::uuid IS NULL OR job_id = \(job)) AND id > \(after) AND type <> 'job.progress'
                      AND (\(session)::uuid IS NULL OR (job).session_id = \(session))
                    ORDER BY id LIMIT \(limit)
                ) page JOIN job_events e ON e.id = page.id
                WHERE page.bytes_before < \(maxBytes)
            ) AS jobs ORDER BY event_id
            """, logger: logger)
        var events: [StoredEvent] = []
        var candidates = 0
        for try await row in rows {
            events.append(try Self.event(row))
            candidates = try row.makeRandomAccess()[JobRecord.columnCount + 3].decode(Int.self)
        }
        return EventPage(events: events, hasMore: candidates == limit || events.count < candidates)
    }

    package static func event(_ row: PostgresRow) throws -> StoredEvent {
        let columns = row.makeRandomAccess()
        let part = try columns[JobRecord.columnCount + 2].decode(String?.self).map { try JobSpecification.decode(JobPartView.self, json: $0) }
        return StoredEvent(
            id: try columns[JobRecord.columnCount].decode(Int64.self), type: try columns[JobRecord.columnCount + 1].decode(String.self),
            job: try JobRecord(row: row), part: part)
    }

    /// The job now and the id of its latest state event (0 when it has none), read together.
    package func current(job: UUID, tenant: UUID) async throws -> (job: JobRecord, latestEvent: Int64)? {
        let rows = try await client.query(
            """
            SELECT \(unescaped: JobRecord.columns),
                   coalesce((SELECT max(e.id) FROM job_events e WHERE e.job_id = jobs.id AND e.type <> 'job.progress'), 0)
            FROM jobs WHERE id = \(job) AND tenant_id = \(tenant)
            """, logger: logger)
        for try await row in rows { return (try JobRecord(row: row), try row.makeRandomAccess()[JobRecord.columnCount].decode(Int64.self)) }
        return nil
    }

    /// Which job an event is of, without the job itself: what `JobEventFeed` tells subscribers.
    package struct EventHeading: Sendable {
        package var id: Int64
        package var tenant: UUID
        package var job: UUID
        package var type: String

        package init(id: Int64, tenant: UUID, job: UUID, type: String) {
            self.id = id
            self.tenant = tenant
            self.job = job
            self.type = type
        }
    }

    /// Every tenant's events with ids above `after`, oldest first.
    package func eventsOfEveryTenant(after: Int64, limit: Int) async throws -> [EventHeading] {
        let rows = try await client.query(
            "SELECT id, tenant_id, job_id, type FROM job_events WHERE id > \(after) ORDER BY id LIMIT \(limit)", logger: logger)
        var headings: [EventHeading] = []
        for try await (id, tenant, job, type) in rows.decode((Int64, UUID, UUID, String).self) {
            headings.append(EventHeading(id: id, tenant: tenant, job: job, type: type))
        }
        return headings
    }

    /// The id of the newest event of any tenant (0 when none): where `JobEventFeed` starts.
    package func latestEventID() async throws -> Int64 {
        let rows = try await client.query("SELECT coalesce(max(id), 0) FROM job_events", logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        return 0
    }

    /// The id of the tenant's latest event (0 when none): where a stream without Last-Event-ID starts.
    package func latestEvent(tenant: UUID) async throws -> Int64 {
        let rows = try await client.query("SELECT coalesce(max(id), 0) FROM job_events WHERE tenant_id = \(tenant)", logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        return 0
    }

    package init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }
}
