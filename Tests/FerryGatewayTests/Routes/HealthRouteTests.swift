import Foundation
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
