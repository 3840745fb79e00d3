import Foundation
import HTTPTypes
import Testing

/// `/healthz`, `/readyz`, `/metrics` and `/openapi.json`: no key needed, and each answers as documented.
@Suite("Routes: health, metrics, document", .timeLimit(.minutes(2)))
struct HealthRouteTests {
    @Test func healthReadinessMetricsAndTheDocumentNeedNoKey() async throws {
        try await RouteFixture.with { app in
            let health = try await app.send(.get, "/healthz", key: nil)
            #expect(health.status == 200)
            #expect(health["status"] as? String == "ok")
            let ready = try await app.send(.get, "/readyz", key: nil)
            #expect(ready.status == 200)
            #expect(ready["status"] as? String == "ready")
            let metrics = try await app.send(.get, "/metrics", key: nil)
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
            let document = try await app.send(.get, "/openapi.json", key: nil)
            #expect(document.status == 200)
            #expect(document["openapi"] as? String == "3.1.0")
        }
    }

    @Test func unknownRoutesAndMissingKeysAreProblems() async throws {
        try await RouteFixture.with { app in
            let unknown = try await app.send(.get, "/v1/nothing-here", key: app.adminKey)
            #expect(unknown.status == 404)
            #expect(unknown.headers["content-type"] == "application/problem+json")
            let anonymous = try await app.send(.get, "/v1/jobs", key: nil)
            #expect(anonymous.status == 401)
            #expect(anonymous.code == "unauthenticated")
            let wrongKey = try await app.send(.get, "/v1/jobs", key: "ferry_not_a_key")
            #expect(wrongKey.status == 401)
        }
    }
}

/// A path the API has, asked with a method it does not take: 405 with `Allow` (RFC 9110 §15.5.6).
@Suite("Routes: methods", .timeLimit(.minutes(2)))
struct MethodRouteTests {
    @Test func anotherMethodOfAKnownPathIs405WithAllow() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let id = try await app.submit(tenant.key)
            for (method, path, allow) in [
                (HTTPRequest.Method.delete, "/v1/jobs", "GET, POST"),
                (.get, "/v1/jobs/batch", "POST"),
                (.put, "/v1/jobs/\(id)", "DELETE, GET"),
                (.get, "/v1/jobs/\(id)/cancel", "POST"),
            ] {
                let reply = try await app.send(method, path, key: tenant.key)
                app.expectProblem(reply, 405, "method_not_allowed")
                #expect(reply.headers["allow"] == allow, "\(method) \(path)")
            }
            app.expectProblem(try await app.send(.get, "/v1/no/such/path", key: tenant.key), 404, "not_found")
        }
    }
}
