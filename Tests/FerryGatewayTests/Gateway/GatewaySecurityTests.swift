import Foundation
import Testing
import URLLoadingTestSupport

/// Tenant isolation on every route, authentication, and the SSRF guard ("Security").
@Suite("Gateway security", .timeLimit(.minutes(5)))
struct GatewaySecurityTests {
    @Test("a tenant gets 404 for another tenant's job on every route, and sees only its own in lists; the admin sees all")
    func isolation() async throws {
        try await GatewayFixture.with { fixture in
            let (_, alice) = try await fixture.tenant("alice")
            let (_, bob) = try await fixture.tenant("bob")
            let id = try await alice.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/1000")]])
            _ = try await alice.waitForState(id, ["succeeded"])
            let blob = try await alice.send("PUT", "/v1/blobs", body: Data("secret".utf8))
            let blobID = try #require(blob["id"] as? String)

            for (method, path) in [
                ("GET", "/v1/jobs/\(id)"), ("GET", "/v1/jobs/\(id)/content"), ("POST", "/v1/jobs/\(id)/cancel"),
                ("POST", "/v1/jobs/\(id)/pause"), ("POST", "/v1/jobs/\(id)/resume"), ("DELETE", "/v1/jobs/\(id)"),
            ] {
                let reply = try await bob.send(method, path)
                #expect(reply.status == 404, "\(method) \(path) → \(reply.status)")
            }
            let bobsList = try await bob.get("/v1/jobs")
            #expect((bobsList["jobs"] as? [Any])?.count == 0)
            // Bob cannot send Alice's blob or Alice's job content either.
            for body in [["blob": blobID], ["job": id]] {
                let reply = try await bob.post("/v1/jobs", json: ["kind": "upload", "request": ["url": fixture.origin.url("/echo"), "body": body]])
                #expect(reply.status == 404, "\(body) → \(reply.text)")
            }
            // Alice's own job is still there and unchanged.
            #expect(try await alice.get("/v1/jobs/\(id)")["state"] as? String == "succeeded")

            let all = try await fixture.admin.get("/v1/admin/jobs")
            #expect(((all["jobs"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == id })
            #expect(try await fixture.admin.get("/v1/admin/jobs/\(id)")["state"] as? String == "succeeded")
            // Tenant keys cannot reach admin routes, and the admin key is not a tenant.
            #expect(try await alice.get("/v1/admin/jobs").status == 403)
            #expect(try await alice.post("/v1/admin/tenants", json: ["name": "x"]).status == 403)
            #expect(try await fixture.admin.get("/v1/jobs").status == 403)
        }
    }

    @Test("missing, malformed, unknown and revoked keys get a 401 problem; health needs no key")
    func authentication() async throws {
        try await GatewayFixture.with { fixture in
            let anonymous = fixture.admin.with(key: nil)
            #expect(try await anonymous.get("/healthz").status == 200)
            #expect(try await anonymous.get("/readyz").status == 200)
            let none = try await anonymous.get("/v1/jobs")
            #expect(none.status == 401)
            #expect(none.code == "unauthenticated")
            #expect(none.headers["WWW-Authenticate"] != nil)
            #expect(try await fixture.admin.with(key: "ferry_nope").get("/v1/jobs").code == "invalid_api_key")
            #expect(try await anonymous.get("/v1/jobs", headers: ["Authorization": "Basic eDp5"]).status == 401)

            let created = try await fixture.admin.post("/v1/admin/tenants", json: ["name": "carol"])
            let tenant = try #require(created["id"] as? String)
            let key = try #require(created["api_key"] as? String)
            #expect(try await fixture.admin.get("/v1/admin/tenants").text.contains(key) == false, "a key is shown only once")
            let carol = fixture.admin.with(key: key)
            #expect(try await carol.get("/v1/jobs").status == 200)
            let keys = try await fixture.admin.get("/v1/admin/tenants/\(tenant)/keys")
            let keyID = try #require(((keys["keys"] as? [[String: Any]])?.first)?["id"] as? String)
            #expect(try await fixture.admin.delete("/v1/admin/tenants/\(tenant)/keys/\(keyID)").status == 204)
            #expect(try await carol.get("/v1/jobs").status == 401)
            let stored = try await PostgresProbe.value(
                "SELECT count(*) FROM api_keys WHERE key_hash = convert_to(\(key), 'UTF8') OR length(key_hash) <> 32", as: Int64.self,
                on: fixture.database.connectionConfiguration)
            #expect(stored == 0, "keys are stored hashed")
        }
    }

    @Test("URLs other than http, https, ftp, ftps are refused at submission; private addresses fail with destination_forbidden at connect time")
    func outboundGuard() async throws {
        try await GatewayFixture.with(options: .init(allowPrivateNetworks: false)) { fixture in
            let (_, client) = try await fixture.tenant()
            for url in ["file:///etc/passwd", "gopher://example.com/", "http://user:pw@example.com/", "/relative"] {
                let reply = try await client.post("/v1/jobs", json: ["kind": "download", "request": ["url": url]])
                #expect(reply.status == 400, "\(url)")
            }
            for url in [fixture.origin.url("/bytes/10"), "http://localhost:\(fixture.origin.port)/bytes/10", "http://169.254.169.254/latest/meta-data/"] {
                let id = try await client.submit(["kind": "download", "request": ["url": url], "retry": ["max_attempts": 1]])
                let job = try await client.waitForState(id, ["failed", "succeeded"])
                #expect((job["error"] as? [String: Any])?["code"] as? String == "destination_forbidden", "\(url): \(job)")
            }
            #expect(fixture.origin.requests.isEmpty, "nothing reached the loopback origin")
        }
    }
}
