import Foundation
import Testing
import URLLoadingTestSupport

/// `POST /v1/jobs` with `Prefer: wait=N` (RFC 7240 §4.3; the gateway's form of the seeds' synchronous
/// request, LG-01, LG-08, ER-09): a job that ends within N seconds is answered 200 with its final
/// state and content, one that does not as without the preference.
@Suite("Gateway Prefer: wait", .timeLimit(.minutes(3)))
struct GatewayPreferWaitTests {
    @Test("a data job that ends in time comes back finished with its body inline; a bigger one with a link; a failed one with its error (RFC 7240 §4.3, LG-01, ER-09)")
    func answeredFinished() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let small = try await client.send(
                "POST", "/v1/jobs", json: ["kind": "data", "request": ["url": fixture.origin.url("/bytes/1000")]], headers: ["Prefer": "wait=30"])
            #expect(small.status == 200, "\(small.text)")
            #expect(small.headers["Preference-Applied"] == "wait=30")
            #expect(small.headers["Location"]?.hasPrefix("/v1/jobs/") == true)
            #expect(small["state"] as? String == "succeeded")
            let content = small["content"] as? [String: Any]
            let id = try #require(small["id"] as? String)
            #expect(content?["href"] as? String == "/v1/jobs/\(id)/content")
            #expect(content?["size"] as? Int == 1000)
            let inline = try #require((content?["base64"] as? String).flatMap { Data(base64Encoded: $0) })
            #expect(Array(inline) == OriginServer.patternBytes(count: 1000))

            // Above the inline limit: the link only. A download job's content is never inline.
            for (kind, size) in [("data", 100_000), ("download", 1000)] {
                let reply = try await client.send(
                    "POST", "/v1/jobs", json: ["kind": kind, "request": ["url": fixture.origin.url("/bytes/\(size)")]],
                    headers: ["Prefer": "wait=30"])
                #expect(reply.status == 200, "\(reply.text)")
                let content = reply["content"] as? [String: Any]
                #expect(content?["size"] as? Int == size)
                #expect(content?["href"] != nil)
                #expect(content?["base64"] == nil, "\(kind) of \(size) bytes is not inline")
            }

            let failed = try await client.send(
                "POST", "/v1/jobs", json: ["kind": "data", "request": ["url": fixture.origin.url("/status/404")], "retry": ["max_attempts": 1]],
                headers: ["Prefer": "wait=30"])
            #expect(failed.status == 200, "\(failed.text)")
            #expect(failed["state"] as? String == "failed")
            #expect((failed["error"] as? [String: Any])?["code"] as? String == "http_error")
            #expect(failed["content"] == nil)
        }
    }

    @Test("a job still running after N seconds is answered 201 without Preference-Applied; respond-async and unreadable waits are ignored (RFC 7240 §2, §4.1)")
    func answeredPending() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            // 8 MiB at about 1.3 MB/s: several seconds.
            let slow = ["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(8 << 20)?pace_ms=50")]] as [String: Any]
            let started = ContinuousClock.now
            let waited = try await client.send("POST", "/v1/jobs", json: slow, headers: ["Prefer": "wait=1"])
            #expect(waited.status == 201, "\(waited.text)")
            #expect(waited.headers["Preference-Applied"] == nil)
            #expect(["queued", "running"].contains(waited["state"] as? String))
            #expect(ContinuousClock.now - started >= .seconds(1), "the request waited the second it offered")

            for prefer in ["respond-async, wait=30", "wait=soon", "wait=-1", "wait"] {
                let reply = try await client.send("POST", "/v1/jobs", json: slow, headers: ["Prefer": prefer])
                #expect(reply.status == 201, "Prefer: \(prefer) -> \(reply.status)")
                #expect(reply.headers["Preference-Applied"] == nil)
                #expect(reply["state"] as? String == "queued", "Prefer: \(prefer) is answered at once")
            }
        }
    }
}
