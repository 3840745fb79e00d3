import Foundation
import Testing

/// `/v1/credentials`: a tenant's vault (AU-01: a credential, its protection space and persistence).
/// Secrets go in and never come out; bad input names the field, never the value; another tenant's
/// credential is a 404.
@Suite("Routes: credentials", .timeLimit(.minutes(2)))
struct CredentialRouteTests {
    static let password = "pa55-never-echoed"

    static func basic(host: String = "files.example", password: String = password) -> [String: Any] {
        ["protection_space": ["scheme": "https", "host": host, "realm": "files", "method": "basic"], "username": "ann", "password": password]
    }

    @Test func credentialIsCreatedListedReadAndDeletedWithoutItsSecret() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let created = try await app.send(.post, "/v1/credentials", key: tenant.key, json: Self.basic(host: "Files.Example"))
            #expect(created.status == 201)
            let id = try #require(created["id"] as? String)
            #expect(created.headers["location"] == "/v1/credentials/\(id)")
            let space = try #require(created["protection_space"] as? [String: Any])
            #expect(space["host"] as? String == "files.example", "hosts are compared without case")
            #expect(space["port"] as? Int == 443, "the scheme's default port")
            #expect(space["realm"] as? String == "files")
            #expect(space["method"] as? String == "basic")
            #expect(created["persistence"] as? String == "permanent")
            #expect(created["secret_kind"] as? String == "password")
            #expect(!created.text.contains(Self.password) && !created.text.contains("\"username\""))

            let bearer = try await app.create(
                "/v1/credentials", key: tenant.key,
                json: ["protection_space": ["scheme": "https", "host": "api.example", "method": "bearer"], "token": "tok-never-echoed"])
            let list = try await app.send(.get, "/v1/credentials", key: tenant.key)
            #expect(list.status == 200)
            #expect(Set(list.list("credentials").compactMap { $0["id"] as? String }) == [id, bearer])
            #expect(!list.text.contains(Self.password) && !list.text.contains("tok-never-echoed"))
            let page = try await app.send(.get, "/v1/credentials?limit=1", key: tenant.key)
            #expect(page.list("credentials").count == 1)
            let cursor = try #require(page["next_cursor"] as? String)
            #expect(try await app.send(.get, "/v1/credentials?limit=1&cursor=\(cursor)", key: tenant.key).list("credentials").count == 1)

            let read = try await app.send(.get, "/v1/credentials/\(id)", key: tenant.key)
            #expect(read.status == 200)
            #expect(read["id"] as? String == id)
            #expect(!read.text.contains(Self.password))

            #expect(try await app.send(.delete, "/v1/credentials/\(id)", key: tenant.key).status == 204)
            app.expectProblem(try await app.send(.get, "/v1/credentials/\(id)", key: tenant.key), 404, "not_found")
            app.expectProblem(try await app.send(.delete, "/v1/credentials/\(id)", key: tenant.key), 404, "not_found")
        }
    }

    @Test func anotherTenantsCredentialIsNotFoundAndTheAdminKeyIsRefused() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let id = try await app.create("/v1/credentials", key: alice.key, json: Self.basic())
            app.expectProblem(try await app.send(.get, "/v1/credentials/\(id)", key: bob.key), 404, "not_found")
            app.expectProblem(try await app.send(.delete, "/v1/credentials/\(id)", key: bob.key), 404, "not_found")
            #expect(try await app.send(.get, "/v1/credentials", key: bob.key).list("credentials").isEmpty)
            #expect(try await app.send(.get, "/v1/credentials/\(id)", key: alice.key).status == 200, "bob's delete did not touch it")
            app.expectProblem(try await app.send(.get, "/v1/credentials", key: app.adminKey), 403, "tenant_key_required")
            app.expectProblem(try await app.send(.post, "/v1/credentials", key: nil, json: Self.basic()), 401, "unauthenticated")
        }
    }

    @Test func badCredentialsNameTheFieldAndNeverTheSecret() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            app.expectProblem(
                try await app.send(.post, "/v1/credentials", key: tenant.key, json: ["username": "ann"]), 400, "invalid_request",
                fields: ["protection_space"])
            let bad = try await app.send(
                .post, "/v1/credentials", key: tenant.key,
                json: [
                    "protection_space": ["scheme": "gopher", "host": "a/b", "port": 0, "method": "kerberos"],
                    "persistence": "forever", "password": "p\nw-secret",
                ])
            app.expectProblem(
                bad, 400, "invalid_request",
                fields: ["protection_space.scheme", "protection_space.host", "protection_space.port", "protection_space.method", "persistence"])
            // A secret the method does not use is refused, not stored unused; a missing one is named.
            let mismatched = try await app.send(
                .post, "/v1/credentials", key: tenant.key,
                json: ["protection_space": ["scheme": "https", "host": "h.example", "method": "basic"], "username": "ann", "token": "t0k-secret"])
            app.expectProblem(mismatched, 400, "invalid_request", fields: ["token", "password"])
            #expect(!mismatched.text.contains("t0k-secret"))
            app.expectProblem(
                try await app.send(
                    .post, "/v1/credentials", key: tenant.key,
                    json: ["protection_space": ["scheme": "http", "host": "h.example", "method": "server_trust"], "pins": ["nope"]]),
                400, "invalid_request", fields: ["protection_space.scheme", "pins"])
            app.expectProblem(
                try await app.send(.post, "/v1/credentials", key: tenant.key, json: Self.basic().merging(["persistence": "session"]) { $1 }),
                400, "invalid_request", fields: ["session"])
            app.expectProblem(try await app.send(.get, "/v1/credentials?limit=0", key: tenant.key), 400, "invalid_request", fields: ["limit"])
            #expect(try await app.send(.get, "/v1/credentials", key: tenant.key).list("credentials").isEmpty)
        }
    }

    @Test func sessionCredentialNeedsALiveSessionOfTheTenant() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let session = try await app.create("/v1/sessions", key: alice.key, json: [:])
            let bound = try await app.send(.post, "/v1/credentials", key: alice.key, json: Self.basic().merging(["session": session]) { $1 })
            #expect(bound.status == 201)
            #expect(bound["persistence"] as? String == "session", "a session implies session persistence")
            #expect(bound["session"] as? String == session)
            app.expectProblem(
                try await app.send(.post, "/v1/credentials", key: bob.key, json: Self.basic().merging(["session": session]) { $1 }),
                404, "session_not_found")
            #expect(try await app.send(.delete, "/v1/sessions/\(session)", key: alice.key).status == 200)
            app.expectProblem(
                try await app.send(.post, "/v1/credentials", key: alice.key, json: Self.basic().merging(["session": session]) { $1 }),
                409, "session_invalidated")
        }
    }

    /// As for jobs, a cursor whose time PostgreSQL cannot add to the epoch is a field error.
    @Test func forgedCursorIsAFieldError() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            app.expectProblem(
                try await app.send(.get, "/v1/credentials?cursor=\(RouteFixture.forgedCursor(micros: Int64.max))", key: tenant.key), 400, "invalid_request", fields: ["cursor"])
        }
    }
}
