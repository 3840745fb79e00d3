import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Removes job content and unused blobs past their retention, as a service of ferryd: without it a
/// tenant's downloads and uploads stay on disk for ever.
///
/// A succeeded job's content is kept `retention_days` (the job's own, else its tenant's
/// `content_retention_days`, else `defaultDays`, `FERRY_CONTENT_RETENTION_DAYS`) after it finished;
/// then its file goes and its `result` says `"expired": true` (the view shows `content_expired`, the
/// content route answers 410). A blob is kept its tenant's days (else `defaultDays`) after it was
/// stored, and longer while a job that has not finished will send it. With none of these, nothing
/// is swept.
///
/// Every ferryd runs it; the row is marked (or deleted) before its file is removed, so two sweeps
/// never remove one file twice, and a crash in between leaves a file only (never a row without one).
public struct ContentRetention: Service {
    package let client: DatabasePool
    package let files: GatewayFiles
    package let defaultDays: Int?
    package let logger: Logger
    package static let interval = Duration.seconds(3600)
    /// Rows per statement, so that one sweep never holds many locks or a long transaction.
    package static let batch = 1000

    public init(client: DatabasePool, files: GatewayFiles, defaultDays: Int?, logger: Logger) {
        self.client = client
        self.files = files
        self.defaultDays = defaultDays
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let (jobs, blobs) = try await client.withConnection { try await sweep(on: $0) }
                    if jobs + blobs > 0 {
                        logger.info("removed content past its retention", metadata: ["jobs": "\(jobs)", "blobs": "\(blobs)"])
                    }
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("removing expired content failed; trying again later", metadata: ["error": LoggedError.metadata(error)])
                }
                try? await Task.sleep(for: Self.interval)
            }
        }
    }

    /// One sweep: marks expired job content and deletes expired unused blobs, in batches, removing
    /// their files after each batch commits; returns how many of each.
    package func sweep(on connection: PostgresConnection) async throws -> (jobs: Int, blobs: Int) {
        var jobs = 0
        while true {
            let rows = try await connection.query(
                """
                UPDATE jobs SET result = result || '{"expired": true}'::jsonb
                WHERE id IN (
                    SELECT j.id FROM jobs j JOIN tenants t ON t.id = j.tenant_id
                    WHERE j.state = 'succeeded' AND j.result IS NOT NULL AND j.result->'expired' IS NULL
                      AND j.finished_at < now()
                          - coalesce((j.policies->>'retention_days')::int, t.content_retention_days, \(defaultDays)) * interval '1 day'
                    LIMIT \(Self.batch)
                )
                RETURNING result->>'file'
                """, logger: logger)
            var count = 0
            for try await file in rows.decode(String?.self) {
                count += 1
                if let file, let path = files.absolute(file) { files.spares.recycle(path) }
            }
            jobs += count
            if count < Self.batch { break }
        }
        var blobs = 0
        while true {
            let rows = try await connection.query(
                """
                DELETE FROM blobs WHERE id IN (
                    SELECT b.id FROM blobs b JOIN tenants t ON t.id = b.tenant_id
                    WHERE b.created_at < now() - coalesce(t.content_retention_days, \(defaultDays)) * interval '1 day'
                      AND NOT EXISTS (
                          SELECT 1 FROM jobs j
                          WHERE j.tenant_id = b.tenant_id AND j.state NOT IN ('succeeded', 'failed', 'cancelled')
                            AND lower(j.request->'body'->>'blob') = b.id::text)
                    LIMIT \(Self.batch)
                    FOR UPDATE OF b SKIP LOCKED
                )
                RETURNING path
                """, logger: logger)
            var count = 0
            for try await path in rows.decode(String.self) {
                count += 1
                if let absolute = files.absolute(path) { files.spares.recycle(absolute) }
            }
            blobs += count
            if count < Self.batch { break }
        }
        return (jobs, blobs)
    }
}
