import Logging
import PostgresNIO

/// The number of jobs in each state across every tenant, as the triggers on `jobs` keep it in
/// `job_state_counts` (migrations/0022), so that `/metrics` and the admin's overview read a few
/// rows instead of counting every job ever kept.
///
/// Each statement that inserts, deletes or changes the state of jobs adds its net change per state
/// to the rows of its own backend (`jobs_count_inserted`, `jobs_count_changed`,
/// `jobs_count_deleted`; `jobs_count_truncated` empties the counts with the table). Rows of one
/// backend are written by one transaction at a time, so concurrent claims and finishes never wait
/// for each other's count. A read sums every backend's rows, and first moves the rows of backends
/// that have disconnected into backend 0, so the table stays at about one row per state and live
/// connection however many connections came and went.
package enum JobStateCounts {
    /// The triggers on `jobs` that keep the counts.
    package static let triggers = ["jobs_count_inserted", "jobs_count_changed", "jobs_count_deleted", "jobs_count_truncated"]

    /// One statement, one snapshot: the sums are the counts as of its start (the fold writes rows
    /// its own read does not see, which hold the same totals), and the scalar subquery, run once,
    /// is how long the longest-waiting runnable job (claimable and due) has waited since it became
    /// runnable. It reads only claimable jobs, through the partial index of the claim
    /// (`jobs_claimable_in_order`), so its cost follows the backlog, not the table.
    ///
    /// Two readers fold by turns (an advisory lock; the one that does not get it leaves the rows to
    /// the next read). A disconnected backend's pid taken again by a new backend is harmless: the
    /// fold then moves a live row's committed value, and the new backend starts a new row.
    static let read: PostgresQuery = """
        WITH gone AS (
            DELETE FROM job_state_counts
            WHERE backend <> 0
              AND backend NOT IN (SELECT a.pid FROM pg_stat_activity a WHERE a.pid IS NOT NULL)
              AND (SELECT pg_try_advisory_xact_lock(hashtextextended('ferry fold job_state_counts', 0)))
            RETURNING state, jobs
        ), folded AS (
            INSERT INTO job_state_counts AS c (state, backend, jobs)
            SELECT g.state, 0, sum(g.jobs) FROM gone g GROUP BY g.state ORDER BY g.state
            ON CONFLICT (state, backend) DO UPDATE SET jobs = c.jobs + excluded.jobs
        )
        SELECT state, sum(jobs)::bigint,
            (SELECT coalesce(extract(epoch FROM now() - min(j.run_after)), 0)::float8
             FROM jobs j WHERE j.state IN (\(unescaped: JobStateSQL.claimable)) AND j.run_after <= now())
        FROM job_state_counts GROUP BY state HAVING sum(jobs) <> 0
        """

    /// Jobs per state (a state without jobs is missing), and the longest wait of a runnable job.
    package static func standing(client: DatabasePool, logger: Logger) async throws -> QueueStanding {
        var standing = QueueStanding()
        for try await (state, count, waited) in try await client.query(read, logger: logger).decode((String, Int64, Double).self) {
            standing.jobsByState[state] = count
            standing.oldestRunnableJobAge = waited
        }
        return standing
    }
}

/// Jobs per state, and the seconds the longest-waiting runnable job has waited (0 when none waits).
package struct QueueStanding: Sendable, Equatable {
    package var jobsByState: [String: Int64] = [:]
    package var oldestRunnableJobAge: Double = 0
}
