import Foundation
import Testing
import URLLoadingTestSupport

/// Gateway sessions: the seeds' configured sessions that jobs run in (SES-01, SES-08, SES-33).
@Suite("Gateway sessions", .timeLimit(.minutes(5)))
struct GatewaySessionTests {
    @Test("jobs in a session send its additional headers unless they set their own (SES-08)")
    func additionalHeaders() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let created = try await client.post("/v1/sessions", json: [
                "kind": "ephemeral",
                "configuration": [
                    "timeouts": ["idle": 30], "max_connections_per_host": 2, "tls": ["minimum": "1.2"],
                    "additional_headers": ["X-Team": "blue", "Authorization": "Bearer s3cret", "Accept": "text/plain"],
                ],
            ])
            #expect(created.status == 201, "\(created.text)")
            #expect(created["kind"] as? String == "ephemeral")
            #expect(!created.text.contains("s3cret"), "secrets are never echoed")
            let session = try #require(created["id"] as? String)

            let id = try await client.submit([
                "kind": "download", "session": session, "request": ["url": fixture.origin.url("/bytes/10"), "headers": ["Accept": "application/json"]],
            ])
            #expect(try await client.waitForState(id, ["succeeded", "failed"])["state"] as? String == "succeeded")
            let seen = try #require(fixture.origin.requests.last { $0.path == "/bytes/10" })
            #expect(seen.header("X-Team") == "blue")
            #expect(seen.header("Authorization") == "Bearer s3cret")
            #expect(seen.header("Accept") == "application/json", "the job's own header wins")
            #expect(try await client.get("/v1/sessions/\(session)")["id"] as? String == session)
            #expect(((try await client.get("/v1/sessions"))["sessions"] as? [Any])?.count == 1)
        }
    }

    @Test("a session invalidated with finish takes no new jobs; with cancel it cancels its waiting and running jobs (SES-33)")
    func invalidation() async throws {
        try await GatewayFixture.with(options: .init(workers: 1)) { fixture in
            let (_, client) = try await fixture.tenant()
            let finishing = try #require(try await client.post("/v1/sessions", json: [:])["id"] as? String)
            let finished = try await client.delete("/v1/sessions/\(finishing)?mode=finish")
            #expect(finished.status == 200)
            #expect(finished["invalidation_mode"] as? String == "finish")
            let refused = try await client.post("/v1/jobs", json: ["kind": "download", "session": finishing, "request": ["url": fixture.origin.url("/bytes/1")]])
            #expect(refused.status == 409)
            #expect(refused.code == "session_invalidated")

            let cancelling = try #require(try await client.post("/v1/sessions", json: ["kind": "background", "identifier": "cancelling"])["id"] as? String)
            let running = try await client.submit([
                "kind": "download", "session": cancelling, "request": ["url": fixture.origin.url("/bytes/\(8 << 20)?pace_ms=50")],
            ])
            _ = try await client.waitForState(running, ["running"])
            let waiting = try await client.submit(["kind": "download", "session": cancelling, "request": ["url": fixture.origin.url("/bytes/5")]])
            #expect(try await client.delete("/v1/sessions/\(cancelling)?mode=cancel").status == 200)
            #expect(try await client.waitForState(waiting, ["cancelled"])["state"] as? String == "cancelled")
            #expect(try await client.waitForState(running, ["cancelled"])["state"] as? String == "cancelled")
            // Each counted once, by whichever ended it: the invalidation, or the worker it asked.
            let cancelled = ["outcome": "cancelled", "error_code": "cancelled"]
            let counted = try await GatewayMetricsTests.metrics(fixture) { $0.value("ferry_jobs_finished_total", cancelled) == 2 }
            #expect(counted.value("ferry_jobs_finished_total", cancelled) == 2)
            #expect(try await client.delete("/v1/sessions/\(cancelling)?mode=later").status == 400)
        }
    }

    @Test("bad configurations get field errors; another tenant's session is not found")
    func validationAndIsolation() async throws {
        try await GatewayFixture.with { fixture in
            let (_, alice) = try await fixture.tenant()
            let (_, bob) = try await fixture.tenant()
            let bad = try await alice.post("/v1/sessions", json: [
                "kind": "forever",
                "configuration": ["max_connections_per_host": 0, "tls": ["minimum": "1.3", "maximum": "1.2"], "proxy": "ftp://x", "additional_headers": ["Host": "x"]],
            ])
            #expect(bad.status == 400)
            let fields = Set(((bad["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["kind", "configuration.max_connections_per_host", "configuration.tls", "configuration.proxy", "configuration.additional_headers.Host"])
            let session = try #require(try await alice.post("/v1/sessions", json: [:])["id"] as? String)
            #expect(try await bob.get("/v1/sessions/\(session)").status == 404)
            #expect(try await bob.delete("/v1/sessions/\(session)").status == 404)
            let borrowed = try await bob.post("/v1/jobs", json: ["kind": "download", "session": session, "request": ["url": fixture.origin.url("/bytes/1")]])
            #expect(borrowed.status == 404)
            #expect(borrowed.code == "session_not_found")
        }
    }
}
