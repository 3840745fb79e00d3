import Foundation
import Testing
import URLLoadingTestSupport

/// Each tenant's HTTP cache: hits and revalidations counted at the origin (CA-09), the four
/// cache policies (CA-05..CA-08), the per-tenant size limit (CA-18), tenants never sharing entries,
/// ephemeral sessions caching in memory only (CA-24, SES-03).
@Suite("Gateway cache", .timeLimit(.minutes(6)))
struct GatewayCacheTests {
    static func cache(_ job: [String: Any]) -> String? { (job["result"] as? [String: Any])?["cache"] as? String }

    static func content(_ client: GatewayClient, _ job: [String: Any]) async throws -> String {
        try await client.get("/v1/jobs/\(job["id"] as? String ?? "")/content").text
    }

    static func originRequests(_ fixture: GatewayFixture, _ path: String) -> [RecordedRequest] {
        fixture.origin.requests.filter { $0.path == path }
    }

    @Test("use_protocol: a fresh entry is a hit without a request, a no-cache one is revalidated with a 304 (CA-09)")
    func hitsAndRevalidations() async throws {
        try await GatewayFixture.with { fixture in
            let (tenant, client) = try await fixture.tenant()
            let first = try await client.download(fixture.origin.url("/cache/max-age/3600"))
            #expect(Self.cache(first) == "miss", "\(first)")
            let second = try await client.download(fixture.origin.url("/cache/max-age/3600"))
            #expect(Self.cache(second) == "hit", "\(second)")
            #expect(try await Self.content(client, second) == "response 1", "the stored body")
            #expect(Self.originRequests(fixture, "/cache/max-age/3600").count == 1, "the hit asked nothing of the origin")

            _ = try await client.download(fixture.origin.url("/cache/no-cache"))
            let revalidated = try await client.download(fixture.origin.url("/cache/no-cache"))
            #expect(Self.cache(revalidated) == "revalidated", "\(revalidated)")
            #expect(try await Self.content(client, revalidated) == "response 1")
            let asked = Self.originRequests(fixture, "/cache/no-cache")
            #expect(asked.count == 2)
            #expect(asked.last?.header("If-None-Match") == "\"e1\"")

            // The index is in PostgreSQL, the bodies under <data>/cache/<tenant>/.
            #expect(await DatabaseQuery.text("SELECT count(*) FROM cache_entries WHERE tenant_id = '\(tenant)'", fixture.database) == "2")
            let bodies = (try? FileManager.default.contentsOfDirectory(atPath: "\(fixture.dataDirectory)/cache/\(tenant)")) ?? []
            #expect(bodies.filter { $0.hasSuffix(".body") }.count == 2, "\(bodies)")
        }
    }

    @Test("a download's body is linked into the cache, not copied or held in memory; deleting the job leaves the cached body whole (CA-03)")
    func cachedBodyOutlivesItsJob() async throws {
        try await GatewayFixture.with { fixture in
            let (tenant, client) = try await fixture.tenant()
            // /bytes/ sends an old Last-Modified: fresh for a long time by the heuristic.
            let url = fixture.origin.url("/bytes/300000")
            let first = try await client.download(url)
            #expect(Self.cache(first) == "miss", "\(first)")
            let firstID = try #require(first["id"] as? String)
            let jobFile = try #require(GatewayJobTests.contentFile(of: firstID, in: fixture.dataDirectory))
            let cacheDirectory = "\(fixture.dataDirectory)/cache/\(tenant)"
            let bodies = try FileManager.default.contentsOfDirectory(atPath: cacheDirectory).filter { $0.hasSuffix(".body") }
            #expect(bodies.count == 1)
            #expect(try bodies.first.map { try SpareFilesTests.inode("\(cacheDirectory)/\($0)") } == SpareFilesTests.inode(jobFile),
                    "the cache's body is the job's file, linked")

            // Deleting the job must not empty the file the cache still names.
            #expect(try await client.delete("/v1/jobs/\(firstID)").status == 204)
            let second = try await client.download(url)
            #expect(Self.cache(second) == "hit", "\(second)")
            let content = try await client.get("/v1/jobs/\(second["id"] as? String ?? "")/content")
            #expect(Array(content.body) == OriginServer.patternBytes(count: 300_000))
            #expect(Self.originRequests(fixture, "/bytes/300000").count == 1)
        }
    }

    @Test("each cache policy, on the job or as its session's default; return_cache_dont_load without an entry fails with not_in_cache (CA-05..CA-08)")
    func policies() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let url = fixture.origin.url("/cache/max-age/0")
            #expect(Self.cache(try await client.download(url)) == "miss")

            let reload = try await client.download(url, ["cache_policy": "reload_ignoring_cache"])
            #expect(Self.cache(reload) == "miss")
            #expect(try await Self.content(client, reload) == "response 2", "reload went to the origin (CA-06)")

            // max-age=0: stale at once, yet served whatever its age (CA-07).
            let elseLoad = try await client.download(url, ["cache_policy": "return_cache_else_load"])
            #expect(Self.cache(elseLoad) == "hit", "\(elseLoad)")
            #expect(try await Self.content(client, elseLoad) == "response 2")
            let offline = try await client.download(url, ["cache_policy": "return_cache_dont_load"])
            #expect(Self.cache(offline) == "hit", "\(offline)")
            #expect(Self.originRequests(fixture, "/cache/max-age/0").count == 2)

            let missing = try await client.download(fixture.origin.url("/cache/max-age/60?never=stored"), ["cache_policy": "return_cache_dont_load"])
            #expect(missing["state"] as? String == "failed")
            #expect(GatewayClient.errorCode(missing) == "not_in_cache", "\(missing)")
            #expect(missing["attempt"] as? Int == 1, "not retried: waiting will not fill the cache")
            #expect(Self.originRequests(fixture, "/cache/max-age/60").isEmpty, "nothing was sent (CA-08)")

            let else2 = try await client.download(fixture.origin.url("/cache/max-age/60?else=load"), ["cache_policy": "return_cache_else_load"])
            #expect(Self.cache(else2) == "miss", "nothing stored: loaded from the origin")

            let offlineSession = try await client.post("/v1/sessions", json: ["configuration": ["cache_policy": "return_cache_dont_load"]])
            #expect(offlineSession.status == 201)
            #expect((offlineSession["configuration"] as? [String: Any])?["cache_policy"] as? String == "return_cache_dont_load")
            let session = try #require(offlineSession["id"] as? String)
            let inherited = try await client.download(fixture.origin.url("/cache/max-age/60?session=default"), ["session": session])
            #expect(GatewayClient.errorCode(inherited) == "not_in_cache", "\(inherited)")
            let overridden = try await client.download(fixture.origin.url("/cache/max-age/60?session=default"), ["session": session, "cache_policy": "use_protocol"])
            #expect(Self.cache(overridden) == "miss", "the job's own policy wins: \(overridden)")

            let bad = try await client.post("/v1/jobs", json: ["kind": "download", "request": ["url": url], "cache_policy": "sometimes"])
            #expect(bad.status == 400)
            #expect(((bad["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String } == ["cache_policy"])
            let badSession = try await client.post("/v1/sessions", json: ["configuration": ["cache_policy": "always"]])
            #expect(badSession.status == 400)
            #expect(((badSession["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String } == ["configuration.cache_policy"])
        }
    }

    @Test("tenants never share an entry: tenant B misses what tenant A cached")
    func tenantsDoNotShare() async throws {
        try await GatewayFixture.with { fixture in
            let (_, alice) = try await fixture.tenant()
            let (_, bob) = try await fixture.tenant()
            let url = fixture.origin.url("/cache/max-age/3600?shared=maybe")
            #expect(Self.cache(try await alice.download(url)) == "miss")
            #expect(Self.cache(try await alice.download(url)) == "hit")
            let offline = try await bob.download(url, ["cache_policy": "return_cache_dont_load"])
            #expect(GatewayClient.errorCode(offline) == "not_in_cache", "\(offline)")
            let bobs = try await bob.download(url)
            #expect(Self.cache(bobs) == "miss")
            #expect(try await Self.content(bob, bobs) == "response 2", "bob's own response, not alice's")
            #expect(Self.originRequests(fixture, "/cache/max-age/3600").count == 2)
        }
    }

    @Test("the per-tenant size limit evicts the least recently used entries, and only the tenant's own (CA-18)")
    func sizeLimitEvicts() async throws {
        let limit = 8000
        try await GatewayFixture.with(options: .init(cacheMaxBytesPerTenant: limit)) { fixture in
            let (alice, aliceClient) = try await fixture.tenant()
            let (bob, bobClient) = try await fixture.tenant()
            let bobsURL = fixture.origin.url("/cache/max-age/3600?owner=bob")
            #expect(Self.cache(try await bobClient.download(bobsURL)) == "miss")
            let oldest = fixture.origin.url("/cache/max-age/3600?n=0")
            #expect(Self.cache(try await aliceClient.download(oldest)) == "miss")
            let cost = Int(await DatabaseQuery.text("SELECT max(cost) FROM cache_entries WHERE tenant_id = '\(alice)'", fixture.database) ?? "") ?? 0
            #expect(cost > 0 && cost <= limit / 10, "an entry costs \(cost)")

            // Enough newer entries to push the first one out.
            let count = limit / max(cost, 1) + 2
            for n in 1...count {
                _ = try await aliceClient.download(fixture.origin.url("/cache/max-age/3600?n=\(n)"))
            }
            let used = Int(await DatabaseQuery.text("SELECT sum(cost) FROM cache_entries WHERE tenant_id = '\(alice)'", fixture.database) ?? "") ?? -1
            #expect(used > 0 && used <= limit, "alice's entries take \(used) bytes of \(limit)")
            let evicted = try await aliceClient.download(oldest, ["cache_policy": "return_cache_dont_load"])
            #expect(GatewayClient.errorCode(evicted) == "not_in_cache", "the least recently used entry went: \(evicted)")
            let newest = try await aliceClient.download(fixture.origin.url("/cache/max-age/3600?n=\(count)"), ["cache_policy": "return_cache_dont_load"])
            #expect(Self.cache(newest) == "hit", "\(newest)")

            let rows = Int(await DatabaseQuery.text("SELECT count(*) FROM cache_entries WHERE tenant_id = '\(alice)'", fixture.database) ?? "") ?? -1
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: "\(fixture.dataDirectory)/cache/\(alice)")) ?? []).filter { $0.hasSuffix(".body") }
            #expect(files.count == rows, "evicted entries' bodies are deleted")

            let bobs = try await bobClient.download(bobsURL, ["cache_policy": "return_cache_dont_load"])
            #expect(Self.cache(bobs) == "hit", "alice's use did not evict bob's entry: \(bobs)")
            #expect(await DatabaseQuery.text("SELECT count(*) FROM cache_entries WHERE tenant_id = '\(bob)'", fixture.database) == "1")
        }
    }

    @Test("an ephemeral session caches in memory only, for itself: nothing in the database or on disk (CA-24, SES-03)")
    func ephemeralCachesInMemory() async throws {
        try await GatewayFixture.with { fixture in
            let (tenant, client) = try await fixture.tenant()
            let session = try #require(try await client.post("/v1/sessions", json: ["kind": "ephemeral"])["id"] as? String)
            let url = fixture.origin.url("/cache/max-age/3600?private=1")
            #expect(Self.cache(try await client.download(url, ["session": session])) == "miss")
            #expect(Self.cache(try await client.download(url, ["session": session])) == "hit")
            #expect(await DatabaseQuery.text("SELECT count(*) FROM cache_entries", fixture.database) == "0")
            #expect(!FileManager.default.fileExists(atPath: "\(fixture.dataDirectory)/cache/\(tenant)"))
            let outside = try await client.download(url, ["cache_policy": "return_cache_dont_load"])
            #expect(GatewayClient.errorCode(outside) == "not_in_cache", "the session's entries are its own: \(outside)")
        }
    }
}
