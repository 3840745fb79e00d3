import Foundation
import Testing
import URLLoading
import URLLoadingTestSupport

/// Decisions answered over the API through a real ferryd: a job that asks stops in
/// waiting_for_decision with the pending decision in its view, event stream and webhook, holds no
/// worker while it waits, and continues when `POST /v1/jobs/{id}/decision` answers it, however late
/// and across ferryd restarts (AU-21, LC-16). Each kind with the seeds' dispositions: authentication
/// challenges (AU-12..AU-16, AU-19), redirects (RD-02), server trust (TLS-07).
@Suite("Gateway decisions", .timeLimit(.minutes(6)))
struct GatewayDecisionTests {
    static func job(_ url: String, decisions: [String: Any]) -> [String: Any] {
        ["kind": "download", "request": ["url": url], "decisions": decisions, "retry": ["max_attempts": 1]]
    }

    /// Waits until the job waits for a decision (or ended), and returns its view.
    static func waitForDecision(_ client: GatewayClient, _ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let view = try await client.waitForState(
            id, ["waiting_for_decision", "succeeded", "failed", "cancelled"], sourceLocation: sourceLocation)
        #expect(view["state"] as? String == "waiting_for_decision", "\(view)", sourceLocation: sourceLocation)
        return view
    }

    static func decision(_ view: [String: Any]) -> [String: Any] { view["decision"] as? [String: Any] ?? [:] }

    static func answer(
        _ client: GatewayClient, _ id: String, _ body: [String: Any], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> GatewayClient.Reply {
        try await client.post("/v1/jobs/\(id)/decision", json: body, sourceLocation: sourceLocation)
    }

    @Test("Basic challenge (AU-12, AU-19, AU-21): waits with the protection space and no credential, a wrong password asks again with failure_count 1 and the username only, the right one succeeds; the password is stored sealed and never shown; the webhook and the event stream carry the decision")
    func basicChallengeAnsweredLate() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                let endpoint = try await client.post(
                    "/v1/webhooks/endpoints", json: ["url": receiver.url("/decisions"), "events": ["job.decision_required"]])
                #expect(endpoint.status == 201, "\(endpoint.text)")
                let id = try await client.submit(Self.job(
                    fixture.origin.url("/protected/a?schemes=basic"), decisions: ["auth_challenge": "ask"]))

                let waiting = try await Self.waitForDecision(client, id)
                let first = Self.decision(waiting)
                #expect(first["kind"] as? String == "auth_challenge")
                #expect(first["failure_count"] as? Int == 0)
                #expect(first.keys.contains("proposed_credential") && first["proposed_credential"] is NSNull, "\(first)")
                #expect(first["expires_at"] is String)
                let space = first["protection_space"] as? [String: Any] ?? [:]
                #expect(space["realm"] as? String == AuthRoutes.basicRealm)
                #expect(space["method"] as? String == "basic")
                #expect(space["host"] as? String == "127.0.0.1")
                #expect(space["proxy"] as? Bool == false)
                // It holds no worker while it waits, and its attempt says why it ended.
                #expect(await DatabaseQuery.bool("SELECT lease_owner IS NULL FROM jobs WHERE id = '\(id)'", fixture.database))
                #expect(await DatabaseQuery.text("SELECT outcome FROM job_attempts WHERE job_id = '\(id)'", fixture.database) == "waiting_for_decision")

                // The webhook and the job's event stream announce it with the decision.
                let delivered = try await receiver.waitFor { $0.contains { $0.type == "job.decision_required" } }
                let delivery = try #require(delivered.first { $0.type == "job.decision_required" })
                #expect(delivery.job["id"] as? String == id)
                #expect((delivery.job["decision"] as? [String: Any])?["id"] as? String == first["id"] as? String)
                let stream = try await EventStreamClient(client).read("/v1/jobs/\(id)/events", timeout: .seconds(10)) {
                    $0.contains { $0.event == "job.decision_required" }
                }
                let announced = try #require(stream.events.first { $0.event == "job.decision_required" })
                #expect((announced.json["decision"] as? [String: Any])?["kind"] as? String == "auth_challenge")

                // Answered late: the job just sat there meanwhile.
                try await Task.sleep(for: .seconds(3))
                #expect(try await client.get("/v1/jobs/\(id)")["state"] as? String == "waiting_for_decision")
                let wrong = try await Self.answer(
                    client, id, ["disposition": "use_credential", "credential": ["username": AuthRoutes.user, "password": "not-it"]])
                #expect(wrong.status == 200, "\(wrong.text)")
                #expect(wrong["state"] as? String == "queued")
                #expect(await DatabaseQuery.bool(
                    "SELECT decision_answers::text NOT LIKE '%not-it%' AND decision_answers::text LIKE '%sealed%' FROM jobs WHERE id = '\(id)'",
                    fixture.database), "the password is stored sealed")

                let again = try await client.waitForJob(id) {
                    $0["state"] as? String != "queued" && $0["state"] as? String != "running"
                        && (Self.decision($0)["id"] as? String) != (first["id"] as? String)
                }
                let second = Self.decision(again)
                #expect(again["state"] as? String == "waiting_for_decision", "\(again)")
                #expect(second["failure_count"] as? Int == 1)
                #expect((second["proposed_credential"] as? [String: Any])?["username"] as? String == AuthRoutes.user)
                #expect(second["id"] as? String != first["id"] as? String)

                let right = try await Self.answer(client, id, [
                    "decision_id": second["id"] as? String ?? "", "disposition": "use_credential",
                    "credential": ["username": AuthRoutes.user, "password": AuthRoutes.password],
                ])
                #expect(right.status == 200, "\(right.text)")
                let done = try await client.waitForState(id, ["succeeded", "failed", "cancelled"])
                #expect(done["state"] as? String == "succeeded", "\(done)")
                #expect(done["decision"] == nil)
                #expect(await DatabaseQuery.text("SELECT decision_answers::text FROM jobs WHERE id = '\(id)'", fixture.database) == "{}",
                        "a finished job keeps no answers")
                // Each attempt replays from the start with the answers so far: the second sent the
                // wrong password, the third the wrong one again (failure 0) and then the right one.
                let authorized = fixture.origin.requests.filter { $0.header("Authorization") != nil }
                #expect(authorized.count == 3, "\(authorized.map(\.path))")

                // No secret anywhere the client, a dashboard or a receiver can read.
                let shown = try await client.get("/v1/jobs/\(id)").text
                let events = try await EventStreamClient(client).read("/v1/jobs/\(id)/events", lastEventID: "0", timeout: .seconds(10))
                let received = receiver.deliveries.map { String(decoding: $0.body, as: UTF8.self) }
                for text in [shown, wrong.text, right.text] + events.events.map(\.data) + received {
                    #expect(!text.contains(AuthRoutes.password) && !text.contains("not-it"), "\(text)")
                }
                #expect(!fixture.server.log.contains(AuthRoutes.password))

                // An answered, finished job takes no answer.
                let late = try await Self.answer(client, id, ["disposition": "perform_default_handling"])
                #expect(late.status == 409)
                #expect(late.code == "job_not_waiting_for_decision")
            }
        }
    }

    @Test("Digest challenge answered after a ferryd restart (AU-21): the waiting job survives the stop, the new ferryd replays to the challenge and succeeds")
    func digestAnsweredAfterRestart() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let id = try await client.submit(Self.job(
                fixture.origin.url("/protected/d?schemes=digest"), decisions: ["auth_challenge": "ask"]))
            let waiting = try await Self.waitForDecision(client, id)
            #expect((Self.decision(waiting)["protection_space"] as? [String: Any])?["method"] as? String == "digest")
            #expect(try await fixture.server.terminate() == 0, "\(fixture.server.log)")
            #expect(await DatabaseQuery.text("SELECT state FROM jobs WHERE id = '\(id)'", fixture.database) == "waiting_for_decision")

            let restarted = try await fixture.startAnother(name: "restarted")
            let client2 = client.with(baseURL: restarted.baseURL)
            let seen = try await client2.get("/v1/jobs/\(id)")
            #expect((seen["decision"] as? [String: Any])?["id"] as? String == Self.decision(waiting)["id"] as? String)
            let reply = try await Self.answer(
                client2, id, ["disposition": "use_credential", "credential": ["username": AuthRoutes.user, "password": AuthRoutes.password]])
            #expect(reply.status == 200, "\(reply.text)")
            let done = try await client2.waitForState(id, ["succeeded", "failed", "cancelled", "waiting_for_decision"])
            _ = try await restarted.terminate()
            #expect(done["state"] as? String == "succeeded", "\(done)\n\(restarted.log)")
        }
    }

    @Test("a redirect decision, and a challenge answered with a vault credential's id, after a ferryd restart (RD-02, AU-12)")
    func redirectAndVaultAnswerAfterRestart() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let (_, other) = try await fixture.tenant()
            let redirect = try await client.submit(Self.job(fixture.origin.url("/redirect/1"), decisions: ["redirect": "ask"]))
            let challenge = try await client.submit(Self.job(
                fixture.origin.url("/protected/v?schemes=digest"), decisions: ["auth_challenge": "ask"]))
            _ = try await Self.waitForDecision(client, redirect)
            _ = try await Self.waitForDecision(client, challenge)
            #expect(try await fixture.server.terminate() == 0, "\(fixture.server.log)")

            let restarted = try await fixture.startAnother(name: "restarted")
            let client2 = client.with(baseURL: restarted.baseURL)
            let other2 = other.with(baseURL: restarted.baseURL)
            #expect((try await Self.answer(client2, redirect, ["disposition": "follow"])).status == 200)
            // The vault credential answers by id, for its own tenant only.
            let stored = try await GatewayVaultTests.store(
                client2, GatewayVaultTests.passwordCredential(fixture, "digest", realm: AuthRoutes.digestRealm))
            let foreign = try await GatewayVaultTests.store(
                other2, GatewayVaultTests.passwordCredential(fixture, "digest", realm: AuthRoutes.digestRealm))
            let refused = try await Self.answer(client2, challenge, ["disposition": "use_credential", "credential": ["id": foreign]])
            #expect(refused.status == 422, "another tenant's credential: \(refused.text)")
            let reply = try await Self.answer(client2, challenge, ["disposition": "use_credential", "credential": ["id": stored]])
            #expect(reply.status == 200, "\(reply.text)")

            let followed = try await client2.waitForState(redirect, ["succeeded", "failed", "cancelled", "waiting_for_decision"])
            let authenticated = try await client2.waitForState(challenge, ["succeeded", "failed", "cancelled", "waiting_for_decision"])
            _ = try await restarted.terminate()
            #expect(followed["state"] as? String == "succeeded", "\(followed)\n\(restarted.log)")
            #expect((followed["response"] as? [String: Any])?["url"] as? String == fixture.origin.url("/redirect/0"))
            #expect(authenticated["state"] as? String == "succeeded", "\(authenticated)\n\(restarted.log)")
        }
    }

    @Test("a server-trust decision answered after a ferryd restart (TLS-07): the new ferryd replays to the handshake and trusts the chain")
    func serverTrustAnsweredAfterRestart() async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        try await OriginServer.withRunning(tls: .init(certificates: certificates, selfSigned: true)) { secure in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                let id = try await client.submit(Self.job(secure.url("/bytes/2048"), decisions: ["server_trust": "ask"]))
                let waiting = Self.decision(try await Self.waitForDecision(client, id))
                #expect(waiting["kind"] as? String == "server_trust")
                #expect(try await fixture.server.terminate() == 0, "\(fixture.server.log)")

                let restarted = try await fixture.startAnother(name: "restarted")
                let client2 = client.with(baseURL: restarted.baseURL)
                let reply = try await Self.answer(client2, id, ["disposition": "trust"])
                #expect(reply.status == 200, "\(reply.text)")
                let done = try await client2.waitForState(id, ["succeeded", "failed", "cancelled", "waiting_for_decision"])
                _ = try await restarted.terminate()
                #expect(done["state"] as? String == "succeeded", "\(done)\n\(restarted.log)")
                #expect((done["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(2048))
            }
        }
    }

    @Test("answers that do not fit are 422s, a job not waiting is a 409, another tenant's job a 404, and cancel (AU-16) cancels at once")
    func refusalsAndCancel() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let (_, other) = try await fixture.tenant()
            let id = try await client.submit(Self.job(
                fixture.origin.url("/protected/c?schemes=basic"), decisions: ["auth_challenge": "ask"]))
            let waiting = try await Self.waitForDecision(client, id)

            for body: [String: Any] in [
                ["disposition": "trust"], ["disposition": "follow"], ["disposition": "nonsense"], [:],
                ["disposition": "use_credential"], ["disposition": "use_credential", "credential": ["username": "u"]],
                ["disposition": "perform_default_handling", "credential": ["username": "u", "password": "p"]],
                ["disposition": "use_credential", "credential": ["id": UUID().uuidString.lowercased()]],
            ] {
                let reply = try await Self.answer(client, id, body)
                #expect(reply.status == 422, "\(body): \(reply.status) \(reply.text)")
                #expect(reply.code == "decision_answer_invalid", "\(body)")
            }
            let stale = try await Self.answer(client, id, ["decision_id": "0123456789abcdef0123456789abcdef", "disposition": "cancel"])
            #expect(stale.status == 409)
            #expect(stale.code == "decision_changed")
            let foreign = try await Self.answer(other, id, ["disposition": "cancel"])
            #expect(foreign.status == 404, "another tenant's job does not exist for it")
            #expect(try await other.get("/v1/jobs/\(id)").status == 404)
            #expect(try await client.get("/v1/jobs/\(id)")["state"] as? String == "waiting_for_decision", "nothing above changed it")

            // A waiting job has no worker: pausing it is immediate and drops the pending decision;
            // resumed, it replays to the same decision, with the same id.
            let paused = try await client.post("/v1/jobs/\(id)/pause")
            #expect(paused.status == 200, "\(paused.text)")
            #expect(paused["state"] as? String == "paused")
            #expect(paused["decision"] == nil)
            #expect((try await client.post("/v1/jobs/\(id)/resume")).status == 200)
            let again = try await Self.waitForDecision(client, id)
            #expect(Self.decision(again)["id"] as? String == Self.decision(waiting)["id"] as? String)

            let cancelled = try await Self.answer(
                client, id, ["decision_id": Self.decision(waiting)["id"] as? String ?? "", "disposition": "cancel"])
            #expect(cancelled.status == 200, "\(cancelled.text)")
            #expect(cancelled["state"] as? String == "cancelled")
            #expect((cancelled["error"] as? [String: Any])?["code"] as? String == "cancelled")
            #expect(cancelled["decision"] == nil)
            let cancelledByAnswer = ["outcome": "cancelled", "error_code": "cancelled"]
            let counted = try await GatewayMetricsTests.metrics(fixture) { $0.value("ferry_jobs_finished_total", cancelledByAnswer) == 1 }
            #expect(counted.value("ferry_jobs_finished_total", cancelledByAnswer) == 1, "the answer ended the job: counted once")

            let running = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(4 << 20)?pace_ms=50")]])
            _ = try await client.waitForState(running, ["running"])
            let notWaiting = try await Self.answer(client, running, ["disposition": "follow"])
            #expect(notWaiting.status == 409)
            #expect(notWaiting.code == "job_not_waiting_for_decision")
            _ = try await client.post("/v1/jobs/\(running)/cancel")

            let invalid = try await client.post("/v1/jobs", json: Self.job(
                fixture.origin.url("/bytes/10"), decisions: ["redirect": "sometimes", "timeout_seconds": 0]))
            #expect(invalid.status == 400)
            let fields = (invalid["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
            #expect(Set(fields) == ["decisions.redirect", "decisions.timeout_seconds"])
        }
    }

    @Test("an unanswered decision times out into decision_timed_out; a session's decisions apply to its jobs")
    func timeoutAndSessionDefaults() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let session = try await client.post("/v1/sessions", json: [
                "configuration": ["decisions": ["auth_challenge": "ask", "timeout_seconds": 1]]
            ])
            #expect(session.status == 201, "\(session.text)")
            let sessionID = try #require(session["id"] as? String)
            #expect(((session["configuration"] as? [String: Any])?["decisions"] as? [String: Any])?["auth_challenge"] as? String == "ask")
            let id = try await client.submit([
                "kind": "download", "session": sessionID, "request": ["url": fixture.origin.url("/protected/t?schemes=basic")],
            ])
            let failed = try await client.waitForState(id, ["failed", "succeeded", "cancelled"])
            #expect(failed["state"] as? String == "failed", "\(failed)")
            let error = failed["error"] as? [String: Any] ?? [:]
            #expect(error["code"] as? String == "decision_timed_out")
            let timedOut = ["outcome": "failed", "error_code": "decision_timed_out"]
            let counted = try await GatewayMetricsTests.metrics(fixture) { $0.value("ferry_jobs_finished_total", timedOut) == 1 }
            #expect(counted.value("ferry_jobs_finished_total", timedOut) == 1)
            #expect((error["message"] as? String ?? "").contains("auth_challenge"))
            #expect(await DatabaseQuery.bool(
                "SELECT count(*) = 1 FROM job_events WHERE job_id = '\(id)' AND type = 'job.decision_required'", fixture.database),
                "it waited before it timed out")

            // The job's own choice wins over its session's: this one does not ask.
            let own = try await client.submit([
                "kind": "download", "session": sessionID, "request": ["url": fixture.origin.url("/protected/u?schemes=basic")],
                "decisions": ["auth_challenge": "default"], "retry": ["max_attempts": 1],
            ])
            let ended = try await client.waitForState(own, ["failed", "succeeded", "waiting_for_decision"])
            #expect(ended["state"] as? String == "failed", "no credential: the 401 is the response")
            #expect((ended["error"] as? [String: Any])?["code"] as? String == "http_error")
        }
    }

    @Test("redirects (RD-02): the first hop waits with its target and response, follow goes on to the next hop's decision, change goes elsewhere and succeeds; refuse fails with redirect_refused")
    func redirects() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let id = try await client.submit(Self.job(fixture.origin.url("/redirect/2"), decisions: ["redirect": "ask"]))
            let first = Self.decision(try await Self.waitForDecision(client, id))
            #expect(first["kind"] as? String == "redirect")
            #expect(first["url"] as? String == fixture.origin.url("/redirect/1"))
            let response = first["response"] as? [String: Any] ?? [:]
            #expect(response["status"] as? Int == 302)
            #expect((response["headers"] as? [String: String])?["location"] == "/redirect/1")
            #expect((try await Self.answer(client, id, ["disposition": "follow"])).status == 200)

            let second = try await client.waitForJob(id) {
                $0["state"] as? String == "waiting_for_decision" && (Self.decision($0)["id"] as? String) != (first["id"] as? String)
                    || ["succeeded", "failed"].contains($0["state"] as? String ?? "")
            }
            #expect(Self.decision(second)["url"] as? String == fixture.origin.url("/redirect/0"), "\(second)")
            let bad = try await Self.answer(client, id, ["disposition": "change", "url": "gopher://example.org/"])
            #expect(bad.status == 422)
            let changed = try await Self.answer(client, id, ["disposition": "change", "url": fixture.origin.url("/bytes/100")])
            #expect(changed.status == 200, "\(changed.text)")
            let done = try await client.waitForState(id, ["succeeded", "failed", "cancelled"])
            #expect(done["state"] as? String == "succeeded", "\(done)")
            #expect((done["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(100))
            #expect(!fixture.origin.requests.contains { $0.path == "/redirect/0" }, "the changed hop went elsewhere")

            let refused = try await client.submit(Self.job(fixture.origin.url("/redirect/1"), decisions: ["redirect": "ask"]))
            _ = try await Self.waitForDecision(client, refused)
            #expect((try await Self.answer(client, refused, ["disposition": "refuse"])).status == 200)
            let failed = try await client.waitForState(refused, ["succeeded", "failed", "cancelled"])
            #expect(failed["state"] as? String == "failed")
            #expect((failed["error"] as? [String: Any])?["code"] as? String == "redirect_refused", "\(failed)")
            #expect((failed["response"] as? [String: Any])?["status"] as? Int == 302)
        }
    }

    @Test("server trust (TLS-07): a self-signed certificate waits with the chain and its pins; trust succeeds, reject fails with server_trust_rejected, and a job that does not ask fails")
    func serverTrust() async throws {
        let certificates = try await TestCertificates.generate()
        try await OriginServer.withRunning(tls: .init(certificates: certificates, selfSigned: true)) { secure in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                let id = try await client.submit(Self.job(secure.url("/bytes/2048"), decisions: ["server_trust": "ask"]))
                let decision = Self.decision(try await Self.waitForDecision(client, id))
                #expect(decision["kind"] as? String == "server_trust")
                #expect(decision["host"] as? String == "localhost")
                #expect(decision["port"] as? Int == secure.port)
                let pem = try String(contentsOfFile: certificates.selfSignedServerCertificatePath, encoding: .utf8)
                let leaf = try #require(TrustedServerCertificate(host: "localhost", certificatePEM: pem)?.certificate)
                let shown = (decision["certificates"] as? [String] ?? []).compactMap { Data(base64Encoded: $0) }
                #expect(shown.first == leaf)
                #expect((decision["pins"] as? [String])?.first == PublicKeyPin.sha256(ofCertificate: leaf))

                #expect((try await Self.answer(client, id, ["disposition": "follow"])).status == 422)
                #expect((try await Self.answer(client, id, ["disposition": "trust"])).status == 200)
                let done = try await client.waitForState(id, ["succeeded", "failed", "cancelled"])
                #expect(done["state"] as? String == "succeeded", "\(done)")
                #expect((done["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(2048))

                // Another tenant's jobs are asked again: nothing of the answer (the trusted connection
                // included) reaches them.
                let (_, other) = try await fixture.tenant()
                for _ in 0..<3 {
                    let theirs = try await other.submit(Self.job(secure.url("/bytes/2048"), decisions: ["server_trust": "ask"]))
                    let view = try await other.waitForState(theirs, ["waiting_for_decision", "succeeded", "failed"])
                    #expect(view["state"] as? String == "waiting_for_decision", "\(view)")
                }

                let rejected = try await client.submit(Self.job(secure.url("/bytes/10"), decisions: ["server_trust": "ask"]))
                _ = try await Self.waitForDecision(client, rejected)
                let reply = try await Self.answer(client, rejected, ["disposition": "reject"])
                #expect(reply["state"] as? String == "failed")
                #expect((reply["error"] as? [String: Any])?["code"] as? String == "server_trust_rejected")

                let plain = try await client.submit(["kind": "download", "request": ["url": secure.url("/bytes/10")], "retry": ["max_attempts": 1]])
                let untrusted = try await client.waitForState(plain, ["succeeded", "failed", "waiting_for_decision"])
                #expect(untrusted["state"] as? String == "failed", "a job that does not ask is not trusted by another's answer")
            }
        }
    }

    @Test("the response head (LC-05, LC-08): a job that asks waits with status and headers before storing a byte; allow stores the content, cancel cancels at once, become_download turns a data job into a download, and is refused for a download")
    func responseDecisions() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let url = fixture.origin.url("/bytes/50000")
            let id = try await client.submit(Self.job(url, decisions: ["response": "ask"]))
            let view = try await Self.waitForDecision(client, id)
            let decision = Self.decision(view)
            #expect(decision["kind"] as? String == "response")
            #expect(decision["url"] as? String == url)
            let head = decision["response"] as? [String: Any] ?? [:]
            #expect(head["status"] as? Int == 200)
            #expect((head["headers"] as? [String: String])?["content-length"] == "50000", "\(head)")
            #expect((view["progress"] as? [String: Any])?["bytes_done"] as? Int == 0, "nothing stored before the answer")
            // A download cannot become one.
            let unfit = try await Self.answer(client, id, ["disposition": "become_download"])
            #expect(unfit.status == 422, "\(unfit.text)")
            let wrongKind = try await Self.answer(client, id, ["disposition": "follow"])
            #expect(wrongKind.status == 422)
            #expect((try await Self.answer(client, id, ["disposition": "allow"])).status == 200)
            let done = try await client.waitForState(id, ["succeeded", "failed", "cancelled"])
            #expect(done["state"] as? String == "succeeded", "\(done)")
            #expect((done["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(50000))

            let cancelled = try await client.submit(Self.job(url, decisions: ["response": "ask"]))
            _ = try await Self.waitForDecision(client, cancelled)
            let answered = try await Self.answer(client, cancelled, ["disposition": "cancel"])
            #expect(answered["state"] as? String == "cancelled", "\(answered.text)")

            var data = Self.job(fixture.origin.url("/bytes/700"), decisions: ["response": "ask"])
            data["kind"] = "data"
            let dataJob = try await client.submit(data)
            _ = try await Self.waitForDecision(client, dataJob)
            let converted = try await Self.answer(client, dataJob, ["disposition": "become_download"])
            #expect(converted.status == 200, "\(converted.text)")
            #expect(converted["kind"] as? String == "download")
            let downloaded = try await client.waitForState(dataJob, ["succeeded", "failed", "cancelled"])
            #expect(downloaded["state"] as? String == "succeeded", "\(downloaded)")
            #expect(downloaded["kind"] as? String == "download")
            #expect((downloaded["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(700))
        }
    }

    @Test("decisions.response must be ask or default")
    func responseModeIsValidated() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let reply = try await client.post("/v1/jobs", json: Self.job(fixture.origin.url("/bytes/1"), decisions: ["response": "sometimes"]))
            #expect(reply.status == 400)
            #expect(reply.text.contains("decisions.response"), "\(reply.text)")
        }
    }
}
