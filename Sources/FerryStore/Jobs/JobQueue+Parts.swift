import FerryModel
import Foundation

/// `job.part` events (LC-10): each part of a job's multipart/x-mixed-replace response that ended,
/// written by the worker that holds the job, with the webhook deliveries of the endpoints subscribed
/// to the type, in one statement (as the triggers write state events). The job row is the event's
/// `job`, as for every event; the part goes to `job_events.part` (`migrations/0017`).
extension JobQueue {
    /// Writes the event unless this worker no longer holds the job's `attempt`: false then. `part`'s
    /// headers must already be redacted (`JobView.redacted`).
    @discardableResult
    package func recordPart(job: UUID, attempt: Int, owner: String, part: JobPartView) async throws -> Bool {
        let partJSON = JobSpecification.json(part)
        let rows = try await client.query(
            """
            WITH j AS (
                SELECT tenant_id, id, \(unescaped: JobEventsTrigger.snapshotFunction)(jobs) AS snapshot
                FROM jobs WHERE id = \(job) AND attempt = \(attempt) AND lease_owner = \(owner)
            ), events AS (
                INSERT INTO job_events (tenant_id, job_id, type, job, part)
                SELECT j.tenant_id, j.id, 'job.part', j.snapshot, \(partJSON)::jsonb
                FROM j
                RETURNING id, tenant_id, job_id, type
            ), deliveries AS (
                INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, endpoint_id, url, next_attempt_at)
                SELECT e.tenant_id, e.id, e.job_id, e.type, w.id, w.url, now()
                FROM events e
                JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND w.disabled_at IS NULL AND e.type = ANY (w.events)
            )
            SELECT count(*) FROM events
            """, logger: logger)
        for try await count in rows.decode(Int64.self) { return count > 0 }
        return false
    }
}
