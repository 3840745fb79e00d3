@testable import FerryStore
import Testing

/// The state parts of the set-based statements come from `JobStateMachine.transitions`
/// (`JobStateSQL`), and read exactly as the SQL whose plans the P3 bench measured.
@Suite("Job state SQL")
struct JobStateSQLTests {
    @Test("the claim takes queued and retrying jobs, in the order of jobs_claimable_in_order's predicate, and makes them running")
    func claim() {
        #expect(JobStateSQL.claimable == "'queued', 'retrying'")
        #expect(JobStateSQL.claimed == "'running'")
        let sql = ClaimJobsStatement.sql
        #expect(sql.components(separatedBy: "state IN ('queued', 'retrying')").count - 1 == 4, "the partial index's predicate, word for word")
        #expect(sql.contains("UPDATE jobs SET state = 'running', attempt = attempt + 1"))
        #expect(sql.contains("SELECT count(*) AS n FROM jobs r WHERE r.tenant_id = t.id AND r.state = 'running'"))
        for statement in [InsertJobStatement.sql, InsertJobBatchStatement.sql] {
            #expect(statement.contains("state IN ('queued', 'retrying')"), "the queue's room counts the claimable jobs")
        }
    }

    @Test("an expired lease carries out the stop asked of its worker, else queues the job again")
    func leaseExpiry() {
        #expect(JobStateSQL.expirable == "'running', 'waiting_for_decision'")
        #expect(JobStateSQL.onExpiry { JobStateSQL.literal($0.to) }
            == "CASE stop_request WHEN 'pause' THEN 'paused' WHEN 'cancel' THEN 'cancelled' ELSE 'queued' END")
        #expect(JobStateSQL.onExpiry { $0.finishes ? "now()" : "NULL" }
            == "CASE stop_request WHEN 'pause' THEN NULL WHEN 'cancel' THEN now() ELSE NULL END")
    }

    @Test("a session's cancel (SES-33) cancels jobs without a worker at once and asks the running ones' workers")
    func sessionCancel() {
        #expect(JobStateSQL.cancellableAtOnce == "'queued', 'paused', 'waiting_for_decision', 'retrying'")
        #expect(JobStateSQL.cancelled == "'cancelled'")
        #expect(JobStateSQL.cancellableByWorker == "'running'")
        #expect(JobStateSQL.literalStopRequest(.cancel) == "'cancel'")
    }
}
