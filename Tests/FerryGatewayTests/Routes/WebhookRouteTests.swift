import Foundation
import FerrydTestSupport
import PostgresNIO
import Testing

/// `/v1/webhooks`: the tenant's signing secret and its rotation, endpoints (create, list, delete),
/// the delivery log and redelivery, and the admin's delivery log. Deliveries themselves (signed
/// requests to a receiver) are `GatewayWebhookTests`.
@Suite("Routes: webhooks", .timeLimit(.minutes(2)))
struct WebhookRouteTests {
    @Test func secretIsStableUntilRotatedAndRotationKeepsTheOldOneForADay() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let first = try await app.send(.get, "/v1/webhooks/secret", key: tenant.key)
            #expect(first.status == 200)
            let secret = try #require(first["secret"] as? String)
            #expect(!secret.isEmpty)
            #expect(try await app.send(.get, "/v1/webhooks/secret", key: tenant.key)["secret"] as? String == secret)
            let rotated = try await app.send(.post, "/v1/webhooks/secret/rotate", key: tenant.key)
            #expect(rotated.status == 200)
            let next = try #require(rotated["secret"] as? String)
            #expect(next != secret)
            let until = try #require((rotated["previous_valid_until"] as? String).flatMap {
                try? Date($0, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            })
            #expect(abs(until.timeIntervalSinceNow - 24 * 3600) < 600)
            #expect(try await app.send(.get, "/v1/webhooks/secret", key: tenant.key)["secret"] as? String == next)
            let other = try await app.createTenant()
            #expect(try await app.send(.get, "/v1/webhooks/secret", key: other.key)["secret"] as? String != next, "each tenant signs with its own")
            app.expectProblem(try await app.send(.get, "/v1/webhooks/secret", key: app.adminKey), 403, "tenant_key_required")
        }
    }

    @Test func endpointsAreCreatedWithTheirSecretShownOnceListedAndDeleted() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let created = try await app.send(
                .post, "/v1/webhooks/endpoints", key: alice.key,
                json: ["url": "http://127.0.0.1:9/hook", "events": ["job.succeeded", "job.failed", "job.succeeded"]])
            #expect(created.status == 201)
            let id = try #require(created["id"] as? String)
            #expect(created.headers["location"] == "/v1/webhooks/endpoints/\(id)")
            #expect(created["events"] as? [String] == ["job.failed", "job.succeeded"], "deduplicated and sorted")
            let secret = try #require(created["secret"] as? String)
            #expect(!secret.isEmpty)

            let list = try await app.send(.get, "/v1/webhooks/endpoints", key: alice.key)
            #expect(list.status == 200)
            #expect(list.list("endpoints").compactMap { $0["id"] as? String } == [id])
            #expect(list.list("endpoints").first?["secret"] == nil)
            #expect(!list.text.contains(secret))
            #expect(try await app.send(.get, "/v1/webhooks/endpoints", key: bob.key).list("endpoints").isEmpty)

            app.expectProblem(try await app.send(.delete, "/v1/webhooks/endpoints/\(id)", key: bob.key), 404, "not_found")
            #expect(try await app.send(.delete, "/v1/webhooks/endpoints/\(id)", key: alice.key).status == 204)
            app.expectProblem(try await app.send(.delete, "/v1/webhooks/endpoints/\(id)", key: alice.key), 404, "not_found")
            #expect(try await app.send(.get, "/v1/webhooks/endpoints", key: alice.key).list("endpoints").isEmpty)
        }
    }

    @Test func badEndpointsNameTheirFields() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let path = "/v1/webhooks/endpoints"
            app.expectProblem(try await app.send(.post, path, key: tenant.key, json: [:]), 400, "invalid_request", fields: ["url", "events"])
            app.expectProblem(
                try await app.send(.post, path, key: tenant.key, json: ["url": "ftp://127.0.0.1/hook", "events": ["job.exploded"]]),
                400, "invalid_request", fields: ["url", "events"])
            app.expectProblem(
                try await app.send(.post, path, key: tenant.key, json: ["url": "http://user:pw@hooks.example/x", "events": []]),
                400, "invalid_request", fields: ["url", "events"])
            app.expectProblem(
                try await app.send(.post, path, key: tenant.key, json: ["url": "http://hooks.example/x", "events": "job.succeeded"]),
                400, "invalid_request", fields: ["events"])
            #expect(try await app.send(.get, path, key: tenant.key).list("endpoints").isEmpty)
            app.expectProblem(
                try await app.send(.post, path, key: app.adminKey, json: ["url": "http://hooks.example/x", "events": ["job.failed"]]),
                403, "tenant_key_required")
        }
    }

    @Test func deliveryLogsAndRedeliveryOfUnknownDeliveries() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let job = try await app.submit(tenant.key)
            let log = try await app.send(.get, "/v1/webhooks/deliveries", key: tenant.key)
            #expect(log.status == 200)
            #expect(log["deliveries"] as? [Any] != nil)
            #expect(log.list("deliveries").isEmpty, "a job without callback or endpoints has no deliveries")
            #expect(try await app.send(.get, "/v1/webhooks/deliveries?job=\(job)", key: tenant.key).list("deliveries").isEmpty)
            app.expectProblem(
                try await app.send(.get, "/v1/webhooks/deliveries?job=17", key: tenant.key), 400, "invalid_request", fields: ["job"])
            let unknown = UUID().uuidString.lowercased()
            app.expectProblem(try await app.send(.post, "/v1/webhooks/deliveries/\(unknown)/redeliver", key: tenant.key), 404, "not_found")
            app.expectProblem(try await app.send(.post, "/v1/webhooks/deliveries/not-an-id/redeliver", key: tenant.key), 404, "not_found")

            let admin = try await app.send(.get, "/v1/admin/webhooks/deliveries", key: app.adminKey)
            #expect(admin.status == 200)
            #expect(admin.list("deliveries").isEmpty)
            app.expectProblem(
                try await app.send(.get, "/v1/admin/webhooks/deliveries?job=x", key: app.adminKey), 400, "invalid_request", fields: ["job"])
            app.expectProblem(
                try await app.send(.post, "/v1/admin/webhooks/deliveries/\(unknown)/redeliver", key: app.adminKey), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/admin/webhooks/deliveries", key: tenant.key), 403, "admin_key_required")
            app.expectProblem(
                try await app.send(.post, "/v1/admin/webhooks/deliveries/\(unknown)/redeliver", key: tenant.key), 403, "admin_key_required")
            app.expectProblem(try await app.send(.get, "/v1/webhooks/deliveries", key: app.adminKey), 403, "tenant_key_required")
            app.expectProblem(try await app.send(.get, "/v1/webhooks/deliveries", key: nil), 401, "unauthenticated")
        }
    }

    @Test func finishedJobsCallbackAndSubscribedEndpointAreLoggedForTheirTenantOnly() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let callback = "http://127.0.0.1:9/callback"
            let endpoint = try await app.create(
                "/v1/webhooks/endpoints", key: alice.key, json: ["url": "http://127.0.0.1:9/endpoint", "events": ["job.cancelled"]])
            let job = try await app.submit(alice.key, RouteFixture.download(RouteFixture.unreachable, ["callback": ["url": callback]]))
            let quiet = try await app.submit(alice.key)
            // The job's final event is logged for its callback and for the endpoint, in the same commit.
            #expect(try await app.send(.post, "/v1/jobs/\(job)/cancel", key: alice.key).status == 200)

            let log = try await app.send(.get, "/v1/webhooks/deliveries?job=\(job)", key: alice.key)
            #expect(log.status == 200)
            let deliveries = log.list("deliveries")
            #expect(Set(deliveries.compactMap { $0["url"] as? String }) == [callback, "http://127.0.0.1:9/endpoint"])
            #expect(deliveries.allSatisfy { $0["type"] as? String == "job.cancelled" && $0["job"] as? String == job && $0["tenant"] == nil })
            #expect(deliveries.first { $0["url"] as? String == callback }?["endpoint"] == nil)
            #expect(deliveries.first { $0["url"] as? String != callback }?["endpoint"] as? String == endpoint)
            let webhookIDs = Set(deliveries.compactMap { $0["webhook_id"] as? String })
            #expect(webhookIDs.count == 1, "both deliveries carry the one event's webhook-id")
            #expect(try await app.send(.get, "/v1/webhooks/deliveries?job=\(quiet)", key: alice.key).list("deliveries").isEmpty)

            let delivery = try #require(deliveries.first?["id"] as? String)
            #expect(try await app.send(.get, "/v1/webhooks/deliveries", key: bob.key).list("deliveries").isEmpty)
            app.expectProblem(try await app.send(.post, "/v1/webhooks/deliveries/\(delivery)/redeliver", key: bob.key), 404, "not_found")
            let again = try await app.send(.post, "/v1/webhooks/deliveries/\(delivery)/redeliver", key: alice.key)
            #expect(again.status == 202)
            #expect(again["id"] as? String == delivery)

            let admin = try await app.send(.get, "/v1/admin/webhooks/deliveries?job=\(job)", key: app.adminKey)
            #expect(admin.list("deliveries").count == 2)
            #expect(admin.list("deliveries").allSatisfy { $0["tenant"] as? String == alice.id })
            #expect(try await app.send(.post, "/v1/admin/webhooks/deliveries/\(delivery)/redeliver", key: app.adminKey).status == 202)
        }
    }

    /// An endpoint URL with a NUL is a field error, not a failure in the database.
    @Test func nulInAnEndpointURLIsAFieldError() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            app.expectProblem(
                try await app.send(.post, "/v1/webhooks/endpoints", key: tenant.key, json: ["url": "http://h.example/\u{0}", "events": ["job.failed"]]), 400, "invalid_request", fields: ["url"])
            #expect(try await app.send(.get, "/v1/webhooks/endpoints", key: tenant.key).list("endpoints").isEmpty)
        }
    }

    /// A callback the SSRF guard refuses fails at its first attempt, instead of being retried on the
    /// whole schedule (days) for an address that stays forbidden.
    @Test func aForbiddenCallbackEndsAtItsFirstAttempt() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let id = try await app.submit(tenant.key, RouteFixture.download(
                RouteFixture.unreachable, ["callback": ["url": "http://127.0.0.1:9/hook"]]))
            #expect(try await app.send(.post, "/v1/jobs/\(id)/cancel", key: tenant.key).status == 200)
            var delivery: [String: Any] = [:]
            for _ in 0..<300 {
                delivery = try await app.send(.get, "/v1/webhooks/deliveries?job=\(id)", key: tenant.key).list("deliveries").first ?? [:]
                if delivery["status"] as? String != "pending", delivery["status"] != nil { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(delivery["status"] as? String == "failed")
            let attempts = delivery["attempts"] as? [[String: Any]] ?? []
            #expect(attempts.count == 1)
            #expect((attempts.first?["error"] as? String)?.hasPrefix("destination_forbidden") == true)
            #expect(delivery["next_attempt_at"] == nil)
        }
    }
}

/// The delivery logs are read in pages, newest first, as job lists are: before, they returned the
/// newest 200 and nothing older, each read sorting every tenant's deliveries.
@Suite("Routes: webhook delivery pages", .timeLimit(.minutes(2)))
struct WebhookDeliveryPageRouteTests {
    @Test func deliveryLogsArePagedNewestFirstWithCursors() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let other = try await app.createTenant()
            let job = try await app.submit(tenant.key)
            // Seven deliveries of the job's first event; three share one creation time, so the
            // cursor's id decides between them.
            let made = try await PostgresProbe.value(
                PostgresQuery(unsafeSQL: """
                    WITH made AS (
                        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, url, status, created_at)
                        SELECT e.tenant_id, e.id, e.job_id, e.type, 'http://hooks.example/' || g, 'delivered',
                               timestamptz '2026-11-27 12:00:00+00' - (CASE WHEN g <= 3 THEN 0 ELSE g END) * interval '1 second'
                        FROM (SELECT * FROM job_events WHERE job_id = '\(job)' ORDER BY id LIMIT 1) e, generate_series(1, 7) g
                        RETURNING 1)
                    SELECT count(*)::text FROM made
                    """),
                as: String.self, on: app.database.connectionConfiguration)
            #expect(made == "7")

            for (path, key) in [("/v1/webhooks/deliveries", tenant.key), ("/v1/admin/webhooks/deliveries", app.adminKey)] {
                var seen: [[String: Any]] = []
                var cursor: String?
                var pages = 0
                repeat {
                    let page = try await app.send(.get, "\(path)?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""), key: key)
                    #expect(page.status == 200, "\(page.text)")
                    seen += page.list("deliveries")
                    cursor = page["next_cursor"] as? String
                    pages += 1
                } while cursor != nil && pages < 10
                #expect(pages == 3, "\(path): pages of 3, 3 and 1")
                let urls = seen.compactMap { $0["url"] as? String }
                #expect(Set(urls).count == 7 && urls.count == 7, "\(path): each delivery once: \(urls)")
                let made = seen.compactMap { $0["created_at"] as? String }
                #expect(made == made.sorted(by: >), "\(path): newest first")
                let ofJob = try await app.send(.get, "\(path)?job=\(job)&limit=500", key: key)
                #expect(ofJob.list("deliveries").count == 7)
                #expect(ofJob["next_cursor"] == nil)
            }
            #expect(try await app.send(.get, "/v1/webhooks/deliveries", key: other.key).list("deliveries").isEmpty, "another tenant's are not listed")
            app.expectProblem(
                try await app.send(.get, "/v1/webhooks/deliveries?limit=0&cursor=nonsense", key: tenant.key), 400, "invalid_request",
                fields: ["limit", "cursor"])
        }
    }
}
