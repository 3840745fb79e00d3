import Foundation
import HTTPTypes
import Testing

/// `/v1/jobs` for a tenant and `/v1/admin/jobs` for the admin: submission (with Idempotency-Key),
/// reads, list paging, controls of a queued job (LC-02), content and deletion rules, batches, and
/// tenant isolation. No worker runs, so every job stays where the API puts it.
@Suite("Routes: jobs", .timeLimit(.minutes(2)))
struct JobRouteTests {
    static let replayed = HTTPField.Name("Idempotent-Replayed")!
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    @Test func submittedJobIsQueuedWithDefaultsAndReadableOnlyByItsTenant() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let created = try await app.send(
                .post, "/v1/jobs", key: alice.key,
                json: RouteFixture.download(
                    RouteFixture.unreachable, ["priority": 7, "request": ["url": RouteFixture.unreachable, "headers": ["Accept": "text/plain"]]]))
            #expect(created.status == 201)
            let id = try #require(created["id"] as? String)
            #expect(created.headers["location"] == "/v1/jobs/\(id)")
            #expect(created["kind"] as? String == "download")
            #expect(created["state"] as? String == "queued")
            #expect(created["priority"] as? Int == 7)
            #expect(created["max_attempts"] as? Int == 3)
            #expect(created["tenant"] == nil, "a tenant's view does not name the tenant")
            let request = try #require(created["request"] as? [String: Any])
            #expect(request["url"] as? String == RouteFixture.unreachable)
            #expect(request["method"] as? String == "GET")
            #expect(request["headers"] as? [String: String] == ["accept": "text/plain"], "header names are shown lower-cased")

            let read = try await app.send(.get, "/v1/jobs/\(id)", key: alice.key)
            #expect(read.status == 200)
            #expect(read["id"] as? String == id)
            #expect(read["state"] as? String == "queued")

            // Another tenant's job is exactly as absent as a job that does not exist.
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(id)", key: bob.key), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(UUID().uuidString.lowercased())", key: alice.key), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/jobs/not-a-uuid", key: alice.key), 404, "not_found")
            #expect(try await app.send(.get, "/v1/jobs", key: bob.key).list("jobs").isEmpty)
            // Tenant routes want a tenant's key.
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(id)", key: app.adminKey), 403, "tenant_key_required")
            app.expectProblem(try await app.send(.post, "/v1/jobs", key: app.adminKey, json: RouteFixture.download()), 403, "tenant_key_required")
            app.expectProblem(try await app.send(.post, "/v1/jobs", key: nil, json: RouteFixture.download()), 401, "unauthenticated")
        }
    }

    @Test func idempotencyKeyReplaysTheSameBodyAndRefusesAnother() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            // The same bytes: the body's digest is taken over them (two serializations of one dictionary may order keys differently).
            let body = try JSONSerialization.data(withJSONObject: RouteFixture.download(RouteFixture.unreachable + "?once"))
            let keyed: HTTPFields = [Self.idempotencyKey: "order-17", .contentType: "application/json"]
            let first = try await app.send(.post, "/v1/jobs", key: tenant.key, body: body, headers: keyed)
            #expect(first.status == 201)
            #expect(first.headers["idempotent-replayed"] == nil)
            let again = try await app.send(.post, "/v1/jobs", key: tenant.key, body: body, headers: keyed)
            #expect(again.status == 200)
            #expect(again.headers["idempotent-replayed"] == "true")
            #expect(again["id"] as? String == first["id"] as? String)
            let other = try await app.send(
                .post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(RouteFixture.unreachable + "?other"),
                headers: [Self.idempotencyKey: "order-17"])
            app.expectProblem(other, 409, "idempotency_key_reused")
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, body: body, headers: [Self.idempotencyKey: "has space", .contentType: "application/json"]),
                400, "invalid_request", fields: ["Idempotency-Key"])
            // The same key is another tenant's own.
            let bob = try await app.createTenant()
            let bobs = try await app.send(.post, "/v1/jobs", key: bob.key, body: body, headers: keyed)
            #expect(bobs.status == 201)
            #expect(bobs["id"] as? String != first["id"] as? String)
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).list("jobs").count == 1)
        }
    }

    @Test func badSubmissionsListEveryBadField() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            app.expectProblem(try await app.send(.post, "/v1/jobs", key: tenant.key, json: [:]), 400, "invalid_request", fields: ["kind", "request.url"])
            let everything: [String: Any] = [
                "kind": "stream",
                "request": ["url": "file:///etc/passwd", "method": "GE T", "headers": ["Host": "evil", "X-Ok": "1"]],
                "session": "not-a-session",
                "priority": 1001,
                "retry": ["max_attempts": 0],
                "timeouts": ["idle": 0, "total": 700_000],
                "redirects": ["max": 21],
                "checksum": ["sha256": "abc"],
                "callback": ["url": "gopher://x"],
                "cache_policy": "sometimes",
            ]
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: everything), 400, "invalid_request",
                fields: [
                    "kind", "request.url", "request.method", "request.headers.Host", "session", "priority", "retry.max_attempts",
                    "timeouts.idle", "timeouts.total", "redirects.max", "checksum.sha256", "callback.url", "cache_policy",
                ])
            // Credentials in the URL would be stored and logged with it.
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download("http://user:pw@127.0.0.1:9/x")),
                400, "invalid_request", fields: ["request.url"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(RouteFixture.unreachable, ["priority": "high"])),
                400, "invalid_request", fields: ["priority"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: ["kind": "upload", "request": ["url": RouteFixture.unreachable]]),
                400, "invalid_request", fields: ["request.body"])
            app.expectProblem(
                try await app.send(
                    .post, "/v1/jobs", key: tenant.key,
                    json: ["kind": "upload", "request": ["url": RouteFixture.unreachable, "body": ["base64": "!!", "blob": "x"]]]),
                400, "invalid_request", fields: ["request.body"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, body: Data("[]".utf8), headers: [.contentType: "application/json"]),
                400, "invalid_request", fields: ["body"])
            app.expectProblem(try await app.send(.post, "/v1/jobs", key: tenant.key), 400, "invalid_request", fields: ["body"])
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).list("jobs").isEmpty, "no bad submission made a job")
        }
    }

    /// A job asks for the origin's own bytes unless it says `"compressed": true` (stored with its
    /// policies, for the worker); the field is a boolean, and a misspelling of it is still refused.
    @Test func compressedIsAnOptInBoolean() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let plain = try await app.submit(tenant.key)
            let compressed = try await app.submit(tenant.key, RouteFixture.download(RouteFixture.unreachable, ["compressed": true]))
            let explicitlyNot = try await app.submit(tenant.key, RouteFixture.download(RouteFixture.unreachable, ["compressed": false]))
            func stored(_ id: String) async throws -> String? {
                try await app.sql("SELECT coalesce(policies->>'compressed', 'absent') FROM jobs WHERE id = '\(id)'")
            }
            #expect(try await stored(plain) == "absent")
            #expect(try await stored(compressed) == "true")
            #expect(try await stored(explicitlyNot) == "absent")
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(RouteFixture.unreachable, ["compressed": "yes"])),
                400, "invalid_request", fields: ["compressed"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(RouteFixture.unreachable, ["compress": true])),
                400, "invalid_request", fields: ["compress"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/batch", key: tenant.key, json: ["jobs": [
                    RouteFixture.download(RouteFixture.unreachable, ["compressed": true]),
                    RouteFixture.download(RouteFixture.unreachable, ["compressed": 1]),
                ]]), 400, "invalid_request", fields: ["jobs.1.compressed"])
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).list("jobs").count == 3)
        }
    }

    @Test func tenantOverItsQueueLimitGets429WithRetryAfter() async throws {
        try await RouteFixture.with { app in
            let created = try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "small", "max_queued_jobs": 1])
            let key = try #require(created["api_key"] as? String)
            _ = try await app.submit(key)
            let refused = try await app.send(.post, "/v1/jobs", key: key, json: RouteFixture.download())
            app.expectProblem(refused, 429, "queue_full")
            #expect(refused.headers["retry-after"] == "5")
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/batch", key: key, json: ["jobs": [RouteFixture.download()]]), 429, "queue_full")
            #expect(try await app.send(.get, "/v1/jobs", key: key).list("jobs").count == 1)
        }
    }

    @Test func listsPageNewestFirstAndFilterByState() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            var ids: [String] = []
            for index in 0..<3 { ids.append(try await app.submit(tenant.key, RouteFixture.download(RouteFixture.unreachable + "?\(index)"))) }
            let first = try await app.send(.get, "/v1/jobs?limit=2", key: tenant.key)
            #expect(first.status == 200)
            #expect(first.list("jobs").compactMap { $0["id"] as? String } == [ids[2], ids[1]])
            let cursor = try #require(first["next_cursor"] as? String)
            let second = try await app.send(.get, "/v1/jobs?limit=2&cursor=\(cursor)", key: tenant.key)
            #expect(second.list("jobs").compactMap { $0["id"] as? String } == [ids[0]])
            #expect(second["next_cursor"] == nil || second["next_cursor"] is NSNull)

            #expect(try await app.send(.post, "/v1/jobs/\(ids[1])/pause", key: tenant.key).status == 200)
            let paused = try await app.send(.get, "/v1/jobs?state=paused", key: tenant.key)
            #expect(paused.list("jobs").compactMap { $0["id"] as? String } == [ids[1]])
            #expect(try await app.send(.get, "/v1/jobs?state=queued", key: tenant.key).list("jobs").count == 2)

            app.expectProblem(
                try await app.send(.get, "/v1/jobs?state=sleeping&limit=0&cursor=nonsense", key: tenant.key),
                400, "invalid_request", fields: ["state", "limit", "cursor"])
            app.expectProblem(try await app.send(.get, "/v1/jobs?limit=501", key: tenant.key), 400, "invalid_request", fields: ["limit"])
        }
    }

    @Test func queuedJobIsPausedResumedCancelledThenDeletedAndHasNoContent() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let bob = try await app.createTenant()
            let id = try await app.submit(tenant.key)

            app.expectProblem(try await app.send(.get, "/v1/jobs/\(id)/content", key: tenant.key), 409, "job_content_unavailable")
            app.expectProblem(try await app.send(.delete, "/v1/jobs/\(id)", key: tenant.key), 409, "job_not_finished")

            let paused = try await app.send(.post, "/v1/jobs/\(id)/pause", key: tenant.key)
            #expect(paused.status == 200)
            #expect(paused["state"] as? String == "paused")
            app.expectProblem(try await app.send(.post, "/v1/jobs/\(id)/pause", key: tenant.key), 409, "illegal_transition")
            let resumed = try await app.send(.post, "/v1/jobs/\(id)/resume", key: tenant.key)
            #expect(resumed.status == 200)
            #expect(resumed["state"] as? String == "queued")
            app.expectProblem(try await app.send(.post, "/v1/jobs/\(id)/resume", key: tenant.key), 409, "illegal_transition")

            // Another tenant can neither control, read the content of, nor delete it.
            for action in ["pause", "resume", "cancel"] {
                app.expectProblem(try await app.send(.post, "/v1/jobs/\(id)/\(action)", key: bob.key), 404, "not_found")
            }
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(id)/content", key: bob.key), 404, "not_found")
            app.expectProblem(try await app.send(.delete, "/v1/jobs/\(id)", key: bob.key), 404, "not_found")

            let cancelled = try await app.send(.post, "/v1/jobs/\(id)/cancel", key: tenant.key)
            #expect(cancelled.status == 200)
            #expect(cancelled["state"] as? String == "cancelled")
            #expect((cancelled["error"] as? [String: Any])?["code"] as? String == "cancelled")
            #expect(cancelled["finished_at"] is String)
            app.expectProblem(try await app.send(.post, "/v1/jobs/\(id)/cancel", key: tenant.key), 409, "illegal_transition")
            app.expectProblem(try await app.send(.post, "/v1/jobs/\(id)/resume", key: tenant.key), 409, "illegal_transition")
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(id)/content", key: tenant.key), 409, "job_content_unavailable")
            // The read after a control shows the new state, not a remembered one.
            #expect(try await app.send(.get, "/v1/jobs/\(id)", key: tenant.key)["state"] as? String == "cancelled")

            #expect(try await app.send(.delete, "/v1/jobs/\(id)", key: tenant.key).status == 204)
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(id)", key: tenant.key), 404, "not_found")
            app.expectProblem(try await app.send(.delete, "/v1/jobs/\(id)", key: tenant.key), 404, "not_found")
        }
    }

    @Test func batchIsAllOrNothingWithIndexedFieldErrors() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let bad = try await app.send(
                .post, "/v1/jobs/batch", key: tenant.key,
                json: ["jobs": [RouteFixture.download(), ["kind": "download"], RouteFixture.download("ftp-nope", ["priority": 5000])]])
            app.expectProblem(bad, 400, "invalid_request", fields: ["jobs.1.request.url", "jobs.2.request.url", "jobs.2.priority"])
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).list("jobs").isEmpty, "a refused batch makes no job")
            app.expectProblem(try await app.send(.post, "/v1/jobs/batch", key: tenant.key, json: ["jobs": []]), 400, "invalid_request", fields: ["jobs"])
            app.expectProblem(try await app.send(.post, "/v1/jobs/batch", key: tenant.key, json: [:]), 400, "invalid_request", fields: ["jobs"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/batch", key: app.adminKey, json: ["jobs": [RouteFixture.download()]]), 403, "tenant_key_required")

            let body = try JSONSerialization.data(
                withJSONObject: ["jobs": [RouteFixture.download(RouteFixture.unreachable + "?a"), RouteFixture.download(RouteFixture.unreachable + "?b")]])
            let keyed: HTTPFields = [Self.idempotencyKey: "batch-1", .contentType: "application/json"]
            let created = try await app.send(.post, "/v1/jobs/batch", key: tenant.key, body: body, headers: keyed)
            #expect(created.status == 201)
            let jobs = created.list("jobs")
            #expect(jobs.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
                == [RouteFixture.unreachable + "?a", RouteFixture.unreachable + "?b"], "in the order given")
            #expect(jobs.allSatisfy { $0["state"] as? String == "queued" })
            let replay = try await app.send(.post, "/v1/jobs/batch", key: tenant.key, body: body, headers: keyed)
            #expect(replay.status == 200)
            #expect(replay.headers["idempotent-replayed"] == "true")
            #expect(replay.list("jobs").compactMap { $0["id"] as? String } == jobs.compactMap { $0["id"] as? String })
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/batch", key: tenant.key, json: ["jobs": [RouteFixture.download()]], headers: [Self.idempotencyKey: "batch-1"]),
                409, "idempotency_key_reused")
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).list("jobs").count == 2)
        }
    }

    @Test func adminSeesAndControlsEveryTenantsJobsWithTheTenantNamed() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let aliceJob = try await app.submit(alice.key)
            let bobJob = try await app.submit(bob.key)

            let all = try await app.send(.get, "/v1/admin/jobs", key: app.adminKey)
            #expect(all.status == 200)
            let tenants = Dictionary(uniqueKeysWithValues: all.list("jobs").compactMap { job in
                (job["id"] as? String).map { ($0, job["tenant"] as? String) }
            })
            #expect(tenants == [aliceJob: alice.id, bobJob: bob.id])
            #expect(try await app.send(.get, "/v1/admin/jobs?limit=1", key: app.adminKey).list("jobs").count == 1)
            app.expectProblem(try await app.send(.get, "/v1/admin/jobs?state=nope", key: app.adminKey), 400, "invalid_request", fields: ["state"])

            let read = try await app.send(.get, "/v1/admin/jobs/\(bobJob)", key: app.adminKey)
            #expect(read.status == 200)
            #expect(read["tenant"] as? String == bob.id)
            let paused = try await app.send(.post, "/v1/admin/jobs/\(bobJob)/pause", key: app.adminKey)
            #expect(paused.status == 200)
            #expect(paused["state"] as? String == "paused")
            #expect(try await app.send(.get, "/v1/jobs/\(bobJob)", key: bob.key)["state"] as? String == "paused")
            #expect(try await app.send(.post, "/v1/admin/jobs/\(bobJob)/resume", key: app.adminKey)["state"] as? String == "queued")
            #expect(try await app.send(.post, "/v1/admin/jobs/\(aliceJob)/cancel", key: app.adminKey)["state"] as? String == "cancelled")
            app.expectProblem(try await app.send(.post, "/v1/admin/jobs/\(aliceJob)/cancel", key: app.adminKey), 409, "illegal_transition")

            app.expectProblem(try await app.send(.get, "/v1/admin/jobs/\(UUID().uuidString.lowercased())", key: app.adminKey), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/admin/jobs", key: alice.key), 403, "admin_key_required")
            app.expectProblem(try await app.send(.get, "/v1/admin/jobs/\(aliceJob)", key: alice.key), 403, "admin_key_required")
            app.expectProblem(try await app.send(.post, "/v1/admin/jobs/\(bobJob)/pause", key: alice.key), 403, "admin_key_required")
        }
    }

    /// A cursor whose time is out of PostgreSQL's interval range and a URL with a NUL are field errors,
    /// not 500s from the database; a number with a fraction where an integer belongs names its field.
    @Test func forgedCursorsNulInURLsAndFractionalIntegersAreFieldErrors() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let cursor = RouteFixture.forgedCursor(micros: Int64.max)
            app.expectProblem(
                try await app.send(.get, "/v1/jobs?cursor=\(cursor)", key: tenant.key), 400, "invalid_request", fields: ["cursor"])
            app.expectProblem(
                try await app.send(.get, "/v1/admin/jobs?cursor=\(cursor)", key: app.adminKey), 400, "invalid_request", fields: ["cursor"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download("http://127.0.0.1:9/\u{0}")), 400, "invalid_request", fields: ["request.url"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(RouteFixture.unreachable, ["priority": 1.5])),
                400, "invalid_request", fields: ["priority"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/batch", key: tenant.key, json: ["jobs": [
                    RouteFixture.download(RouteFixture.unreachable, ["retry": ["max_attempts": 2.5]]),
                ]]), 400, "invalid_request", fields: ["jobs.0.retry.max_attempts"])
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).list("jobs").isEmpty)
        }
    }
}
