import Foundation
import Testing
import URLLoadingTestSupport

/// Per-tenant limits, and upload jobs that send another job's content.
@Suite("Gateway limits", .timeLimit(.minutes(5)))
struct GatewayLimitsTests {
    @Test("a tenant's running limit holds its jobs back, and beyond its queued limit submissions get a 429")
    func tenantLimits() async throws {
        try await GatewayFixture.with { fixture in
            let (_, key) = try await fixture.admin.createTenant("limited", extra: ["max_running_jobs": 1, "max_queued_jobs": 2])
            let client = fixture.admin.with(key: key)
            let slow: [String: Any] = ["kind": "download", "request": ["url": fixture.origin.url("/bytes/2000000?pace_ms=50")]]
            // The first one runs before the others are submitted: the two after it fill the queue
            // whatever the workers' timing.
            var ids = [try await client.submit(slow)]
            _ = try await client.waitForState(ids[0], ["running"])
            for _ in 0..<2 { ids.append(try await client.submit(slow)) }
            // One runs, two wait: the queue is full.
            let refused = try await client.post("/v1/jobs", json: ["kind": "download", "request": ["url": fixture.origin.url("/bytes/1")]])
            #expect(refused.status == 429, "\(refused.text)")
            #expect(refused.code == "queue_full")
            #expect(refused.headers["Retry-After"] != nil)
            for id in ids { #expect(try await client.waitForState(id, ["succeeded", "failed"])["state"] as? String == "succeeded") }
            #expect(fixture.origin.maxConcurrentRequests == 1, "never more than one of the tenant's jobs at once")
        }
    }

    @Test("an upload job can send another succeeded job's content")
    func uploadFromJobContent() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let download = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/123456")]])
            _ = try await client.waitForState(download, ["succeeded"])
            let upload = try await client.submit(["kind": "upload", "request": ["url": fixture.origin.url("/echo"), "body": ["job": download]]])
            let done = try await client.waitForState(upload, ["succeeded", "failed"])
            #expect(done["state"] as? String == "succeeded", "\(done)")
            let echo = try await client.get("/v1/jobs/\(upload)/content").json
            #expect(echo["method"] as? String == "POST")
            #expect(echo["body_length"] as? Int == 123_456)
            #expect(echo["body_fnv1a64"] as? String == OriginServer.fnv1a64Hex(OriginServer.patternBytes(count: 123_456)))
        }
    }
}
