import Foundation
import Testing
import URLLoadingTestSupport

/// Crashes, shutdowns and several ferryd on one database ("Jobs and workers").
@Suite("Gateway recovery", .timeLimit(.minutes(8)))
struct GatewayRecoveryTests {
    static let size = 8 << 20

    @Test("kill -9 of ferryd mid-download, then a restart: the job is taken over after its lease, continues with Range, and ends with the right SHA-256 (DL-12)")
    func killNineThenRestart() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let id = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(Self.size)?pace_ms=50")]])
            // Killed once it has written past its stored resume data (progress is stored every
            // second, resume data every few), as a real crash would find it. The offset is the one
            // read with that progress, in the same row: a snapshot stored after it can only be later.
            let aheadOfSnapshot = """
                SELECT (resume_data->>'offset')::bigint FROM jobs WHERE id = '\(id)' AND bytes_done > (resume_data->>'offset')::bigint
                """
            var storedOffset = 0
            #expect(try await DatabaseQuery.wait(timeout: .seconds(60)) {
                guard let offset = await DatabaseQuery.text(aheadOfSnapshot, fixture.database).flatMap({ Int($0) }) else { return false }
                storedOffset = offset
                return true
            })
            await fixture.server.kill()

            let restarted = try await fixture.startAnother(name: "restarted")
            let client2 = client.with(baseURL: restarted.baseURL)
            let job = try await client2.waitForState(id, ["succeeded", "failed"], timeout: .seconds(120))
            _ = try await restarted.terminate()
            #expect(job["state"] as? String == "succeeded", "\(job)\n\(restarted.log)")
            #expect((job["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(Self.size))
            let ranges = fixture.origin.requests.compactMap { $0.header("Range") }
            #expect(ranges.contains { $0 != "bytes=0-" }, "the restarted ferryd continued with a Range request: \(ranges)")
            // It continued after everything the killed ferryd wrote, not from the older stored offset.
            let continuedAt = ranges.compactMap { Int($0.dropFirst("bytes=".count).dropLast()) }.max() ?? 0
            #expect(continuedAt > storedOffset, "continued at \(continuedAt); the stored resume data said \(storedOffset)")
            let outcomes = await DatabaseQuery.text(
                "SELECT string_agg(coalesce(outcome, 'open'), ',' ORDER BY attempt) FROM job_attempts WHERE job_id = '\(id)'", fixture.database)
            #expect(outcomes == "interrupted,succeeded")
        }
    }

    @Test("SIGTERM: ferryd pauses its transfers with resume data, gives the jobs back and exits 0; the next ferryd finishes them")
    func gracefulShutdown() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let id = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(Self.size)?pace_ms=50")]])
            _ = try await client.waitForJob(id) { (($0["progress"] as? [String: Any])?["bytes_done"] as? Int ?? 0) > 300_000 }
            let started = ContinuousClock.now
            let status = try await fixture.server.terminate(timeout: .seconds(20))
            #expect(status == 0, "\(fixture.server.log)")
            #expect(ContinuousClock.now - started < .seconds(20))
            #expect(await DatabaseQuery.text("SELECT state FROM jobs WHERE id = '\(id)'", fixture.database) == "queued")
            #expect(await DatabaseQuery.bool("SELECT resume_data IS NOT NULL AND lease_owner IS NULL FROM jobs WHERE id = '\(id)'", fixture.database))

            let next = try await fixture.startAnother(name: "next")
            let job = try await client.with(baseURL: next.baseURL).waitForState(id, ["succeeded", "failed"], timeout: .seconds(120))
            _ = try await next.terminate()
            #expect(job["state"] as? String == "succeeded", "\(job)")
            #expect((job["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(Self.size))
            #expect(fixture.origin.requests.contains { ($0.header("Range") ?? "bytes=0-") != "bytes=0-" })
        }
    }

    @Test("two ferryd processes on one database run 500 jobs, each exactly once")
    func twoProcessesShareTheWork() async throws {
        try await GatewayFixture.with { fixture in
            let second = try await fixture.startAnother(name: "second")
            let (_, client) = try await fixture.tenant()
            var ids: [String] = []
            for index in 0..<500 {
                let server = index % 2 == 0 ? client : client.with(baseURL: second.baseURL)
                ids.append(try await server.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(1000 + index)")]]))
            }
            let finished = try await DatabaseQuery.wait(timeout: .seconds(180)) {
                await DatabaseQuery.text("SELECT count(*) FROM jobs WHERE state = 'succeeded'", fixture.database) == "500"
            }
            _ = try await second.terminate()
            let states = await DatabaseQuery.text("SELECT string_agg(state || ':' || n, ',') FROM (SELECT state, count(*) n FROM jobs GROUP BY state) s", fixture.database)
            #expect(finished, "\(states ?? "")")
            #expect(await DatabaseQuery.text("SELECT count(*) FROM job_attempts", fixture.database) == "500", "one attempt per job")
            #expect(await DatabaseQuery.text("SELECT count(*) FROM job_attempts WHERE outcome = 'succeeded'", fixture.database) == "500")
            #expect(await DatabaseQuery.text("SELECT count(DISTINCT worker) FROM job_attempts", fixture.database) == "2", "both processes worked")
            let fetched = fixture.origin.requests.filter { $0.path.hasPrefix("/bytes/") }.map(\.path)
            #expect(fetched.count == 500)
            #expect(Set(fetched).count == 500, "no job ran twice")
        }
    }

    @Test("fairness: a tenant's long queue does not starve another tenant's single job")
    func fairness() async throws {
        try await GatewayFixture.with(options: .init(workers: 1)) { fixture in
            let (_, busy) = try await fixture.tenant("busy")
            let (_, quiet) = try await fixture.tenant("quiet")
            var busyIDs: [String] = []
            // About 1.8 s each: under the full suite's load, submitting them took long enough for
            // twelve 0.5 s jobs to finish before the quiet job came.
            for _ in 0..<20 {
                busyIDs.append(try await busy.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/600000?pace_ms=200")]]))
            }
            _ = try await busy.waitForState(busyIDs[0], ["running", "succeeded"])
            let single = try await quiet.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/100")]])
            let waitingBusy = await DatabaseQuery.text(
                "SELECT count(*) FROM jobs j JOIN tenants t ON t.id = j.tenant_id WHERE t.name = 'busy' AND j.state = 'queued'", fixture.database)
            let done = try await quiet.waitForState(single, ["succeeded"], timeout: .seconds(60))
            #expect(done["state"] as? String == "succeeded")
            #expect(Int(waitingBusy ?? "") ?? 0 >= 10, "the busy tenant still had a long queue when the quiet job came (\(waitingBusy ?? "?"))")
            // Judged by the order attempts started in, not by timing: with one worker, once the quiet
            // job exists it is the next one claimed; at most one busy job (claimed in the same
            // instant it was created) may start between its creation and its own start.
            let overtaking = await DatabaseQuery.text(
                """
                SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id JOIN tenants t ON t.id = j.tenant_id
                WHERE t.name = 'busy'
                  AND a.started_at > (SELECT created_at FROM jobs WHERE id = '\(single)')
                  AND a.started_at < (SELECT started_at FROM job_attempts WHERE job_id = '\(single)')
                """, fixture.database)
            #expect(["0", "1"].contains(overtaking ?? ""), "busy jobs that started before the quiet one once it was waiting: \(overtaking ?? "?")")
            for id in busyIDs { _ = try await busy.post("/v1/jobs/\(id)/cancel") }
        }
    }
}
