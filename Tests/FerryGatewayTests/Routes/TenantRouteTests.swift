import Foundation
import Testing

/// `/v1/admin/tenants` and their keys: the admin creates tenants (first key shown once), lists them,
/// creates, lists and revokes keys; a revoked key gets 401 at once.
@Suite("Routes: tenants and keys", .timeLimit(.minutes(2)))
struct TenantRouteTests {
    @Test func tenantIsCreatedWithItsFirstKeyShownOnceAndListedWithoutIt() async throws {
        try await RouteFixture.with { app in
            let created = try await app.send(
                .post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "  acme  ", "max_running_jobs": 2, "max_queued_jobs": 10])
            #expect(created.status == 201)
            let id = try #require(created["id"] as? String)
            #expect(UUID(uuidString: id) != nil)
            #expect(created["name"] as? String == "acme", "the name is trimmed")
            #expect(created["max_running_jobs"] as? Int == 2)
            #expect(created["max_queued_jobs"] as? Int == 10)
            #expect(created["disabled"] as? Bool == false)
            let key = try #require(created["api_key"] as? String)
            #expect(key.hasPrefix("ferry_"))
            // The first key works for the tenant's own routes.
            #expect(try await app.send(.get, "/v1/jobs", key: key).status == 200)

            let list = try await app.send(.get, "/v1/admin/tenants", key: app.adminKey)
            #expect(list.status == 200)
            let listed = try #require(list.list("tenants").first { $0["id"] as? String == id })
            #expect(listed["name"] as? String == "acme")
            #expect(listed["api_key"] == nil, "a key is shown only when it is made")
            #expect(!list.text.contains(key))
        }
    }

    @Test func keysAreCreatedListedAndRevokedAndARevokedKeyGets401() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let made = try await app.send(.post, "/v1/admin/tenants/\(tenant.id)/keys", key: app.adminKey, json: ["label": "ci"])
            #expect(made.status == 201)
            #expect(made["label"] as? String == "ci")
            #expect(made["revoked"] as? Bool == false)
            let keyID = try #require(made["id"] as? String)
            let secondKey = try #require(made["api_key"] as? String)
            #expect(secondKey != tenant.key)
            #expect(try await app.send(.get, "/v1/jobs", key: secondKey).status == 200)
            // No body at all: a key without a label.
            let unlabelled = try await app.send(.post, "/v1/admin/tenants/\(tenant.id)/keys", key: app.adminKey)
            #expect(unlabelled.status == 201)
            #expect(unlabelled["label"] == nil)

            let keys = try await app.send(.get, "/v1/admin/tenants/\(tenant.id)/keys", key: app.adminKey)
            #expect(keys.status == 200)
            #expect(keys.list("keys").count == 3)
            #expect(keys.list("keys").allSatisfy { $0["api_key"] == nil })

            #expect(try await app.send(.delete, "/v1/admin/tenants/\(tenant.id)/keys/\(keyID)", key: app.adminKey).status == 204)
            let revoked = try await app.send(.get, "/v1/jobs", key: secondKey)
            app.expectProblem(revoked, 401, "invalid_api_key")
            #expect(revoked.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            // The tenant's other key still works; revoking again is not an error.
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).status == 200)
            #expect(try await app.send(.delete, "/v1/admin/tenants/\(tenant.id)/keys/\(keyID)", key: app.adminKey).status == 204)
            let after = try await app.send(.get, "/v1/admin/tenants/\(tenant.id)/keys", key: app.adminKey)
            #expect(after.list("keys").first { $0["id"] as? String == keyID }?["revoked"] as? Bool == true)
        }
    }

    @Test func badTenantAndKeyBodiesGetFieldErrors() async throws {
        try await RouteFixture.with { app in
            app.expectProblem(try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: [:]), 400, "invalid_request", fields: ["name"])
            app.expectProblem(
                try await app.send(
                    .post, "/v1/admin/tenants", key: app.adminKey,
                    json: ["name": "   ", "max_running_jobs": 0, "max_queued_jobs": -1]),
                400, "invalid_request", fields: ["name", "max_running_jobs", "max_queued_jobs"])
            app.expectProblem(
                try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": 42]), 400, "invalid_request", fields: ["name"])
            app.expectProblem(
                try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": String(repeating: "n", count: 201)]),
                400, "invalid_request", fields: ["name"])
            app.expectProblem(
                try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, body: Data("{\"name\":".utf8),
                                   headers: [.contentType: "application/json"]),
                400, "invalid_request", fields: ["body"])
            let tenant = try await app.createTenant()
            app.expectProblem(
                try await app.send(
                    .post, "/v1/admin/tenants/\(tenant.id)/keys", key: app.adminKey, json: ["label": String(repeating: "l", count: 201)]),
                400, "invalid_request", fields: ["label"])
        }
    }

    @Test func tenantRoutesNeedTheAdminKeyAndUnknownTenantsAreNotFound() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            app.expectProblem(try await app.send(.get, "/v1/admin/tenants", key: tenant.key), 403, "admin_key_required")
            app.expectProblem(try await app.send(.post, "/v1/admin/tenants", key: tenant.key, json: ["name": "x"]), 403, "admin_key_required")
            app.expectProblem(try await app.send(.get, "/v1/admin/tenants/\(tenant.id)/keys", key: tenant.key), 403, "admin_key_required")
            app.expectProblem(try await app.send(.get, "/v1/admin/tenants", key: nil), 401, "unauthenticated")
            app.expectProblem(try await app.send(.get, "/v1/admin/tenants", key: "ferry_unknown"), 401, "invalid_api_key")

            let nobody = UUID().uuidString.lowercased()
            app.expectProblem(try await app.send(.post, "/v1/admin/tenants/\(nobody)/keys", key: app.adminKey), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/admin/tenants/\(nobody)/keys", key: app.adminKey), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/admin/tenants/not-a-uuid/keys", key: app.adminKey), 404, "not_found")
            // Another tenant's key cannot be revoked through this tenant's path.
            let other = try await app.createTenant()
            let otherKeys = try await app.send(.get, "/v1/admin/tenants/\(other.id)/keys", key: app.adminKey)
            let otherKeyID = try #require(otherKeys.list("keys").first?["id"] as? String)
            app.expectProblem(
                try await app.send(.delete, "/v1/admin/tenants/\(tenant.id)/keys/\(otherKeyID)", key: app.adminKey), 404, "not_found")
            #expect(try await app.send(.get, "/v1/jobs", key: other.key).status == 200)
        }
    }

    /// PostgreSQL text cannot hold NUL, and an integer column cannot hold more than 2^31-1: both are
    /// field errors, not 500s from the database.
    @Test func nulInANameOrLabelAndAnOversizedLimitAreFieldErrors() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            app.expectProblem(
                try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "a\u{0}b"]), 400, "invalid_request", fields: ["name"])
            app.expectProblem(
                try await app.send(.post, "/v1/admin/tenants/\(tenant.id)/keys", key: app.adminKey, json: ["label": "a\u{0}b"]), 400, "invalid_request", fields: ["label"])
            app.expectProblem(
                try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "big", "max_running_jobs": 9_000_000_000]), 400, "invalid_request", fields: ["max_running_jobs"])
        }
    }
}
