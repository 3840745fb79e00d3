import Foundation
import Testing
import URLLoadingTestSupport

/// Session cookie jars: a session's jobs send what earlier jobs were given (CK-02, CK-03),
/// kept in PostgreSQL for default sessions so any ferryd sees them (CK-09), in memory only for
/// ephemeral ones (SES-03), inspected and emptied through the API (CK-08).
@Suite("Gateway cookie jars", .timeLimit(.minutes(6)))
struct GatewayCookieJarTests {
    @Test("a login cookie one job is given is sent by the session's next job, on another ferryd too, and shown and cleared through the API (CK-02, CK-03, CK-08, CK-09)")
    func sharedAcrossJobsAndProcesses() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let session = try #require(try await client.post("/v1/sessions", json: [:])["id"] as? String)
            let login = try await client.download(fixture.origin.url("/cookies/login/set?sid=s3cret-token"), ["session": session])
            #expect(login["state"] as? String == "succeeded", "\(login)")
            let loginHeaders = (login["response"] as? [String: Any])?["headers"] as? [String: Any]
            #expect(loginHeaders?["set-cookie"] as? String == "<redacted>", "the job view redacts Set-Cookie")
            let page = try await client.download(fixture.origin.url("/cookies/app/require?name=sid"), ["session": session])
            #expect(page["state"] as? String == "succeeded", "the second job sent the cookie: \(page)")
            #expect(fixture.origin.requests.last { $0.path == "/cookies/app/require" }?.header("Cookie") == "sid=s3cret-token")

            let stored = await DatabaseQuery.text(
                "SELECT count(*) FROM session_cookies WHERE session_id = '\(session)' AND name = 'sid' AND value IS NULL AND value_sealed IS NOT NULL",
                fixture.database)
            #expect(stored == "1", "the jar is in PostgreSQL, its value sealed")

            // Another ferryd on the same database, the first one gone: only the database can tell it.
            let second = try await fixture.startAnother(name: "second")
            _ = try await fixture.server.terminate()
            let client2 = client.with(baseURL: second.baseURL)
            let elsewhere = try await client2.download(fixture.origin.url("/cookies/other/require?name=sid"), ["session": session])
            #expect(elsewhere["state"] as? String == "succeeded", "the other ferryd sent the session's cookie: \(elsewhere)")
            #expect(!second.log.contains("s3cret-token"), "cookie values are never logged")

            let listed = try await client2.get("/v1/sessions/\(session)/cookies")
            #expect(listed.status == 200)
            let cookies = try #require(listed["cookies"] as? [[String: Any]])
            #expect(cookies.count == 1)
            #expect(cookies.first?["name"] as? String == "sid")
            #expect(cookies.first?["value"] as? String == "s3cret-token")
            #expect(cookies.first?["path"] as? String == "/")
            #expect(cookies.first?["host_only"] as? Bool == true)
            #expect(cookies.first?["secure"] as? Bool == false)

            #expect(try await client2.delete("/v1/sessions/\(session)/cookies").status == 204)
            #expect(((try await client2.get("/v1/sessions/\(session)/cookies"))["cookies"] as? [Any])?.isEmpty == true)
            let loggedOut = try await client2.download(fixture.origin.url("/cookies/app/require?name=sid"), ["session": session])
            #expect(GatewayClient.errorCode(loggedOut) == "http_error", "an emptied jar sends nothing: \(loggedOut)")
            _ = try await second.terminate()
        }
    }

    @Test("a response that expires a cookie deletes it from the jar in the database (CK-03)")
    func expiryDeletes() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let session = try #require(try await client.post("/v1/sessions", json: ["kind": "background", "identifier": "jar"])["id"] as? String)
            _ = try await client.download(fixture.origin.url("/cookies/a/set?sid=1&theme=dark"), ["session": session])
            #expect(await DatabaseQuery.text("SELECT string_agg(name, ',' ORDER BY name) FROM session_cookies WHERE session_id = '\(session)'", fixture.database) == "sid,theme")
            _ = try await client.download(fixture.origin.url("/cookies/a/expire?name=sid"), ["session": session])
            #expect(await DatabaseQuery.text("SELECT string_agg(name, ',' ORDER BY name) FROM session_cookies WHERE session_id = '\(session)'", fixture.database) == "theme")
            let page = try await client.download(fixture.origin.url("/cookies/a/require?name=sid"), ["session": session])
            #expect(GatewayClient.errorCode(page) == "http_error")
        }
    }

    @Test("another session of the tenant, and jobs outside a session, do not get the cookie")
    func otherSessionsDoNotShare() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let first = try #require(try await client.post("/v1/sessions", json: [:])["id"] as? String)
            let second = try #require(try await client.post("/v1/sessions", json: [:])["id"] as? String)
            _ = try await client.download(fixture.origin.url("/cookies/login/set?sid=first-only"), ["session": first])
            let other = try await client.download(fixture.origin.url("/cookies/app/require?name=sid"), ["session": second])
            #expect(GatewayClient.errorCode(other) == "http_error", "\(other)")

            // Without a session: no jar at all, so even the job's own login is forgotten.
            _ = try await client.download(fixture.origin.url("/cookies/login/set?sid=nobody"))
            let sessionless = try await client.download(fixture.origin.url("/cookies/app/require?name=sid"))
            #expect(GatewayClient.errorCode(sessionless) == "http_error", "\(sessionless)")
            #expect(await DatabaseQuery.text("SELECT count(*) FROM session_cookies", fixture.database) == "1")
        }
    }

    @Test("a session's cookie_accept_policy never keeps its jar empty; a job with cookies: false neither sends nor stores cookies (issue 21: CK-02, CK-05, SES-22)")
    func acceptPolicyAndJobOptOut() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let refusing = try await client.post("/v1/sessions", json: ["configuration": ["cookie_accept_policy": "never"]])
            #expect(refusing.status == 201, "\(refusing.text)")
            #expect((refusing["configuration"] as? [String: Any])?["cookie_accept_policy"] as? String == "never")
            let closed = try #require(refusing["id"] as? String)
            let login = try await client.download(fixture.origin.url("/cookies/login/set?sid=refused"), ["session": closed])
            #expect(login["state"] as? String == "succeeded", "\(login)")
            let page = try await client.download(fixture.origin.url("/cookies/app/require?name=sid"), ["session": closed])
            #expect(GatewayClient.errorCode(page) == "http_error", "the jar accepted nothing: \(page)")
            #expect(await DatabaseQuery.text("SELECT count(*) FROM session_cookies WHERE session_id = '\(closed)'", fixture.database) == "0")

            // A session that keeps cookies, and jobs that opt out of its jar.
            let open = try #require(try await client.post("/v1/sessions", json: [:])["id"] as? String)
            _ = try await client.download(fixture.origin.url("/cookies/login/set?sid=kept"), ["session": open])
            let withoutCookies = try await client.download(fixture.origin.url("/cookies/app/require?name=sid"), ["session": open, "cookies": false])
            #expect(GatewayClient.errorCode(withoutCookies) == "http_error", "the job sent no Cookie: \(withoutCookies)")
            #expect(fixture.origin.requests.last { $0.path == "/cookies/app/require" }?.header("Cookie") == nil)
            _ = try await client.download(fixture.origin.url("/cookies/login/set?sid=replaced"), ["session": open, "cookies": false])
            let listed = try await client.get("/v1/sessions/\(open)/cookies")
            #expect((listed["cookies"] as? [[String: Any]])?.first?["value"] as? String == "kept", "an opted-out job stored nothing: \(listed.text)")
            let withCookies = try await client.download(fixture.origin.url("/cookies/app/require?name=sid"), ["session": open, "cookies": true])
            #expect(withCookies["state"] as? String == "succeeded", "\(withCookies)")

            let bad = try await client.post("/v1/sessions", json: ["configuration": ["cookie_accept_policy": "sometimes"]])
            #expect(bad.status == 400)
            #expect(((bad["errors"] as? [[String: Any]])?.first?["field"] as? String) == "configuration.cookie_accept_policy", "\(bad.text)")
        }
    }

    @Test("an ephemeral session keeps its cookies in memory only: its jobs share them, the database never sees them (SES-03)")
    func ephemeralKeepsNothing() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let session = try #require(try await client.post("/v1/sessions", json: ["kind": "ephemeral"])["id"] as? String)
            _ = try await client.download(fixture.origin.url("/cookies/login/set?sid=in-memory"), ["session": session])
            let page = try await client.download(fixture.origin.url("/cookies/app/require?name=sid"), ["session": session])
            #expect(page["state"] as? String == "succeeded", "\(page)")
            #expect(await DatabaseQuery.text("SELECT count(*) FROM session_cookies", fixture.database) == "0")
            let listed = try await client.get("/v1/sessions/\(session)/cookies")
            #expect(listed.status == 409)
            #expect(listed.code == "session_ephemeral")
        }
    }

    @Test("another tenant's session's cookies are not found, and stay (tenant isolation)")
    func tenantIsolation() async throws {
        try await GatewayFixture.with { fixture in
            let (_, alice) = try await fixture.tenant()
            let (_, bob) = try await fixture.tenant()
            let session = try #require(try await alice.post("/v1/sessions", json: [:])["id"] as? String)
            _ = try await alice.download(fixture.origin.url("/cookies/login/set?sid=alice"), ["session": session])
            let peek = try await bob.get("/v1/sessions/\(session)/cookies")
            #expect(peek.status == 404)
            #expect(!peek.text.contains("alice"))
            #expect(try await bob.delete("/v1/sessions/\(session)/cookies").status == 404)
            #expect(try await bob.get("/v1/sessions/not-a-uuid/cookies").status == 404)
            #expect(((try await alice.get("/v1/sessions/\(session)/cookies"))["cookies"] as? [Any])?.count == 1)
        }
    }
}
