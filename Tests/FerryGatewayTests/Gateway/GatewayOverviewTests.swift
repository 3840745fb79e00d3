import Foundation
import Testing
import URLLoadingTestSupport

/// The attempts and the admin's overview (issue 23) after jobs really ran on a real ferryd.
@Suite("Gateway overview and attempts", .timeLimit(.minutes(5)))
struct GatewayOverviewTests {
    @Test("a job's attempt shows its outcome, status and bytes; the overview counts its bytes in the current hour and its content as stored")
    func attemptsAndOverviewAfterARun() async throws {
        try await GatewayFixture.with { fixture in
            let (tenant, client) = try await fixture.tenant()
            let id = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/250000")]])
            let job = try await client.waitForState(id, ["succeeded", "failed"])
            #expect(job["state"] as? String == "succeeded", "\(job)")

            let attempts = try await client.get("/v1/jobs/\(id)/attempts").list("attempts")
            #expect(attempts.count == 1)
            let attempt = try #require(attempts.first)
            #expect(attempt["attempt"] as? Int == 1)
            #expect(attempt["outcome"] as? String == "succeeded")
            #expect(attempt["http_status"] as? Int == 200)
            #expect(attempt["bytes"] as? Int == 250_000)
            let started = try #require((attempt["started_at"] as? String).flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) })
            let finished = try #require((attempt["finished_at"] as? String).flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) })
            #expect(finished >= started)

            let overview = try await fixture.admin.get("/v1/admin/overview")
            #expect(overview.status == 200)
            #expect((overview["jobs_by_state"] as? [String: Int])?["succeeded"] == 1)
            #expect(overview["bytes_last_hour"] as? Int == 250_000)
            #expect(overview.list("last_hour").compactMap { $0["bytes"] as? Int }.reduce(0, +) == 250_000)
            #expect(overview.list("last_hour").compactMap { $0["succeeded"] as? Int }.reduce(0, +) == 1)
            #expect(overview["oldest_queued_job"] == nil)
            let usage = overview.list("tenants").first { $0["tenant"] as? String == tenant }
            #expect(usage?["stored_bytes"] as? Int == 250_000)
            #expect(usage?["running_jobs"] as? Int == 0)
        }
    }
}
