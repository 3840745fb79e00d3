@testable import FerryStore
import FerrydTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// What a claim reads must follow the waiting and running jobs, not every job ever kept: a database
/// keeps ended jobs until their clients delete them.
@Suite("Claim plan", .timeLimit(.minutes(3)))
struct ClaimJobsPlanTests {
    let logger = Logger(label: "ferry.tests.claim-plan")

    /// Every read of `jobs` in the claim's generic plan: a sequential scan, or a scan of one of its
    /// indexes (a bitmap heap scan reads what its index scans found), with the index condition.
    func scansOfJobs(in plan: Any) -> [(type: String, index: String?, condition: String?)] {
        guard let node = plan as? [String: Any], let type = node["Node Type"] as? String else { return [] }
        var scans: [(String, String?, String?)] = []
        let index = node["Index Name"] as? String
        if (type == "Seq Scan" && node["Relation Name"] as? String == "jobs") || index?.hasPrefix("jobs_") == true {
            scans.append((type, index, node["Index Cond"] as? String))
        }
        for child in node["Plans"] as? [Any] ?? [] {
            scans += scansOfJobs(in: child)
        }
        return scans
    }

    @Test("a claim counts the running jobs of the waiting tenants only, through (tenant_id, state); no scan of jobs covers ended ones")
    func claimReadsNoEndedJobs() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let kept = UUID()
            let waiting = UUID()
            try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(kept), 'kept'), (\(waiting), 'waiting')", on: connection)
            try await PostgresProbe.execute(
                """
                INSERT INTO jobs (tenant_id, kind, request, state, finished_at, result)
                SELECT \(kept), 'download', jsonb_build_object('url', 'http://example.invalid/' || g), 'succeeded', now(), '{}'
                FROM generate_series(1, 5000) g
                """, on: connection)
            try await PostgresProbe.execute(
                """
                INSERT INTO jobs (tenant_id, kind, request)
                SELECT \(waiting), 'download', jsonb_build_object('url', 'http://example.invalid/' || g) FROM generate_series(1, 3) g
                """, on: connection)
            try await PostgresProbe.execute("ANALYZE jobs", on: connection)
            try await PostgresProbe.execute("SET plan_cache_mode = force_generic_plan", on: connection)
            try await PostgresProbe.execute(
                "PREPARE claim(int8, int8, int8, text, int8) AS \(unescaped: ClaimJobsStatement.sql)", on: connection)
            let text = try #require(try await PostgresProbe.value(
                "EXPLAIN (FORMAT JSON) EXECUTE claim(4, 24, 12, 'worker', 60)", as: String.self, on: connection))
            let explained = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
            let scans = scansOfJobs(in: try #require(explained.first?["Plan"]))
            #expect(!scans.isEmpty)
            for scan in scans {
                // Through the primary key, the index of claimable jobs only, or one tenant's entries.
                let bounded = scan.index == "jobs_pkey" || scan.index == "jobs_claimable_in_order"
                    || (scan.condition?.contains("tenant_id = ") ?? false)
                #expect(bounded, "\(scan)")
            }
            #expect(scans.contains { $0.index == "jobs_by_tenant_state" && ($0.condition?.contains("state = 'running'") ?? false) },
                    "the running count: \(scans)")
        }
    }
}
