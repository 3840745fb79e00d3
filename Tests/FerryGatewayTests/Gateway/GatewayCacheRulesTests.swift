import Foundation
import Testing
import URLLoadingTestSupport

/// The tenant cache is shared by every job of a tenant and private to that tenant: it applies the
/// private-cache rules of RFC 9111, with the one rule of a shared cache that protects one job's
/// credentials from another's (§3.5). One job pair per rule where that differs from either kind of
/// cache, and the `stale` result of RFC 5861.
@Suite("Gateway cache: which RFC 9111 rules the tenant cache applies", .timeLimit(.minutes(6)))
struct GatewayCacheRulesTests {
    private func download(_ client: GatewayClient, _ url: String, authorization: String? = nil) async throws -> [String: Any] {
        var request: [String: Any] = ["url": url]
        if let authorization { request["headers"] = ["Authorization": authorization] }
        let id = try await client.submit(["kind": "download", "request": request])
        return try await client.waitForState(id, ["succeeded", "failed"])
    }

    @Test("RFC 9111 §3.5: a response to a job with Authorization is kept for the next job only when it says public, must-revalidate or s-maxage")
    func authorizationNeedsOriginConsent() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let personal = fixture.origin.scriptedCacheURL("personal", headers: ["Cache-Control: max-age=3600"])
            #expect(GatewayCacheTests.cache(try await download(client, personal, authorization: "Bearer alice")) == "miss")
            let other = try await download(client, personal, authorization: "Bearer bob")
            #expect(GatewayCacheTests.cache(other) == "miss", "bob's job must not get alice's response: \(other)")
            #expect(try await GatewayCacheTests.content(client, other) == "response 2")

            for (name, control) in [("public", "public, max-age=3600"), ("revalidate", "max-age=3600, must-revalidate"), ("shared", "s-maxage=3600, max-age=3600")] {
                let url = fixture.origin.scriptedCacheURL(name, headers: ["Cache-Control: \(control)"])
                #expect(GatewayCacheTests.cache(try await download(client, url, authorization: "Bearer alice")) == "miss")
                let second = try await download(client, url, authorization: "Bearer bob")
                #expect(GatewayCacheTests.cache(second) == "hit", "\(control): \(second)")
            }
        }
    }

    @Test("RFC 9111 §5.2.2.7, §5.2.2.10: private responses are stored (a shared cache would not), s-maxage is ignored (a shared cache would use it)")
    func privateCacheRules() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let personal = fixture.origin.scriptedCacheURL("private", headers: ["Cache-Control: private, max-age=3600"])
            #expect(GatewayCacheTests.cache(try await client.download(personal)) == "miss")
            #expect(GatewayCacheTests.cache(try await client.download(personal)) == "hit")

            let shared = fixture.origin.scriptedCacheURL("s-maxage", headers: ["Cache-Control: max-age=0, s-maxage=3600", "ETag: \"s\""])
            #expect(GatewayCacheTests.cache(try await client.download(shared)) == "miss")
            let second = try await client.download(shared)
            #expect(GatewayCacheTests.cache(second) == "revalidated", "max-age=0 counts, not s-maxage: \(second)")
        }
    }

    @Test("RFC 5861 §4: a job whose origin fails gets the stale-if-error entry, result.cache stale")
    func staleIfError() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let url = fixture.origin.scriptedCacheURL(
                "failing", headers: ["Cache-Control: max-age=1, stale-if-error=3600", "Age: 10"], ["later_status": "503"])
            #expect(GatewayCacheTests.cache(try await client.download(url)) == "miss")
            let stale = try await client.download(url)
            #expect(stale["state"] as? String == "succeeded", "\(stale)")
            #expect(GatewayCacheTests.cache(stale) == "stale", "\(stale)")
            #expect(try await GatewayCacheTests.content(client, stale) == "response 1")
        }
    }
}
