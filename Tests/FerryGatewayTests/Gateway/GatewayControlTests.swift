import Foundation
import Testing
import URLLoadingTestSupport

/// Pause, resume, cancel, retries and illegal transitions, through a real ferryd.
@Suite("Gateway job control", .timeLimit(.minutes(5)))
struct GatewayControlTests {
    /// 8 MiB at about 1.3 MB/s (64 KiB every 50 ms): several seconds, long enough to act on.
    static let slowSize = 8 << 20
    static func slowURL(_ fixture: GatewayFixture, size: Int = slowSize) -> String {
        fixture.origin.url("/bytes/\(size)?pace_ms=50")
    }

    @Test("a running download paused through the API keeps resume data; resumed, it continues with Range and ends with the right SHA-256 (DL-07, DL-11)")
    func pauseAndResume() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let id = try await client.submit(["kind": "download", "request": ["url": Self.slowURL(fixture)]])
            _ = try await client.waitForJob(id) { (($0["progress"] as? [String: Any])?["bytes_done"] as? Int ?? 0) > 500_000 }

            let pause = try await client.post("/v1/jobs/\(id)/pause")
            #expect(pause.status == 202, "a running job is asked to pause: \(pause.text)")
            #expect(pause["stop_requested"] as? String == "pause")
            let paused = try await client.waitForState(id, ["paused"])
            #expect(paused["state"] as? String == "paused", "\(paused)")
            let pausedAt = (paused["progress"] as? [String: Any])?["bytes_done"] as? Int ?? 0
            #expect(pausedAt > 0 && pausedAt < Self.slowSize)

            let again = try await client.post("/v1/jobs/\(id)/pause")
            #expect(again.status == 409)
            #expect(again.code == "illegal_transition")

            let resume = try await client.post("/v1/jobs/\(id)/resume")
            #expect(resume.status == 200)
            #expect(resume["state"] as? String == "queued")
            let done = try await client.waitForState(id, ["succeeded", "failed"])
            #expect(done["state"] as? String == "succeeded", "\(done)")
            #expect((done["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(Self.slowSize))
            let ranges = fixture.origin.requests.compactMap { $0.header("Range") }
            #expect(ranges.contains { $0.hasPrefix("bytes=") && $0 != "bytes=0-" }, "the origin saw the download continue: \(ranges)")
            #expect(fixture.origin.requests.filter { $0.header("Range") != nil }.allSatisfy { $0.header("If-Range") != nil })

            // Succeeded is final: resuming or pausing it is refused, never a silent change.
            let illegal = try await client.post("/v1/jobs/\(id)/resume")
            #expect(illegal.status == 409)
            #expect(illegal.code == "illegal_transition")
            #expect(illegal["detail"] as? String == "only a paused job can be resumed; this job is succeeded")
        }
    }

    @Test("cancelling a running job stops it and removes its partial file; cancelling it again is a 409")
    func cancelRunning() async throws {
        try await GatewayFixture.with { fixture in
            let (tenant, client) = try await fixture.tenant()
            let id = try await client.submit(["kind": "download", "request": ["url": Self.slowURL(fixture)]])
            _ = try await client.waitForJob(id) { (($0["progress"] as? [String: Any])?["bytes_done"] as? Int ?? 0) > 100_000 }
            let cancel = try await client.post("/v1/jobs/\(id)/cancel")
            #expect(cancel.status == 202)
            let cancelled = try await client.waitForState(id, ["cancelled"])
            #expect(cancelled["state"] as? String == "cancelled", "\(cancelled)")
            #expect((cancelled["error"] as? [String: Any])?["code"] as? String == "cancelled")
            let directory = "\(fixture.dataDirectory)/files/\(tenant)"
            let left = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            #expect(left.isEmpty, "no partial file stays: \(left)")
            #expect(try await client.post("/v1/jobs/\(id)/cancel").status == 409)
        }
    }

    @Test("a queued job can be paused and cancelled at once, without a worker")
    func controlWhileQueued() async throws {
        try await GatewayFixture.with(options: .init(workers: 1)) { fixture in
            let (_, client) = try await fixture.tenant()
            let blocker = try await client.submit(["kind": "download", "request": ["url": Self.slowURL(fixture)]])
            _ = try await client.waitForState(blocker, ["running"])
            let waiting = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/10")]])
            let paused = try await client.post("/v1/jobs/\(waiting)/pause")
            #expect(paused.status == 200)
            #expect(paused["state"] as? String == "paused")
            let cancelled = try await client.post("/v1/jobs/\(waiting)/cancel")
            #expect(cancelled.status == 200)
            #expect(cancelled["state"] as? String == "cancelled")
            #expect(try await client.post("/v1/jobs/\(blocker)/cancel").status == 202)
            _ = try await client.waitForState(blocker, ["cancelled"])
        }
    }

    @Test("a 503 is retried with backoff up to max_attempts, every attempt recorded; a 404 fails at once with the status kept")
    func retries() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let flaky = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/status/503")], "retry": ["max_attempts": 3]])
            let failed = try await client.waitForState(flaky, ["failed", "succeeded"])
            #expect(failed["state"] as? String == "failed")
            #expect(failed["attempt"] as? Int == 3)
            #expect((failed["error"] as? [String: Any])?["code"] as? String == "http_error")
            #expect((failed["response"] as? [String: Any])?["status"] as? Int == 503)
            let attempts = try await PostgresProbe.value(
                "SELECT string_agg(outcome, ',' ORDER BY attempt) FROM job_attempts WHERE job_id = \(UUID(uuidString: flaky)!)",
                as: String.self, on: fixture.database.connectionConfiguration)
            #expect(attempts == "retrying,retrying,failed")

            let missing = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/status/404")], "retry": ["max_attempts": 3]])
            let notFound = try await client.waitForState(missing, ["failed", "succeeded"])
            #expect(notFound["attempt"] as? Int == 1, "a 4xx is not retried")
            #expect((notFound["response"] as? [String: Any])?["status"] as? Int == 404)
        }
    }

    @Test("a checksum that does not match fails the job and keeps no content")
    func checksumMismatch() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let id = try await client.submit([
                "kind": "download", "request": ["url": fixture.origin.url("/bytes/1000")], "checksum": ["sha256": String(repeating: "0", count: 64)],
            ])
            let job = try await client.waitForState(id, ["failed", "succeeded"])
            #expect((job["error"] as? [String: Any])?["code"] as? String == "checksum_mismatch")
            #expect(try await client.get("/v1/jobs/\(id)/content").status == 409)
            let good = try await client.submit([
                "kind": "download", "request": ["url": fixture.origin.url("/bytes/1000")], "checksum": ["sha256": GatewayFixture.patternSHA256(1000)],
            ])
            #expect(try await client.waitForState(good, ["failed", "succeeded"])["state"] as? String == "succeeded")
        }
    }
}
