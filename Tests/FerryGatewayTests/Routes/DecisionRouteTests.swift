import Foundation
import Testing

/// `POST /v1/jobs/{id}/decision` (AU-21: a decision is answered later, over the API): a job not
/// waiting is a 409, an unknown or foreign job a 404, a malformed body a 400, an answer that does not
/// fit the pending decision a 422. The end-to-end decisions (a real redirect or challenge met by a
/// worker) are `GatewayDecisionTests`; here no worker runs, so the test puts a queued job into
/// `waiting_for_decision` as a worker would, with the redirect decision it would store.
@Suite("Routes: decisions", .timeLimit(.minutes(2)))
struct DecisionRouteTests {
    static let decisionID = "0123456789abcdef0123456789abcdef"

    /// Makes the queued job `id` wait for a redirect decision (the row a worker writes at the redirect).
    static func waitForRedirectDecision(_ app: RouteFixture, job id: String) async throws {
        let decision = """
            {"id": "\(decisionID)", "kind": "redirect", "url": "http://127.0.0.1:9/next",
             "response": {"status": 302, "headers": {"Location": "http://127.0.0.1:9/next"}}}
            """
        let changed = try await app.sql("""
            WITH changed AS (
                UPDATE jobs SET state = 'waiting_for_decision', decision = '\(decision)'::jsonb, decision_deadline = now() + interval '1 hour'
                WHERE id = '\(id)' AND state = 'queued' RETURNING id)
            SELECT count(*)::text FROM changed
            """)
        #expect(changed == "1")
    }

    @Test func answersToJobsNotWaitingAreRefused() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let id = try await app.submit(alice.key)
            let answer = ["disposition": "follow"]
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/\(id)/decision", key: alice.key, json: answer), 409, "job_not_waiting_for_decision")
            app.expectProblem(try await app.send(.post, "/v1/jobs/\(id)/decision", key: bob.key, json: answer), 404, "not_found")
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/\(UUID().uuidString.lowercased())/decision", key: alice.key, json: answer), 404, "not_found")
            app.expectProblem(try await app.send(.post, "/v1/jobs/\(id)/decision", key: app.adminKey, json: answer), 403, "tenant_key_required")
            app.expectProblem(try await app.send(.post, "/v1/jobs/\(id)/decision", key: nil, json: answer), 401, "unauthenticated")
            // A body that is not the documented shape is a 400, before the job is even looked at.
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/\(id)/decision", key: alice.key, json: ["disposition": 3]), 400, "invalid_request",
                fields: ["disposition"])
            app.expectProblem(try await app.send(.post, "/v1/jobs/\(id)/decision", key: alice.key), 400, "invalid_request", fields: ["body"])
            #expect(try await app.send(.get, "/v1/jobs/\(id)", key: alice.key)["state"] as? String == "queued")
        }
    }

    @Test func answerThatDoesNotFitThePendingDecisionIs422AndAFittingOneRequeuesTheJob() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let id = try await app.submit(tenant.key)
            try await Self.waitForRedirectDecision(app, job: id)
            let waiting = try await app.send(.get, "/v1/jobs/\(id)", key: tenant.key)
            #expect(waiting["state"] as? String == "waiting_for_decision")
            let shown = try #require(waiting["decision"] as? [String: Any])
            #expect(shown["id"] as? String == Self.decisionID)
            #expect(shown["kind"] as? String == "redirect")
            #expect(shown["expires_at"] is String)

            let path = "/v1/jobs/\(id)/decision"
            app.expectProblem(
                try await app.send(.post, path, key: tenant.key, json: ["disposition": "use_credential"]), 422, "decision_answer_invalid",
                fields: ["disposition"])
            app.expectProblem(try await app.send(.post, path, key: tenant.key, json: [:]), 422, "decision_answer_invalid", fields: ["disposition"])
            app.expectProblem(
                try await app.send(.post, path, key: tenant.key, json: ["disposition": "change"]), 422, "decision_answer_invalid", fields: ["url"])
            app.expectProblem(
                try await app.send(.post, path, key: tenant.key, json: ["disposition": "follow", "url": "http://127.0.0.1:9/elsewhere"]),
                422, "decision_answer_invalid", fields: ["url"])
            app.expectProblem(
                try await app.send(.post, path, key: tenant.key, json: ["disposition": "change", "url": "file:///etc/passwd"]),
                422, "decision_answer_invalid", fields: ["url"])
            // An answer to a decision the client saw earlier is not applied to this one.
            app.expectProblem(
                try await app.send(.post, path, key: tenant.key, json: ["disposition": "follow", "decision_id": String(repeating: "f", count: 32)]),
                409, "decision_changed")
            #expect(try await app.send(.get, "/v1/jobs/\(id)", key: tenant.key)["state"] as? String == "waiting_for_decision")

            let answered = try await app.send(.post, path, key: tenant.key, json: ["disposition": "refuse", "decision_id": Self.decisionID])
            #expect(answered.status == 200)
            #expect(answered["id"] as? String == id)
            #expect(answered["state"] as? String == "queued", "the next attempt applies the stored answer")
            #expect(answered["decision"] == nil)
            app.expectProblem(
                try await app.send(.post, path, key: tenant.key, json: ["disposition": "refuse"]), 409, "job_not_waiting_for_decision")
        }
    }
}
