import Foundation
import Testing
import URLLoadingTestSupport

/// `POST /v1/jobs/batch`: many jobs in one request, stored all together or not at all.
@Suite("Gateway job batches", .timeLimit(.minutes(5)))
struct GatewayBatchTests {
    private static func download(_ fixture: GatewayFixture, _ count: Int) -> [String: Any] {
        ["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(count)")]]
    }

    private static func ids(_ reply: GatewayClient.Reply) -> [String] {
        ((reply["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    private static func storedJobs(_ client: GatewayClient) async throws -> [[String: Any]] {
        (try await client.get("/v1/jobs?limit=100").json["jobs"] as? [[String: Any]]) ?? []
    }

    @Test("a batch is queued in one request in the order given, and every job in it runs")
    func batchRuns() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let sizes = [1_000, 2_000, 3_000, 4_000, 5_000]
            let reply = try await client.post("/v1/jobs/batch", json: ["jobs": sizes.map { Self.download(fixture, $0) }])
            #expect(reply.status == 201, "\(reply.text)")
            let jobs = (reply["jobs"] as? [[String: Any]]) ?? []
            #expect(jobs.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == sizes.map { fixture.origin.url("/bytes/\($0)") })
            #expect(jobs.allSatisfy { $0["state"] as? String == "queued" })
            // Listed newest first: the batch's last job first, as if submitted one after another.
            let ids = Self.ids(reply)
            #expect(try await Self.storedJobs(client).compactMap { $0["id"] as? String } == ids.reversed())
            for (id, size) in zip(ids, sizes) {
                let done = try await client.waitForState(id, ["succeeded", "failed"])
                #expect(done["state"] as? String == "succeeded", "\(done)")
                #expect((done["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(size))
            }
        }
    }

    @Test("one bad job refuses the whole batch: a 400 names every bad field as jobs.<index>.<field>, and nothing is stored")
    func validation() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let reply = try await client.post("/v1/jobs/batch", json: ["jobs": [
                Self.download(fixture, 1),
                ["kind": "download", "request": ["url": "gopher://example.com/"]],
                ["kind": "teleport", "request": ["url": fixture.origin.url("/bytes/3")], "priority": 5000],
            ]])
            #expect(reply.status == 400)
            #expect(reply.code == "invalid_request")
            let fields = Set(((reply["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["jobs.1.request.url", "jobs.2.kind", "jobs.2.priority"])

            let wrongType = try await client.post("/v1/jobs/batch", json: ["jobs": [Self.download(fixture, 1), ["kind": "download", "request": ["url": 5]]]])
            #expect(wrongType.status == 400)
            #expect(((wrongType["errors"] as? [[String: Any]])?.first?["field"] as? String) == "jobs.1.request.url")
            for empty: [String: Any] in [[:], ["jobs": []]] {
                let refused = try await client.post("/v1/jobs/batch", json: empty)
                #expect(refused.status == 400)
                #expect(((refused["errors"] as? [[String: Any]])?.first?["field"] as? String) == "jobs")
            }
            let tooMany = try await client.post("/v1/jobs/batch", json: ["jobs": Array(repeating: Self.download(fixture, 1), count: 1_001)])
            #expect(tooMany.status == 400)
            #expect(tooMany.text.contains("at most 1000"))
            // Many bad jobs: the first 100 problems are listed, and how many more there are.
            let allBad = try await client.post("/v1/jobs/batch", json: ["jobs": Array(repeating: ["kind": "download"], count: 300)])
            let errors = (allBad["errors"] as? [[String: Any]]) ?? []
            #expect(errors.count == 101)
            #expect(errors.last?["message"] as? String == "and 200 more problems not listed")
            #expect(try await Self.storedJobs(client).isEmpty)
        }
    }

    @Test("a batch that does not fit in the tenant's queue is a 429 and stores nothing; one that fits is taken")
    func queueRoom() async throws {
        try await GatewayFixture.with { fixture in
            let (_, key) = try await fixture.admin.createTenant("small-queue", extra: ["max_queued_jobs": 2])
            let client = fixture.admin.with(key: key)
            let refused = try await client.post("/v1/jobs/batch", json: ["jobs": (1...3).map { Self.download(fixture, $0) }])
            #expect(refused.status == 429, "\(refused.text)")
            #expect(refused.code == "queue_full")
            #expect(refused.text.contains("no room for a batch of 3"))
            #expect(try await Self.storedJobs(client).isEmpty)
            let taken = try await client.post("/v1/jobs/batch", json: ["jobs": (1...2).map { Self.download(fixture, $0) }])
            #expect(taken.status == 201, "\(taken.text)")
            #expect(Self.ids(taken).count == 2)
        }
    }

    @Test("another tenant's session or blob in a batch is a 404, an invalidated session a 409, and nothing is stored")
    func isolation() async throws {
        try await GatewayFixture.with { fixture in
            let (_, alice) = try await fixture.tenant("alice")
            let (_, bob) = try await fixture.tenant("bob")
            let aliceSession = try #require(try await alice.post("/v1/sessions", json: [:])["id"] as? String)
            let aliceBlob = try #require(try await alice.send("PUT", "/v1/blobs", body: Data("secret".utf8))["id"] as? String)

            var withSession = Self.download(fixture, 2)
            withSession["session"] = aliceSession
            let foreignSession = try await bob.post("/v1/jobs/batch", json: ["jobs": [Self.download(fixture, 1), withSession]])
            #expect(foreignSession.status == 404)
            #expect(foreignSession.code == "session_not_found")
            let foreignBlob = try await bob.post("/v1/jobs/batch", json: ["jobs": [
                Self.download(fixture, 1),
                ["kind": "upload", "request": ["url": fixture.origin.url("/echo"), "body": ["blob": aliceBlob]]],
            ]])
            #expect(foreignBlob.status == 404)
            #expect(foreignBlob.code == "blob_not_found")
            #expect(try await Self.storedJobs(bob).isEmpty)

            // Alice's own session and blob are fine, until the session is invalidated.
            let own = try await alice.post("/v1/jobs/batch", json: ["jobs": [
                withSession, ["kind": "upload", "request": ["url": fixture.origin.url("/echo"), "body": ["blob": aliceBlob]]],
            ]])
            #expect(own.status == 201, "\(own.text)")
            #expect(try await alice.delete("/v1/sessions/\(aliceSession)?mode=cancel").status == 200)
            let invalidated = try await alice.post("/v1/jobs/batch", json: ["jobs": [Self.download(fixture, 3), withSession]])
            #expect(invalidated.status == 409)
            #expect(invalidated.code == "session_invalidated")
            #expect(try await Self.storedJobs(alice).count == 2)
        }
    }

    @Test("the same Idempotency-Key and batch give the same jobs; another batch with it is a 409; single jobs' keys never collide")
    func idempotency() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let body = try JSONSerialization.data(withJSONObject: ["jobs": [Self.download(fixture, 10), Self.download(fixture, 11)]])
            let first = try await client.send("POST", "/v1/jobs/batch", body: body, headers: ["Idempotency-Key": "import-7"])
            let second = try await client.send("POST", "/v1/jobs/batch", body: body, headers: ["Idempotency-Key": "import-7"])
            #expect(first.status == 201)
            #expect(second.status == 200)
            #expect(second.headers["Idempotent-Replayed"] == "true")
            #expect(Self.ids(first).count == 2)
            #expect(Self.ids(second) == Self.ids(first))
            let other = try await client.send(
                "POST", "/v1/jobs/batch", json: ["jobs": [Self.download(fixture, 12)]], headers: ["Idempotency-Key": "import-7"])
            #expect(other.status == 409)
            #expect(other.code == "idempotency_key_reused")
            // A single job may use the batch's key: the two are kept apart.
            let single = try await client.send("POST", "/v1/jobs", json: Self.download(fixture, 13), headers: ["Idempotency-Key": "import-7"])
            #expect(single.status == 201)
            #expect(try await Self.storedJobs(client).count == 3)
        }
    }
}
