import Foundation
import Testing
import URLLoadingTestSupport

/// Background sessions on real ferryd processes (issue 21; BG-01..BG-24 of the checklist): the
/// gateway in the place of the system that runs a background session's transfers for an app.
@Suite("Gateway: background sessions", .timeLimit(.minutes(8)))
struct GatewayBackgroundSessionTests {
    static func background(_ identifier: String, _ configuration: [String: Any] = [:]) -> [String: Any] {
        ["kind": "background", "identifier": identifier, "configuration": configuration]
    }

    static func createSession(_ client: GatewayClient, _ body: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let reply = try await client.post("/v1/sessions", json: body, sourceLocation: sourceLocation)
        guard [200, 201].contains(reply.status), let id = reply["id"] as? String else {
            throw TestFailure("creating the session answered \(reply.status): \(reply.text)")
        }
        return id
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func fields(_ reply: GatewayClient.Reply) -> [String] {
        ((reply["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String }
    }

    @Test("an identifier names one live session per tenant: creating it again rejoins it with its outstanding jobs, at once or after invalidation (BG-08, BG-11, BG-12, BG-15, BG-23)")
    func identifierRejoins() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let created = try await client.post("/v1/sessions", json: Self.background("com.example.sync", ["discretionary": false]))
            #expect(created.status == 201, "\(created.text)")
            #expect(created["identifier"] as? String == "com.example.sync")
            #expect((created["outstanding_jobs"] as? [Any])?.isEmpty == true)
            let session = try #require(created["id"] as? String)

            let slow = try await client.submit([
                "kind": "download", "session": session, "request": ["url": fixture.origin.url("/bytes/2000000?pace_ms=100")],
            ])
            // The client crashed and comes back: the same identifier (another configuration is ignored).
            let rejoined = try await client.post("/v1/sessions", json: Self.background("com.example.sync", ["discretionary": true]))
            #expect(rejoined.status == 200, "\(rejoined.text)")
            #expect(rejoined["id"] as? String == session)
            #expect((rejoined["configuration"] as? [String: Any])?["discretionary"] as? Bool == false, "as first created")
            let outstanding = (rejoined["outstanding_jobs"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(outstanding == [slow])

            // Unique within the tenant, not globally (BG-15).
            let (_, other) = try await fixture.tenant()
            let elsewhere = try await other.post("/v1/sessions", json: Self.background("com.example.sync"))
            #expect(elsewhere.status == 201)
            #expect(elsewhere["id"] as? String != session)

            // Many creations at once: one session, never two live ones with one name (BG-23).
            let racing = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let reply = try await client.post("/v1/sessions", json: Self.background("com.example.race"))
                        return (reply.status, reply["id"] as? String)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            #expect(racing.filter { $0.0 == 201 }.count == 1, "\(racing)")
            #expect(racing.filter { $0.0 == 200 }.count == 7, "\(racing)")
            #expect(Set(racing.compactMap(\.1)).count == 1, "\(racing)")

            // An invalidated session frees its name; its jobs are not the new session's.
            #expect(try await client.delete("/v1/sessions/\(session)?mode=cancel").status == 200)
            let fresh = try await client.post("/v1/sessions", json: Self.background("com.example.sync"))
            #expect(fresh.status == 201)
            #expect(fresh["id"] as? String != session)
            #expect((fresh["outstanding_jobs"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("creation is validated: an identifier for background sessions only and required there, visible ASCII; no redirect decision; background settings refused elsewhere (BG-04, RD-07)")
    func creationIsValidated() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let cases: [([String: Any], String)] = [
                (["kind": "background"], "identifier"),
                (Self.background(""), "identifier"),
                (Self.background("two words"), "identifier"),
                (Self.background("caf\u{e9}"), "identifier"),
                (Self.background(String(repeating: "a", count: 256)), "identifier"),
                (["kind": "default", "identifier": "x"], "identifier"),
                (Self.background("x", ["decisions": ["redirect": "ask"]]), "configuration.decisions.redirect"),
                (Self.background("x", ["timeouts": ["resource": 0]]), "configuration.timeouts.resource"),
                (Self.background("x", ["not_before": "tomorrow"]), "configuration.not_before"),
                (Self.background("x", ["callback": ["url": "ftp://127.0.0.1/hook"]]), "configuration.callback.url"),
                (["kind": "default", "configuration": ["discretionary": true]], "configuration.discretionary"),
                (["kind": "ephemeral", "configuration": ["timeouts": ["resource": 60]]], "configuration.timeouts.resource"),
            ]
            for (body, field) in cases {
                let reply = try await client.post("/v1/sessions", json: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(Self.fields(reply).contains(field), "\(body): \(reply.text)")
            }
            #expect(await DatabaseQuery.text("SELECT count(*) FROM sessions", fixture.database) == "0", "nothing half-made")
        }
    }

    @Test("a background session's jobs: downloads and uploads of http(s) only, bodies from stored content only, redirects always followed (BG-04, TT-03, UP-13, RD-07)")
    func jobRestrictions() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let session = try await Self.createSession(client, Self.background("restricted"))
            let url = fixture.origin.url("/bytes/1000")
            let refused: [([String: Any], String)] = [
                (["kind": "data", "request": ["url": url]], "kind"),
                (["kind": "download", "request": ["url": "ftp://127.0.0.1:21/file"]], "request.url"),
                (["kind": "upload", "request": ["url": fixture.origin.url("/echo"), "body": "inline text"]], "request.body"),
                (["kind": "download", "request": ["url": url], "redirects": ["follow": false]], "redirects.follow"),
                (["kind": "download", "request": ["url": url], "decisions": ["redirect": "ask"]], "decisions.redirect"),
            ]
            for (job, field) in refused {
                let reply = try await client.post("/v1/jobs", json: job.merging(["session": session]) { $1 })
                #expect(reply.status == 400, "\(job): \(reply.text)")
                #expect(Self.fields(reply).contains(field), "\(job): \(reply.text)")
            }
            // In a batch each refused job is named by its index.
            let batch = try await client.post("/v1/jobs/batch", json: ["jobs": [
                ["kind": "download", "session": session, "request": ["url": url]],
                ["kind": "data", "session": session, "request": ["url": url]],
            ]])
            #expect(batch.status == 400)
            #expect(Self.fields(batch) == ["jobs.1.kind"], "\(batch.text)")
            #expect(await DatabaseQuery.text("SELECT count(*) FROM jobs", fixture.database) == "0", "nothing half-written")

            // What is allowed: an upload from a blob, and a download through redirects, never asked.
            let blob = try #require(try await client.send("PUT", "/v1/blobs", body: Data("from a file".utf8))["id"] as? String)
            let upload = try await client.submit([
                "kind": "upload", "session": session, "request": ["url": fixture.origin.url("/echo"), "body": ["blob": blob]],
            ])
            let redirected = try await client.submit([
                "kind": "download", "session": session, "request": ["url": fixture.origin.url("/redirect/2")],
            ])
            for id in [upload, redirected] {
                let job = try await client.waitForState(id, ["succeeded", "failed", "waiting_for_decision"])
                #expect(job["state"] as? String == "succeeded", "\(job)")
            }
            // The same rules do not touch a default session's jobs.
            let plain = try await Self.createSession(client, ["kind": "default"])
            #expect(try await client.post("/v1/jobs", json: ["kind": "data", "session": plain, "request": ["url": url]]).status == 201)
        }
    }

    @Test("network errors are retried past max_attempts until the session's resource timeout, continuing with Range; a default session's job fails at max_attempts (BG-06, ER-13)")
    func networkErrorsAreRetried() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let session = try await Self.createSession(client, Self.background("retrying"))
            let size = 400_000
            // The connection is lost mid-body on each of the first three requests.
            let flaky = "/resumable/\(size)?drop_at=100000,200000,300000"
            let background = try await client.submit([
                "kind": "download", "session": session, "retry": ["max_attempts": 1], "request": ["url": fixture.origin.url(flaky)],
            ])
            let job = try await client.waitForState(background, ["succeeded", "failed"], timeout: .seconds(90))
            #expect(job["state"] as? String == "succeeded", "\(job)")
            #expect(job["attempt"] as? Int == 4, "\(job)")
            #expect((job["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(size))
            let ranges = fixture.origin.requests.filter { $0.path.hasPrefix("/resumable/") }.compactMap { $0.header("Range") }
            #expect(ranges.count >= 3, "each retry continued where the last stopped: \(ranges)")

            fixture.origin.resetStatistics()
            let plain = try await client.submit(["kind": "download", "retry": ["max_attempts": 1], "request": ["url": fixture.origin.url(flaky)]])
            let failed = try await client.waitForState(plain, ["succeeded", "failed"], timeout: .seconds(60))
            #expect(failed["state"] as? String == "failed", "\(failed)")
            #expect(failed["attempt"] as? Int == 1)

            // Nothing listens: retried until the resource timeout, then the last error.
            let short = try await Self.createSession(client, Self.background("short", ["timeouts": ["resource": 2]]))
            let refused = try await client.submit([
                "kind": "download", "session": short, "retry": ["max_attempts": 1], "request": ["url": "http://127.0.0.1:9/never"],
            ])
            let ended = try await client.waitForState(refused, ["succeeded", "failed"], timeout: .seconds(60))
            #expect(ended["state"] as? String == "failed", "\(ended)")
            #expect((ended["attempt"] as? Int ?? 0) >= 2, "retried within the resource timeout: \(ended)")
            #expect((ended["error"] as? [String: Any])?["code"] as? String == "cannot_connect_to_host", "\(ended)")
        }
    }

    @Test("the session's event stream replays what its client has not acknowledged, then session.events_finished, also delivered to the session's callback (BG-09, BG-14, BG-16)")
    func eventsWhileAway() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                let session = try await Self.createSession(
                    client, Self.background("events", ["callback": ["url": receiver.url("/session")]]))
                // The client is away while two jobs run and end.
                let first = try await client.submit(["kind": "download", "session": session, "request": ["url": fixture.origin.url("/bytes/1000")]])
                let second = try await client.submit(["kind": "download", "session": session, "request": ["url": fixture.origin.url("/bytes/2000")]])
                for id in [first, second] { _ = try await client.waitForState(id, ["succeeded"]) }
                // Another session's job does not show on this session's stream.
                _ = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/3000")]])

                // The first job may have ended before the second was submitted, with an
                // events_finished of its own: read up to the one after both ended.
                let stream = EventStreamClient(client)
                let replay = try await stream.read("/v1/sessions/\(session)/events", timeout: .seconds(30)) { events in
                    events.filter { $0.event == "job.succeeded" }.count == 2 && events.last?.event == "session.events_finished"
                }
                #expect(replay.status == 200)
                let types = replay.events.map(\.event)
                #expect(types.filter { $0 == "job.succeeded" }.count == 2, "\(types)")
                #expect(types.last == "session.events_finished", "\(types)")
                #expect(Set(replay.events.compactMap { $0.json["id"] as? String }).isSubset(of: [first, second]), "only this session's jobs")
                let finished = try #require(replay.events.last)
                #expect(finished.json["session"] as? String == session)
                let lastJob = (finished.json["last_job"] as? [String: Any])?["id"] as? String
                #expect(lastJob == first || lastJob == second)

                // Launch events: each job's end and session.events_finished reach the session's callback.
                let delivered = try await receiver.waitFor { deliveries in
                    let hooks = deliveries.filter { $0.path == "/session" }
                    return hooks.filter { $0.type == "job.succeeded" }.count == 2 && hooks.contains { $0.type == "session.events_finished" }
                }
                let hooks = delivered.filter { $0.path == "/session" }.compactMap(\.type)
                #expect(hooks.filter { $0 == "job.succeeded" }.count == 2, "\(hooks)")
                #expect(hooks.contains("session.events_finished"), "\(hooks)")

                // Reconnecting with Last-Event-ID acknowledges: nothing is replayed again, and a
                // stream opened later without one starts after it.
                let lastID = try #require(finished.id)
                let acknowledged = try await stream.read("/v1/sessions/\(session)/events", lastEventID: lastID, timeout: .seconds(2))
                #expect(acknowledged.events.isEmpty, "\(acknowledged.events)")
                let third = try await client.submit(["kind": "download", "session": session, "request": ["url": fixture.origin.url("/bytes/500")]])
                _ = try await client.waitForState(third, ["succeeded"])
                let later = try await stream.read("/v1/sessions/\(session)/events", timeout: .seconds(30)) { events in
                    events.contains { $0.event == "session.events_finished" }
                }
                #expect(Set(later.events.compactMap { $0.json["id"] as? String }) == [third], "\(later.events.map(\.event))")
                #expect(later.events.last?.event == "session.events_finished")
                #expect(later.events.allSatisfy { Int($0.id ?? "") ?? 0 > Int(lastID) ?? 0 })

                let missing = try await stream.read("/v1/sessions/\(UUID().uuidString.lowercased())/events", timeout: .seconds(5))
                #expect(missing.status == 404)
                let (_, other) = try await fixture.tenant()
                #expect(try await EventStreamClient(other).read("/v1/sessions/\(session)/events", timeout: .seconds(5)).status == 404)
            }
        }
    }

    @Test("kill -9 of ferryd mid-download: a restarted ferryd continues the job with Range, the client rejoins by identifier and the stream replays the end (BG-08, BG-13, BG-24)")
    func rejoinAfterKillNine() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let session = try await Self.createSession(client, Self.background("survivor"))
            let size = 6 << 20
            // The first request stops sending at 3 MB and holds the connection, so the kill lands
            // mid-download on any machine; the continuation is sent whole.
            let id = try await client.submit([
                "kind": "download", "session": session, "request": ["url": fixture.origin.url("/resumable/\(size)?stall_at=3000000")],
            ])
            let stored = "SELECT (resume_data->>'offset')::bigint > 0 FROM jobs WHERE id = '\(id)'"
            #expect(try await DatabaseQuery.wait(timeout: .seconds(60)) { await DatabaseQuery.bool(stored, fixture.database) })
            await fixture.server.kill()

            let restarted = try await fixture.startAnother(name: "restarted")
            let client2 = client.with(baseURL: restarted.baseURL)
            let rejoined = try await client2.post("/v1/sessions", json: Self.background("survivor"))
            #expect(rejoined.status == 200)
            #expect((rejoined["outstanding_jobs"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } == [id])
            let replay = try await EventStreamClient(client2).read("/v1/sessions/\(session)/events", timeout: .seconds(150)) { events in
                events.contains { $0.event == "session.events_finished" }
            }
            let job = try await client2.waitForState(id, ["succeeded", "failed"], timeout: .seconds(30))
            _ = try await restarted.terminate()
            #expect(job["state"] as? String == "succeeded", "\(job)\n\(restarted.log)")
            #expect((job["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(size))
            #expect(fixture.origin.requests.contains { ($0.header("Range") ?? "bytes=0-") != "bytes=0-" }, "continued, not started over")
            let types = replay.events.map(\.event)
            #expect(types.contains("job.succeeded") && types.last == "session.events_finished", "\(types)")
        }
    }

    @Test("a discretionary job runs only on an idle worker, and gives it back with resume data when a normal job comes (BG-05, BG-17)")
    func discretionaryYields() async throws {
        try await GatewayFixture.with(options: FerrydServer.Options(workers: 1)) { fixture in
            let (_, client) = try await fixture.tenant()
            let session = try await Self.createSession(client, Self.background("nightly", ["discretionary": true]))
            let size = 3 << 20
            // Its first request stops sending at 1 MB and holds the connection (whatever the machine's
            // speed, it is still running when the normal job comes); the continuation is sent whole.
            let stalling = "/resumable/\(size)?stall_at=1000000"
            let idle = try await client.submit(["kind": "download", "session": session, "request": ["url": fixture.origin.url(stalling)]])
            let running = try await client.waitForJob(idle) { (($0["progress"] as? [String: Any])?["bytes_done"] as? Int ?? 0) > 200_000 }
            #expect(running["state"] as? String == "running", "the worker was idle: it took the discretionary job")
            #expect(running["discretionary"] as? Bool == true)

            let normal = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/1000000?pace_ms=20")]])
            let later = try await client.submit(["kind": "download", "session": session, "request": ["url": fixture.origin.url("/bytes/2000")]])
            let done = try await client.waitForState(normal, ["succeeded", "failed"], timeout: .seconds(90))
            #expect(done["state"] as? String == "succeeded", "\(done)")
            for id in [idle, later] {
                let job = try await client.waitForState(id, ["succeeded", "failed"], timeout: .seconds(120))
                #expect(job["state"] as? String == "succeeded", "\(job)")
            }
            #expect(try await client.get("/v1/jobs/\(idle)")["result"].flatMap { ($0 as? [String: Any])?["sha256"] as? String }
                == GatewayFixture.patternSHA256(size))
            // The discretionary job gave its worker back (interrupted, not failed) and continued with Range.
            let outcomes = await DatabaseQuery.text(
                "SELECT string_agg(coalesce(outcome, 'open'), ',' ORDER BY attempt) FROM job_attempts WHERE job_id = '\(idle)'", fixture.database)
            #expect(outcomes?.hasPrefix("interrupted") == true && outcomes?.hasSuffix("succeeded") == true, "\(outcomes ?? "")")
            #expect(fixture.origin.requests.contains { $0.path.hasPrefix("/resumable/\(size)") && ($0.header("Range") ?? "bytes=0-") != "bytes=0-" })
            // With one worker, the normal job started before the discretionary ones went on.
            let order = await DatabaseQuery.text(
                """
                SELECT (SELECT min(started_at) FROM job_attempts WHERE job_id = '\(normal)')
                     < (SELECT min(started_at) FROM job_attempts WHERE job_id = '\(later)')
                """, fixture.database)
            #expect(order == "true", "the later discretionary job waited for the normal one")
        }
    }

    @Test("the session's not_before and callback become its jobs' (a job's own later not_before wins), and jobs retry until its resource timeout (BG-16, BG-18)")
    func settingsReachTheJobs() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let start = Date().addingTimeInterval(3600)
            let startText = start.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            let session = try await Self.createSession(
                client, Self.background("scheduled", ["not_before": startText, "callback": ["url": "http://127.0.0.1:9/hook"], "timeouts": ["resource": 60]]))
            let view = try await client.get("/v1/sessions/\(session)")
            let configuration = try #require(view["configuration"] as? [String: Any])
            #expect(configuration["not_before"] as? String == startText)
            #expect((configuration["timeouts"] as? [String: Any])?["resource"] as? Double == 60)
            #expect(configuration["sends_launch_events"] as? Bool == true)

            let inherits = try await client.submit(["kind": "download", "session": session, "request": ["url": fixture.origin.url("/bytes/10")]])
            let laterStart = start.addingTimeInterval(600).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            let ownLater = try await client.submit([
                "kind": "download", "session": session, "not_before": laterStart, "request": ["url": fixture.origin.url("/bytes/10")],
            ])
            #expect(try await client.get("/v1/jobs/\(inherits)")["not_before"] as? String == startText)
            #expect(try await client.get("/v1/jobs/\(ownLater)")["not_before"] as? String == laterStart)
            #expect(await DatabaseQuery.text("SELECT policies->>'callback_url' FROM jobs WHERE id = '\(inherits)'", fixture.database) == "http://127.0.0.1:9/hook")
            #expect(await DatabaseQuery.bool(
                "SELECT (policies->>'retry_network_errors_until')::timestamptz BETWEEN now() + interval '50 seconds' AND now() + interval '61 seconds' FROM jobs WHERE id = '\(inherits)'",
                fixture.database))
            #expect(await DatabaseQuery.text("SELECT state FROM jobs WHERE id = '\(inherits)'", fixture.database) == "queued")
        }
    }

    @Test("expected_bytes count against the storage quota from submission until the job ends: what does not fit is refused with 507 (BG-19)")
    func expectedBytesHoldRoom() async throws {
        try await GatewayFixture.with(options: FerrydServer.Options(maxStorageBytesPerTenant: 1_000_000)) { fixture in
            let (_, client) = try await fixture.tenant()
            // Stops sending at 300,000 bytes until it is paused; its continuation is sent whole.
            let slow = try await client.submit([
                "kind": "download", "expected_bytes": 700_000, "request": ["url": fixture.origin.url("/resumable/600000?stall_at=300000")],
            ])
            _ = try await client.waitForState(slow, ["running"])
            #expect(try await client.get("/v1/jobs/\(slow)")["expected_bytes"] as? Int == 700_000)
            let tooMuch = try await client.post("/v1/jobs", json: [
                "kind": "download", "expected_bytes": 400_000, "request": ["url": fixture.origin.url("/bytes/10")],
            ])
            #expect(tooMuch.status == 507, "\(tooMuch.text)")
            #expect(tooMuch.code == "storage_quota_exceeded")
            let batch = try await client.post("/v1/jobs/batch", json: ["jobs": [
                ["kind": "download", "expected_bytes": 200_000, "request": ["url": fixture.origin.url("/bytes/10")]],
                ["kind": "download", "expected_bytes": 200_000, "request": ["url": fixture.origin.url("/bytes/10")]],
            ]])
            #expect(batch.status == 507, "\(batch.text)")
            // A blob cannot take the room the job holds either.
            let blob = try await client.send("PUT", "/v1/blobs", body: Data(repeating: 7, count: 400_000))
            #expect(blob.status == 507, "\(blob.text)")
            #expect(try await client.post("/v1/jobs", json: ["kind": "download", "expected_bytes": -1, "request": ["url": fixture.origin.url("/bytes/1")]]).status == 400)

            // Paused, it still holds its room; resumed, it may use what it reserved.
            #expect([200, 202].contains(try await client.post("/v1/jobs/\(slow)/pause").status))
            _ = try await client.waitForState(slow, ["paused"])
            #expect(try await client.send("PUT", "/v1/blobs", body: Data(repeating: 7, count: 400_000)).status == 507)
            #expect(try await client.post("/v1/jobs/\(slow)/resume").status == 200)
            let done = try await client.waitForState(slow, ["succeeded", "failed"], timeout: .seconds(90))
            #expect(done["state"] as? String == "succeeded", "\(done)")
            // Ended: its reservation is gone, its content counts instead (600,000 stored, 400,000 left).
            let fits = try await client.post("/v1/jobs", json: [
                "kind": "download", "expected_bytes": 400_000, "request": ["url": fixture.origin.url("/bytes/10")],
            ])
            #expect(fits.status == 201, "\(fits.text)")
            #expect(await DatabaseQuery.text("SELECT count(*) FROM jobs", fixture.database) == "2", "nothing half-written by the refusals")
        }
    }
}
