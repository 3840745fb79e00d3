import Foundation
import Testing

/// `/v1/sessions` (SES-01: three kinds; SES-33: invalidation with finish or cancel) and
/// `/v1/sessions/{id}/cookies` (CK-09: a session's own jar; SES-03: an ephemeral one keeps none here).
@Suite("Routes: sessions and cookies", .timeLimit(.minutes(2)))
struct SessionRouteTests {
    @Test func sessionIsCreatedWithItsConfigurationShownAndTheProxyPasswordRedacted() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let plain = try await app.send(.post, "/v1/sessions", key: tenant.key, json: [:])
            #expect(plain.status == 201)
            #expect(plain["kind"] as? String == "default")
            #expect((plain["configuration"] as? [String: Any])?["additional_headers"] as? [String: String] == [:])
            #expect(plain["invalidated_at"] == nil)

            let configured = try await app.send(
                .post, "/v1/sessions", key: tenant.key,
                json: [
                    "kind": "background", "identifier": "com.example.configured",
                    "configuration": [
                        "timeouts": ["idle": 30], "max_connections_per_host": 4, "additional_headers": ["X-Team": "ops"],
                        "tls": ["minimum": "1.2"], "proxy": "http://proxyuser:proxy-pw-secret@proxy.example:3128",
                        "cache_policy": "reload_ignoring_cache",
                    ],
                ])
            #expect(configured.status == 201)
            #expect(configured["kind"] as? String == "background")
            #expect(configured["identifier"] as? String == "com.example.configured")
            let configuration = try #require(configured["configuration"] as? [String: Any])
            #expect((configuration["timeouts"] as? [String: Any])?["idle"] as? Double == 30)
            #expect(configuration["max_connections_per_host"] as? Int == 4)
            #expect(configuration["additional_headers"] as? [String: String] == ["x-team": "ops"], "header names are shown lower-cased")
            #expect((configuration["tls"] as? [String: Any])?["minimum"] as? String == "1.2")
            #expect(configuration["cache_policy"] as? String == "reload_ignoring_cache")
            let proxy = try #require(configuration["proxy"] as? String)
            #expect(proxy.contains("proxyuser") && proxy.contains("proxy.example:3128"))
            #expect(!configured.text.contains("proxy-pw-secret"), "a proxy password is never shown")
            let id = try #require(configured["id"] as? String)
            #expect(!(try await app.send(.get, "/v1/sessions/\(id)", key: tenant.key)).text.contains("proxy-pw-secret"))

            let list = try await app.send(.get, "/v1/sessions", key: tenant.key)
            #expect(list.status == 200)
            #expect(Set(list.list("sessions").compactMap { $0["id"] as? String }) == [id, try #require(plain["id"] as? String)])
        }
    }

    @Test func badConfigurationsNameTheirFieldsAndOtherTenantsSessionsAreNotFound() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            app.expectProblem(
                try await app.send(
                    .post, "/v1/sessions", key: alice.key,
                    json: ["kind": "private", "configuration": ["timeouts": ["idle": 0], "tls": ["maximum": "2.0"], "cache_policy": "always"]]),
                400, "invalid_request", fields: ["kind", "configuration.timeouts.idle", "configuration.tls.maximum", "configuration.cache_policy"])
            app.expectProblem(
                try await app.send(.post, "/v1/sessions", key: alice.key, json: ["configuration": ["max_connections_per_host": "many"]]),
                400, "invalid_request", fields: ["configuration.max_connections_per_host"])
            #expect(try await app.send(.get, "/v1/sessions", key: alice.key).list("sessions").isEmpty)

            let session = try await app.create("/v1/sessions", key: alice.key, json: [:])
            app.expectProblem(try await app.send(.get, "/v1/sessions/\(session)", key: bob.key), 404, "not_found")
            app.expectProblem(try await app.send(.delete, "/v1/sessions/\(session)", key: bob.key), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/sessions/\(session)/cookies", key: bob.key), 404, "not_found")
            app.expectProblem(try await app.send(.delete, "/v1/sessions/\(session)/cookies", key: bob.key), 404, "not_found")
            #expect(try await app.send(.get, "/v1/sessions", key: bob.key).list("sessions").isEmpty)
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: bob.key, json: RouteFixture.download(RouteFixture.unreachable, ["session": session])),
                404, "session_not_found")
            app.expectProblem(try await app.send(.get, "/v1/sessions", key: app.adminKey), 403, "tenant_key_required")
            #expect(try await app.send(.get, "/v1/sessions/\(session)", key: alice.key)["invalidated_at"] == nil, "bob's delete did nothing")
        }
    }

    @Test func finishedSessionTakesNoJobsAndCancelCancelsItsQueuedJobs() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let finishing = try await app.create("/v1/sessions", key: tenant.key, json: [:])
            let queued = try await app.submit(tenant.key, RouteFixture.download(RouteFixture.unreachable, ["session": finishing]))
            app.expectProblem(try await app.send(.delete, "/v1/sessions/\(finishing)?mode=later", key: tenant.key), 400, "invalid_request", fields: ["mode"])
            let finished = try await app.send(.delete, "/v1/sessions/\(finishing)?mode=finish", key: tenant.key)
            #expect(finished.status == 200)
            #expect(finished["invalidation_mode"] as? String == "finish")
            #expect(finished["invalidated_at"] is String)
            #expect(try await app.send(.get, "/v1/jobs/\(queued)", key: tenant.key)["state"] as? String == "queued", "finish lets its jobs run")
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(RouteFixture.unreachable, ["session": finishing])),
                409, "session_invalidated")
            let inSession = RouteFixture.download(RouteFixture.unreachable, ["session": finishing])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/batch", key: tenant.key, json: ["jobs": [inSession]]), 409, "session_invalidated")

            let cancelling = try await app.create("/v1/sessions", key: tenant.key, json: ["kind": "ephemeral"])
            let first = try await app.submit(tenant.key, RouteFixture.download(RouteFixture.unreachable, ["session": cancelling]))
            let second = try await app.submit(tenant.key, RouteFixture.download(RouteFixture.unreachable, ["session": cancelling]))
            #expect(try await app.send(.post, "/v1/jobs/\(second)/pause", key: tenant.key).status == 200)
            let outside = try await app.submit(tenant.key)
            let cancelled = try await app.send(.delete, "/v1/sessions/\(cancelling)?mode=cancel", key: tenant.key)
            #expect(cancelled.status == 200)
            #expect(cancelled["invalidation_mode"] as? String == "cancel")
            for job in [first, second] {
                let read = try await app.send(.get, "/v1/jobs/\(job)", key: tenant.key)
                #expect(read["state"] as? String == "cancelled")
                #expect((read["error"] as? [String: Any])?["code"] as? String == "cancelled")
            }
            #expect(try await app.send(.get, "/v1/jobs/\(outside)", key: tenant.key)["state"] as? String == "queued")
        }
    }

    @Test func cookieJarIsReadAndEmptiedButAnEphemeralSessionHasNoneHere() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let session = try await app.create("/v1/sessions", key: tenant.key, json: [:])
            let jar = try await app.send(.get, "/v1/sessions/\(session)/cookies", key: tenant.key)
            #expect(jar.status == 200)
            #expect(jar["cookies"] as? [Any] != nil)
            #expect(jar.list("cookies").isEmpty)
            #expect(try await app.send(.delete, "/v1/sessions/\(session)/cookies", key: tenant.key).status == 204)

            let ephemeral = try await app.create("/v1/sessions", key: tenant.key, json: ["kind": "ephemeral"])
            app.expectProblem(try await app.send(.get, "/v1/sessions/\(ephemeral)/cookies", key: tenant.key), 409, "session_ephemeral")
            app.expectProblem(try await app.send(.delete, "/v1/sessions/\(ephemeral)/cookies", key: tenant.key), 409, "session_ephemeral")
            app.expectProblem(
                try await app.send(.get, "/v1/sessions/\(UUID().uuidString.lowercased())/cookies", key: tenant.key), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/sessions/\(session)/cookies", key: app.adminKey), 403, "tenant_key_required")
        }
    }
}
