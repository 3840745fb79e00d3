@testable import FerryStore
import FerrydTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The ends' statement is prepared once per connection, so its plan outlives the statistics it was
/// made from. A queue that drained leaves statistics that say `job_attempts` is empty while its pages
/// stay (`vacuum_truncate = false`); filled again, the table must still be reached through its keys.
@Suite("Finish plan", .timeLimit(.minutes(3)))
struct FinishJobsPlanTests {
    let logger = Logger(label: "ferry.tests.finish-plan")

    /// Every read of `table` in a plan: its node type, index and index condition.
    func scans(of table: String, in plan: Any) -> [(type: String, index: String?, condition: String?)] {
        guard let node = plan as? [String: Any], let type = node["Node Type"] as? String else { return [] }
        var found: [(String, String?, String?)] = []
        let index = node["Index Name"] as? String
        if type.hasSuffix("Scan"), node["Relation Name"] as? String == table || index?.hasPrefix("\(table)_") == true {
            found.append((type, index, node["Index Cond"] as? String))
        }
        for child in node["Plans"] as? [Any] ?? [] {
            found += scans(of: table, in: child)
        }
        return found
    }

    @Test("ending attempts reaches each attempt's row through its primary key after the queue drained and filled again")
    func endsReadNoWholeAttemptsTable() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let tenant = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), 'drained')", on: connection)
            let fill = """
                WITH made AS (
                    INSERT INTO jobs (tenant_id, kind, request, state, attempt, lease_owner, lease_expires_at)
                    SELECT '\(tenant.uuidString)'::uuid, 'download', jsonb_build_object('url', 'http://example.invalid/' || g), 'running', 1,
                           'worker', now() + interval '1 minute'
                    FROM generate_series(1, 300) g
                    RETURNING id
                )
                INSERT INTO job_attempts (job_id, attempt, worker) SELECT id, 1, 'worker' FROM made
                """
            // A first run of the queue, deleted: VACUUM then records no rows on the pages it keeps.
            try await PostgresProbe.execute("\(unescaped: fill)", on: connection)
            try await PostgresProbe.execute("DELETE FROM jobs", on: connection)
            try await PostgresProbe.execute("VACUUM ANALYZE jobs, job_attempts", on: connection)
            // The next run, before autovacuum looks again.
            try await PostgresProbe.execute("\(unescaped: fill)", on: connection)
            try await PostgresProbe.execute("SET plan_cache_mode = force_generic_plan", on: connection)
            try await PostgresProbe.execute("PREPARE finish(text, text) AS \(unescaped: FinishJobsStatement.sql)", on: connection)
            let text = try #require(try await PostgresProbe.value(
                "EXPLAIN (FORMAT JSON) EXECUTE finish('[]', 'channel')", as: String.self, on: connection))
            let explained = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
            let plan = try #require(explained.first?["Plan"])
            // 300 rows on pages that say none: a plan that scans them all for every end (the
            // `UPDATE ... FROM` this replaced did, as soon as the table's pages cost less than ten
            // probes of its index) becomes quadratic as the table fills.
            for scan in scans(of: "job_attempts", in: plan) {
                #expect(scan.index == "job_attempts_pkey" && scan.condition?.contains("job_id = ") == true, "\(scan)")
            }
        }
    }
}
