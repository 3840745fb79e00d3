import FerryVault
import Foundation
import PostgresNIO
import Testing
import URLLoadingTestSupport

/// The credential vault: credentials stored per tenant (or gateway session), sealed at rest,
/// never shown, and used by jobs' default handling of 401 challenges (AU-01, AU-14, AU-19).
@Suite("Gateway credential vault", .timeLimit(.minutes(5)))
struct GatewayVaultTests {
    /// The origin's protection space for `method`, as `POST /v1/credentials` takes it.
    static func space(_ fixture: GatewayFixture, _ method: String, realm: String? = nil) -> [String: Any] {
        let origin = URLComponents(string: fixture.origin.baseURL)!
        var space: [String: Any] = ["scheme": "http", "host": origin.host!, "port": origin.port!, "method": method]
        if let realm { space["realm"] = realm }
        return space
    }

    static func passwordCredential(
        _ fixture: GatewayFixture, _ method: String, password: String = AuthRoutes.password, realm: String? = nil, session: String? = nil
    ) -> [String: Any] {
        var body: [String: Any] = ["protection_space": space(fixture, method, realm: realm), "username": AuthRoutes.user, "password": password]
        if let session { body["session"] = session }
        return body
    }

    /// Stores a credential; returns its id.
    static func store(_ client: GatewayClient, _ body: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let reply = try await client.post("/v1/credentials", json: body, sourceLocation: sourceLocation)
        #expect(reply.status == 201, "\(reply.text)", sourceLocation: sourceLocation)
        return try #require(reply["id"] as? String, sourceLocation: sourceLocation)
    }

    static func download(_ fixture: GatewayFixture, _ path: String, session: String? = nil) -> [String: Any] {
        var job: [String: Any] = ["kind": "download", "request": ["url": fixture.origin.url(path)], "retry": ["max_attempts": 1]]
        if let session { job["session"] = session }
        return job
    }

    /// A gateway and an https origin on loopback presenting the certificates of a fresh `TestCertificates`
    /// (the test CA's server certificate, unless `tls` says otherwise), which the test gets too.
    static func withSecureOrigin(
        _ tls: (TestCertificates) -> OriginServer.TLSOptions = { OriginServer.TLSOptions(certificates: $0) },
        _ body: (GatewayFixture, OriginServer, TestCertificates) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        try await GatewayFixture.with { fixture in
            try await OriginServer.withRunning(tls: tls(certificates)) { secure in try await body(fixture, secure, certificates) }
        }
    }

    /// A download job of `url`, tried once.
    static func download(url: String) -> [String: Any] {
        ["kind": "download", "request": ["url": url], "retry": ["max_attempts": 1]]
    }

    static func finished(_ client: GatewayClient, _ id: String) async throws -> [String: Any] {
        try await client.waitForState(id, ["succeeded", "failed", "cancelled"])
    }

    static func error(_ job: [String: Any]) -> (code: String?, message: String) {
        let error = job["error"] as? [String: Any]
        return (error?["code"] as? String, error?["message"] as? String ?? "")
    }

    @Test("a job behind Basic or Digest authenticates with the tenant's stored credential and none of its own (AU-01, AU-14)")
    func basicAndDigest() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let created = try await client.post("/v1/credentials", json: Self.passwordCredential(fixture, "basic"))
            #expect(created.status == 201, "\(created.text)")
            #expect(created["secret_kind"] as? String == "password")
            #expect(created["persistence"] as? String == "permanent")
            #expect(!created.text.contains(AuthRoutes.password) && !created.text.contains(AuthRoutes.user), "no secret in the reply: \(created.text)")
            _ = try await Self.store(client, Self.passwordCredential(fixture, "digest", realm: AuthRoutes.digestRealm))

            let basic = try await client.submit(Self.download(fixture, "/protected/basic?schemes=basic"))
            let basicJob = try await Self.finished(client, basic)
            #expect(basicJob["state"] as? String == "succeeded", "\(basicJob)")
            let digest = try await client.submit(Self.download(fixture, "/protected/digest?schemes=digest"))
            let digestJob = try await Self.finished(client, digest)
            #expect(digestJob["state"] as? String == "succeeded", "\(digestJob)")

            let seen = fixture.origin.requests.filter { $0.path.hasPrefix("/protected/") }
            #expect(seen.contains { $0.path == "/protected/basic" && ($0.header("Authorization") ?? "").hasPrefix("Basic ") })
            #expect(seen.contains { $0.path == "/protected/digest" && ($0.header("Authorization") ?? "").hasPrefix("Digest ") })

            // Secrets never come back: not in the list, one credential, or the jobs' views.
            let list = try await client.get("/v1/credentials")
            #expect((list["credentials"] as? [Any])?.count == 2)
            let one = try await client.get("/v1/credentials/\(try #require(created["id"] as? String))")
            let views = [list.text, one.text, try await client.get("/v1/jobs/\(basic)").text, try await client.get("/v1/jobs/\(digest)").text]
            for view in views {
                #expect(!view.contains(AuthRoutes.password), "\(view)")
                #expect(!view.contains(Data("\(AuthRoutes.user):\(AuthRoutes.password)".utf8).base64EncodedString()), "\(view)")
            }
            #expect(!fixture.server.log.contains(AuthRoutes.password), "the password is never logged")
        }
    }

    @Test("a bearer token from the vault answers a Bearer challenge (AU-14)")
    func bearer() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            _ = try await Self.store(client, ["protection_space": Self.space(fixture, "bearer"), "token": AuthRoutes.token])
            let id = try await client.submit(Self.download(fixture, "/protected/token?schemes=bearer"))
            let job = try await Self.finished(client, id)
            #expect(job["state"] as? String == "succeeded", "\(job)")
            #expect(fixture.origin.requests.contains { $0.header("Authorization") == "Bearer \(AuthRoutes.token)" })
        }
    }

    @Test("a wrong stored credential is tried once, then the job fails with authentication_failed; it never loops (AU-19, AU-20)")
    func wrongCredential() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let credential = try await Self.store(client, Self.passwordCredential(fixture, "basic", password: "not-the-password"))
            let id = try await client.submit(Self.download(fixture, "/protected/wrong?schemes=basic"))
            let job = try await Self.finished(client, id)
            #expect(job["state"] as? String == "failed")
            let (code, message) = Self.error(job)
            #expect(code == "authentication_failed", "\(job)")
            #expect(message.contains("after 1 attempt") && message.contains(credential), "\(message)")
            #expect(!message.contains("not-the-password"))
            let tries = fixture.origin.requests.filter { $0.path == "/protected/wrong" }
            #expect(tries.count == 2, "one request without, one with the stored credential: \(tries.count)")
        }
    }

    @Test("another tenant's credential is neither used, seen nor deletable: 404")
    func tenantIsolation() async throws {
        try await GatewayFixture.with { fixture in
            let (_, alice) = try await fixture.tenant()
            let (_, bob) = try await fixture.tenant()
            let credential = try await Self.store(alice, Self.passwordCredential(fixture, "basic"))

            let id = try await bob.submit(Self.download(fixture, "/protected/bob?schemes=basic"))
            let job = try await Self.finished(bob, id)
            #expect(job["state"] as? String == "failed")
            #expect(Self.error(job).code == "http_error", "bob's job got no credential: \(job)")
            #expect(!fixture.origin.requests.contains { $0.path == "/protected/bob" && $0.header("Authorization") != nil })

            #expect(try await bob.get("/v1/credentials/\(credential)").status == 404)
            #expect(try await bob.delete("/v1/credentials/\(credential)").status == 404)
            #expect((try await bob.get("/v1/credentials"))["credentials"] as? [Any] != nil)
            #expect(((try await bob.get("/v1/credentials"))["credentials"] as? [Any])?.isEmpty == true)
            #expect(try await alice.get("/v1/credentials/\(credential)").status == 200, "still there")
            #expect(try await alice.delete("/v1/credentials/\(credential)").status == 204)
            #expect(try await alice.get("/v1/credentials/\(credential)").status == 404)
            #expect(try await fixture.admin.get("/v1/credentials").status == 403, "the admin key is not a tenant")
        }
    }

    @Test("the database holds no secret bytes, and a row copied to another tenant does not open: the job says so")
    func sealedAtRest() async throws {
        try await GatewayFixture.with { fixture in
            let (_, alice) = try await fixture.tenant()
            let (bobID, bob) = try await fixture.tenant()
            let password = "vault-test-password-\(UUID().uuidString)"
            let credential = try await Self.store(alice, Self.passwordCredential(fixture, "basic", password: password))

            // Every column of every row, and the sealed bytes themselves, without the password's bytes.
            let everything = await DatabaseQuery.text("SELECT string_agg(row_to_json(c)::text, '') FROM credentials c", fixture.database)
            #expect(everything?.isEmpty == false)
            #expect(everything?.contains(password) == false)
            #expect(everything?.contains(AuthRoutes.user) == false, "the user name is sealed too")
            #expect(await DatabaseQuery.bool(
                "SELECT position(convert_to('\(password)', 'UTF8') IN sealed) = 0 AND position(convert_to('\(AuthRoutes.user)', 'UTF8') IN sealed) = 0 FROM credentials WHERE id = '\(credential)'",
                fixture.database))

            // The row, ciphertext and all, copied into bob's tenant under a new id.
            try await fixture.database.withConnection { connection in
                try await PostgresProbe.execute(PostgresQuery(unsafeSQL: """
                    INSERT INTO credentials (tenant_id, scheme, host, port, realm, method, persistence, secret_kind, key_id, sealed)
                    SELECT '\(bobID)', scheme, host, port, realm, method, persistence, secret_kind, key_id, sealed
                    FROM credentials WHERE id = '\(credential)'
                    """), on: connection)
            }
            let copied = try #require((try await bob.get("/v1/credentials"))["credentials"] as? [[String: Any]]).first
            let copiedID = try #require(copied?["id"] as? String)
            let id = try await bob.submit(Self.download(fixture, "/protected/copied?schemes=basic"))
            let job = try await Self.finished(bob, id)
            #expect(job["state"] as? String == "failed")
            let (code, message) = Self.error(job)
            #expect(code == "credential_unreadable", "\(job)")
            #expect(message.contains(copiedID), "\(message)")
            #expect(!fixture.origin.requests.contains { $0.path == "/protected/copied" && $0.header("Authorization") != nil })
            #expect(fixture.server.isRunning)
        }
    }

    @Test("a session's credential serves only that session's jobs; it needs a live session of the same tenant")
    func sessionPersistence() async throws {
        try await GatewayFixture.with { fixture in
            let (_, alice) = try await fixture.tenant()
            let (_, bob) = try await fixture.tenant()
            let mine = try #require(try await alice.post("/v1/sessions", json: [:])["id"] as? String)
            let other = try #require(try await alice.post("/v1/sessions", json: ["kind": "ephemeral"])["id"] as? String)
            let created = try await alice.post("/v1/credentials", json: Self.passwordCredential(fixture, "basic", session: mine))
            #expect(created.status == 201, "\(created.text)")
            #expect(created["persistence"] as? String == "session")
            #expect(created["session"] as? String == mine)

            let inSession = try await alice.submit(Self.download(fixture, "/protected/in?schemes=basic", session: mine))
            #expect(try await Self.finished(alice, inSession)["state"] as? String == "succeeded")
            let elsewhere = try await alice.submit(Self.download(fixture, "/protected/elsewhere?schemes=basic", session: other))
            let outside = try await alice.submit(Self.download(fixture, "/protected/outside?schemes=basic"))
            for id in [elsewhere, outside] {
                let job = try await Self.finished(alice, id)
                #expect(Self.error(job).code == "http_error", "no credential for this job: \(job)")
            }

            let borrowed = try await bob.post("/v1/credentials", json: Self.passwordCredential(fixture, "basic", session: mine))
            #expect(borrowed.status == 404)
            #expect(borrowed.code == "session_not_found")
            #expect(try await alice.delete("/v1/sessions/\(other)").status == 200)
            let late = try await alice.post("/v1/credentials", json: Self.passwordCredential(fixture, "basic", session: other))
            #expect(late.status == 409)
            #expect(late.code == "session_invalidated")
        }
    }

    @Test("a server_trust credential's certificate lets jobs reach that self-signed server, from the next job after it is stored until it is deleted (TLS-03)")
    func serverTrust() async throws {
        try await Self.withSecureOrigin({ .init(certificates: $0, selfSigned: true) }) { fixture, secure, certificates in
            let (_, client) = try await fixture.tenant()
            let (_, other) = try await fixture.tenant()
            let job = Self.download(url: "https://127.0.0.1:\(secure.port)/bytes/64")
            let refused = try await Self.finished(client, try await client.submit(job))
            #expect(refused["state"] as? String == "failed", "a self-signed server is not trusted by default: \(refused)")

            let selfSigned = try String(contentsOfFile: certificates.selfSignedServerCertificatePath, encoding: .utf8)
            let space: [String: Any] = ["scheme": "https", "host": "127.0.0.1", "port": secure.port, "method": "server_trust"]
            let created = try await client.post("/v1/credentials", json: ["protection_space": space, "ca_certificate": selfSigned])
            #expect(created.status == 201, "\(created.text)")
            #expect(created["secret_kind"] as? String == "trust")
            let trusted = try await Self.finished(client, try await client.submit(job))
            #expect(trusted["state"] as? String == "succeeded", "\(trusted)")
            let stranger = try await Self.finished(other, try await other.submit(job))
            #expect(stranger["state"] as? String == "failed", "another tenant does not trust it: \(stranger)")

            // Deleted, it no longer counts from the next job on, though this ferryd applied it before.
            // (Past the tenant's HTTP cache, which would answer without connecting.)
            let id = try #require(created["id"] as? String)
            #expect(try await client.delete("/v1/credentials/\(id)").status == 204)
            var uncached = job
            uncached["cache_policy"] = "reload_ignoring_cache"
            let forgotten = try await Self.finished(client, try await client.submit(uncached))
            #expect(forgotten["state"] as? String == "failed", "a deleted credential is not applied: \(forgotten)")
        }
    }

    @Test("a stored client certificate is presented to its host only, for its own tenant (TLS-11, AU-17)")
    func clientCertificate() async throws {
        try await Self.withSecureOrigin({ .init(certificates: $0, requireClientCertificate: true) }) { fixture, secure, certificates in
            let (_, client) = try await fixture.tenant()
            let (_, other) = try await fixture.tenant()
            let space: [String: Any] = ["scheme": "https", "host": "127.0.0.1", "port": secure.port]
            // Both tenants trust the server's own certificate; only one has the client certificate.
            for tenant in [client, other] {
                _ = try await Self.store(tenant, [
                    "protection_space": space.merging(["method": "server_trust"]) { $1 },
                    "ca_certificate": certificates.serverCertificatePEM])
            }
            let job = Self.download(url: "https://127.0.0.1:\(secure.port)/bytes/64")
            let without = try await Self.finished(client, try await client.submit(job))
            #expect(without["state"] as? String == "failed", "the server refuses a client without a certificate: \(without)")

            let identity = certificates.clientCertificatePEM + certificates.clientKeyPEM
            let stored = try await client.post("/v1/credentials", json: [
                "protection_space": space.merging(["method": "client_certificate"]) { $1 }, "identity": identity])
            #expect(stored.status == 201, "\(stored.text)")
            #expect(!stored.text.contains("PRIVATE KEY"))
            let with = try await Self.finished(client, try await client.submit(job))
            #expect(with["state"] as? String == "succeeded", "\(with)")
            #expect((with["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(64))

            let stranger = try await Self.finished(other, try await other.submit(job))
            #expect(stranger["state"] as? String == "failed", "another tenant's jobs present no certificate: \(stranger)")
        }
    }

    @Test("a server_trust credential's pins hold its server to those public keys: a wrong pin fails the job, naming the mismatch; the right one passes (TLS-08, TLS-09)")
    func serverTrustPins() async throws {
        try await Self.withSecureOrigin { fixture, secure, certificates in
            let (_, client) = try await fixture.tenant()
            let job = Self.download(url: "https://127.0.0.1:\(secure.port)/bytes/64")
            let space: [String: Any] = ["scheme": "https", "host": "127.0.0.1", "port": secure.port, "method": "server_trust"]
            // Pins computed by openssl, independently of Ferry: the server's key, and another key.
            let pin = try await certificates.publicKeyPin(ofCertificateAt: certificates.serverCertificatePath)
            let wrongPin = try await certificates.publicKeyPin(ofCertificateAt: certificates.clientCertificatePath)

            // The CA makes the chain trusted; the pin alone decides.
            let wrong = try await Self.store(client, ["protection_space": space, "ca_certificate": certificates.caCertificatePEM, "pins": [wrongPin]])
            let mismatched = try await Self.finished(client, try await client.submit(job))
            #expect(mismatched["state"] as? String == "failed", "\(mismatched)")
            let (code, message) = Self.error(mismatched)
            #expect(code == "server_certificate_untrusted", "\(mismatched)")
            #expect(message.contains("matches none of the pinned public keys"), "\(message)")
            #expect(!message.contains(wrongPin) && !message.contains("BEGIN CERTIFICATE"), "\(message)")

            #expect(try await client.delete("/v1/credentials/\(wrong)").status == 204)
            _ = try await Self.store(client, ["protection_space": space, "ca_certificate": certificates.caCertificatePEM, "pins": [pin]])
            let matched = try await Self.finished(client, try await client.submit(job))
            #expect(matched["state"] as? String == "succeeded", "\(matched)")
            #expect((matched["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(64))
        }
    }

    @Test("a server_trust credential's private CA makes its host and port trusted for its own tenant only (TLS-02)")
    func serverTrustPrivateCA() async throws {
        // The server's certificate is issued by the test CA, which no system store knows.
        try await Self.withSecureOrigin { fixture, secure, certificates in
            let (_, client) = try await fixture.tenant()
            let (_, other) = try await fixture.tenant()
            let download = { (host: String) in Self.download(url: "https://\(host):\(secure.port)/bytes/64") }
            let untrusted = try await Self.finished(client, try await client.submit(download("127.0.0.1")))
            #expect(untrusted["state"] as? String == "failed", "\(untrusted)")
            #expect(Self.error(untrusted).code == "server_certificate_untrusted", "\(untrusted)")

            let space: [String: Any] = ["scheme": "https", "host": "127.0.0.1", "port": secure.port, "method": "server_trust"]
            _ = try await Self.store(client, ["protection_space": space, "ca_certificate": certificates.caCertificatePEM])
            let trusted = try await Self.finished(client, try await client.submit(download("127.0.0.1")))
            #expect(trusted["state"] as? String == "succeeded", "\(trusted)")
            #expect((trusted["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(64))

            // The same server by another name is another host: the CA is not trusted there.
            let otherHost = try await Self.finished(client, try await client.submit(download("localhost")))
            #expect(Self.error(otherHost).code == "server_certificate_untrusted", "\(otherHost)")
            let stranger = try await Self.finished(other, try await other.submit(download("127.0.0.1")))
            #expect(stranger["state"] as? String == "failed", "another tenant does not trust the CA: \(stranger)")
            #expect(Self.error(stranger).code == "server_certificate_untrusted", "\(stranger)")
        }
    }

    @Test("bad credentials get field errors that never repeat the secret")
    func validation() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let secret = "leak-me-not-\(UUID().uuidString)"
            let cases: [([String: Any], Set<String>)] = [
                (["protection_space": Self.space(fixture, "kerberos"), "password": secret], ["protection_space.method"]),
                (["protection_space": Self.space(fixture, "basic"), "password": secret], ["username"]),
                (["protection_space": Self.space(fixture, "basic"), "username": "u", "password": "p", "token": secret], ["token"]),
                (["protection_space": Self.space(fixture, "bearer"), "token": secret + " x"], ["token"]),
                (["protection_space": Self.space(fixture, "server_trust"), "pins": [secret]], ["protection_space.scheme", "pins"]),
                (["protection_space": ["scheme": "gopher", "host": "a/b", "port": 0, "method": "basic"], "username": "u", "password": secret],
                 ["protection_space.scheme", "protection_space.host", "protection_space.port"]),
                (["protection_space": Self.space(fixture, "digest"), "username": "u", "password": secret, "persistence": "session"], ["session"]),
                (["protection_space": Self.space(fixture, "client_certificate"), "identity": secret], ["protection_space.scheme", "identity"]),
            ]
            for (body, fields) in cases {
                let reply = try await client.post("/v1/credentials", json: body)
                #expect(reply.status == 400, "\(body)")
                let named = Set(((reply["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
                #expect(named == fields, "\(reply.text)")
                #expect(!reply.text.contains(secret), "\(reply.text)")
            }
            #expect(((try await client.get("/v1/credentials"))["credentials"] as? [Any])?.isEmpty == true)
            #expect(try await client.get("/v1/credentials?limit=0").status == 400)
            #expect(try await client.get("/v1/credentials/not-a-uuid").status == 404)
        }
    }

    @Test("credentials page like jobs, newest first")
    func paging() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            var ids: [String] = []
            for index in 0..<3 {
                ids.append(try await Self.store(client, Self.passwordCredential(fixture, "basic", password: "p\(index)")))
            }
            let first = try await client.get("/v1/credentials?limit=2")
            let firstIDs = ((first["credentials"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            #expect(firstIDs == [ids[2], ids[1]])
            let cursor = try #require(first["next_cursor"] as? String)
            let second = try await client.get("/v1/credentials?limit=2&cursor=\(cursor)")
            #expect(((second["credentials"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } == [ids[0]])
            #expect(second["next_cursor"] == nil)
        }
    }

    @Test("rotate-vault-key reseals every credential under the new key; a ferryd with only the new key still uses them")
    func rotation() async throws {
        let oldKey = VaultKey.generateText()
        let newKey = VaultKey.generateText()
        let oldID = try VaultKey(base64: oldKey).id
        let newID = try VaultKey(base64: newKey).id
        try await GatewayFixture.with(options: .init(vaultKeys: [oldKey])) { fixture in
            let (_, client) = try await fixture.tenant()
            let credential = try await Self.store(client, Self.passwordCredential(fixture, "basic"))
            #expect(try await client.get("/v1/credentials/\(credential)")["key_id"] as? String == oldID)

            let run = try await Self.ferryd(
                ["admin", "rotate-vault-key"], databaseURL: fixture.database.url, dataDirectory: fixture.dataDirectory, vaultKeys: [newKey, oldKey])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("resealed 1 credential(s) under vault key \(newID)"), "\(run.standardOutput)")
            let again = try await Self.ferryd(
                ["admin", "rotate-vault-key"], databaseURL: fixture.database.url, dataDirectory: fixture.dataDirectory, vaultKeys: [newKey, oldKey])
            #expect(again.standardOutput.contains("resealed 0 credential(s) under vault key \(newID); 1 already were"), "\(again.standardOutput)")

            _ = try await fixture.server.terminate()
            let newServer = try await fixture.startAnother(name: "ferryd-new-key", options: .init(vaultKeys: [newKey]))
            do {
                let renewed = client.with(baseURL: newServer.baseURL)
                let view = try await renewed.get("/v1/credentials/\(credential)")
                #expect(view["key_id"] as? String == newID)
                #expect(view["resealed_at"] as? String != nil)
                let id = try await renewed.submit(Self.download(fixture, "/protected/rotated?schemes=basic"))
                let job = try await Self.finished(renewed, id)
                #expect(job["state"] as? String == "succeeded", "\(job)")
                _ = try await newServer.terminate()
            } catch {
                print("ferryd log:\n\(newServer.log)")
                _ = try? await newServer.terminate()
                throw error
            }

            // Without the key a row was sealed with, rotation reports the row and fails.
            let stranger = try await Self.ferryd(
                ["admin", "rotate-vault-key"], databaseURL: fixture.database.url, dataDirectory: fixture.dataDirectory,
                vaultKeys: [VaultKey.generateText()])
            #expect(stranger.status == 1)
            #expect(stranger.standardOutput.contains(credential), "\(stranger.standardOutput)")
        }
    }

    /// Runs a ferryd command (not `serve`) against the test's database, as an operator would.
    static func ferryd(_ arguments: [String], databaseURL: String, dataDirectory: String, vaultKeys: [String]) async throws -> FerrydCommand.Run {
        try await FerrydCommand.run(
            arguments,
            environment: ["FERRY_DATABASE_URL": databaseURL, "FERRY_DATA_DIR": dataDirectory, "FERRY_VAULT_KEY": vaultKeys.joined(separator: ",")],
            in: dataDirectory)
    }
}
