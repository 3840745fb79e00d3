import Foundation
import Testing
import URLLoadingTestSupport

/// Partial downloads never outlive their job, and a worker that stalled past its lease and came back
/// loses quietly: its files are its own, it writes nothing of the job's, and the job its successor
/// runs ends as if it had never been (DL-12, issue 18). Real ferryd processes, killed and stopped.
@Suite("Gateway partial files", .timeLimit(.minutes(8)))
struct GatewayPartialFileTests {
    /// The temporary files in the tenant's job directory.
    static func temporaryFiles(_ fixture: GatewayFixture, tenant: String) -> [String] {
        let directory = "\(fixture.dataDirectory)/files/\(tenant.lowercased())"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".tmp") }.sorted()
    }

    @Test("kill -9 mid-download of a body that cannot be resumed, then a new ferryd: the job starts over and the killed attempt's partial file is removed")
    func killedAttemptLeavesNoPartialFile() async throws {
        try await GatewayFixture.with { fixture in
            let (tenant, client) = try await fixture.tenant()
            // No validators: nothing resumable, so no resume data ever names the first attempt's file.
            let stall = 3_000_000
            let url = fixture.origin.url("/resumable/8000000?stall_at=\(stall)&etag=none&last_modified=none")
            let id = try await client.submit(["kind": "download", "request": ["url": url]])
            _ = try await client.waitForJob(id) { (($0["progress"] as? [String: Any])?["bytes_done"] as? Int ?? 0) == stall }
            #expect(Self.temporaryFiles(fixture, tenant: tenant).count == 1)
            await fixture.server.kill()

            let restarted = try await fixture.startAnother(name: "restarted")
            let job = try await client.with(baseURL: restarted.baseURL).waitForState(id, ["succeeded", "failed"], timeout: .seconds(120))
            #expect(job["state"] as? String == "succeeded", "\(job)\n\(restarted.log)")
            #expect((job["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(8_000_000))
            let left = Self.temporaryFiles(fixture, tenant: tenant)
            _ = try await restarted.terminate()
            #expect(left.isEmpty, "partial files left: \(left)")
        }
    }

    @Test("a ferryd stopped past its lease comes back after its job was taken over: the job still succeeds with the right content, and no partial file is left")
    func staleWorkerLosesQuietly() async throws {
        try await GatewayFixture.with { fixture in
            let (tenant, client) = try await fixture.tenant()
            let size = 8 << 20
            let id = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(size)?pace_ms=50")]])
            // Stopped once it stored resume data, so its successor continues the same partial file.
            let snapshotStored = "SELECT (resume_data->>'offset')::bigint > 0 FROM jobs WHERE id = '\(id)'"
            #expect(try await DatabaseQuery.wait(timeout: .seconds(60)) { await DatabaseQuery.bool(snapshotStored, fixture.database) })
            fixture.server.stopProcess()

            let successor = try await fixture.startAnother(name: "successor")
            let client2 = client.with(baseURL: successor.baseURL)
            let takenOver = "SELECT attempt >= 2 AND state = 'running' FROM jobs WHERE id = '\(id)'"
            let tookOver = try await DatabaseQuery.wait(timeout: .seconds(60)) { await DatabaseQuery.bool(takenOver, fixture.database) }
            #expect(tookOver, "\(successor.log)")
            // The stale worker comes back while its successor downloads: it still holds the file and
            // the connection, and the origin's bytes are waiting in its socket.
            fixture.server.resumeProcess()

            let job = try await client2.waitForState(id, ["succeeded", "failed"], timeout: .seconds(180))
            #expect(job["state"] as? String == "succeeded", "\(job)\n\(successor.log)\n\(fixture.server.log)")
            #expect((job["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(size))
            let content = try await client2.get("/v1/jobs/\(id)/content")
            #expect(GatewayFixture.sha256(content.body) == GatewayFixture.patternSHA256(size))

            // Once the stale worker has noticed and stopped, nothing of the job is left behind.
            let clean = try await DatabaseQuery.wait(timeout: .seconds(30)) { Self.temporaryFiles(fixture, tenant: tenant).isEmpty }
            #expect(clean, "partial files left: \(Self.temporaryFiles(fixture, tenant: tenant))")
            let outcomes = await DatabaseQuery.text(
                "SELECT string_agg(coalesce(outcome, 'open'), ',' ORDER BY attempt) FROM job_attempts WHERE job_id = '\(id)'", fixture.database)
            #expect(outcomes == "interrupted,succeeded")
            // The content stays what the successor stored, whatever the stale worker did after.
            try await Task.sleep(for: .seconds(2))
            let again = try await client2.get("/v1/jobs/\(id)/content")
            #expect(GatewayFixture.sha256(again.body) == GatewayFixture.patternSHA256(size))
            _ = try await successor.terminate()
        }
    }
}
