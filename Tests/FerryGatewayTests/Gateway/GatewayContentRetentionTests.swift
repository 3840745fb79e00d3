import Foundation
import PostgresNIO
import Testing
import URLLoadingTestSupport

/// Content retention on real ferryd processes: `FERRY_CONTENT_RETENTION_DAYS` and a job's
/// `retention_days`. Time is moved by backdating rows; a second ferryd sweeps as it starts.
@Suite("Gateway: content retention", .timeLimit(.minutes(5)))
struct GatewayContentRetentionTests {
    @Test("content past its retention is removed and the job says so; an unused old blob goes, one a running job sends stays")
    func expiredContentIsRemoved() async throws {
        let options = FerrydServer.Options(contentRetentionDays: 30)
        try await GatewayFixture.with(options: options) { fixture in
            let (tenant, client) = try await fixture.tenant()
            let short = try await client.submit([
                "kind": "download", "request": ["url": fixture.origin.url("/bytes/1000")], "retention_days": 1,
            ])
            let long = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/2000")]])
            for id in [short, long] { #expect(try await client.waitForState(id, ["succeeded", "failed"])["state"] as? String == "succeeded") }
            let unused = try #require(try await client.send("PUT", "/v1/blobs", body: Data("old".utf8))["id"] as? String)
            let used = try #require(try await client.send("PUT", "/v1/blobs", body: Data("sent".utf8))["id"] as? String)
            let sending = try await client.submit(["kind": "upload", "request": ["url": fixture.origin.url("/stall"), "body": ["blob": used]]])
            _ = try await client.waitForState(sending, ["running"])

            // Both jobs finished two days ago (1 day kept for one, 30 for the other); both blobs are 31 days old.
            try await Self.execute("UPDATE jobs SET finished_at = now() - interval '2 days' WHERE finished_at IS NOT NULL", fixture.database)
            try await Self.execute("UPDATE blobs SET created_at = now() - interval '31 days'", fixture.database)
            let sweeper = try await fixture.startAnother(name: "sweeper", options: options)
            defer { Task { _ = try? await sweeper.terminate() } }
            #expect(try await DatabaseQuery.wait(timeout: .seconds(30)) {
                await DatabaseQuery.text("SELECT count(*) FROM blobs", fixture.database) == "1"
            })

            let expired = try await client.get("/v1/jobs/\(short)").json
            let result = expired["result"] as? [String: Any]
            #expect(result?["content_expired"] as? Bool == true, "\(expired)")
            #expect(result?["size"] as? Int == 1000, "the record stays")
            let gone = try await client.get("/v1/jobs/\(short)/content")
            #expect(gone.status == 410)
            #expect(gone.code == "content_expired")
            #expect(!FileManager.default.fileExists(atPath: "\(fixture.dataDirectory)/files/\(tenant)/\(short)"))
            let asBody = try await client.post(
                "/v1/jobs", json: ["kind": "upload", "request": ["url": fixture.origin.url("/echo"), "body": ["job": short]]])
            #expect(asBody.status == 409)
            #expect(asBody.code == "job_content_unavailable")

            let kept = try await client.get("/v1/jobs/\(long)").json
            #expect((kept["result"] as? [String: Any])?["content_expired"] == nil, "\(kept)")
            #expect(try await client.get("/v1/jobs/\(long)/content").body.count == 2000)

            #expect(try await client.delete("/v1/blobs/\(unused)").status == 404, "the unused blob expired")
            #expect(try await client.delete("/v1/blobs/\(used)").code == "blob_in_use", "a blob a running job sends stays")
            #expect(try await client.post("/v1/jobs/\(sending)/cancel").status < 300)
            _ = try await sweeper.terminate()
        }
    }

    @Test("a tenant's content_retention_days applies to its jobs and blobs where ferryd has no default; another tenant's stay")
    func tenantRetention() async throws {
        try await GatewayFixture.with { fixture in
            let (shortID, shortKey) = try await fixture.admin.createTenant("short-lived", extra: ["content_retention_days": 1])
            let short = fixture.admin.with(key: shortKey)
            let (_, keeper) = try await fixture.tenant()
            let tenantView = try await fixture.admin.get("/v1/admin/tenants").json["tenants"] as? [[String: Any]]
            #expect(tenantView?.first { $0["id"] as? String == shortID }?["content_retention_days"] as? Int == 1)

            let expiring = try await short.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/1000")]])
            let kept = try await keeper.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/2000")]])
            for (client, id) in [(short, expiring), (keeper, kept)] {
                #expect(try await client.waitForState(id, ["succeeded", "failed"])["state"] as? String == "succeeded")
            }
            let oldBlob = try #require(try await short.send("PUT", "/v1/blobs", body: Data("old".utf8))["id"] as? String)
            let keptBlob = try #require(try await keeper.send("PUT", "/v1/blobs", body: Data("kept".utf8))["id"] as? String)
            try await Self.execute("UPDATE jobs SET finished_at = now() - interval '2 days' WHERE finished_at IS NOT NULL", fixture.database)
            try await Self.execute("UPDATE blobs SET created_at = now() - interval '2 days'", fixture.database)

            let sweeper = try await fixture.startAnother(name: "sweeper")
            defer { Task { _ = try? await sweeper.terminate() } }
            #expect(try await DatabaseQuery.wait(timeout: .seconds(30)) {
                await DatabaseQuery.text("SELECT count(*) FROM blobs", fixture.database) == "1"
            })
            #expect(try await short.get("/v1/jobs/\(expiring)/content").code == "content_expired")
            #expect(try await short.delete("/v1/blobs/\(oldBlob)").status == 404, "the tenant's old blob expired")
            #expect(try await keeper.get("/v1/jobs/\(kept)/content").body.count == 2000, "no retention for the other tenant")
            #expect(try await keeper.delete("/v1/blobs/\(keptBlob)").status == 204)
            _ = try await sweeper.terminate()
        }
    }

    static func execute(_ sql: String, _ database: TestDatabase) async throws {
        _ = try await PostgresProbe.value(PostgresQuery(unsafeSQL: "WITH changed AS (\(sql) RETURNING 1) SELECT count(*) FROM changed"),
                                          as: Int64.self, on: database.connectionConfiguration)
    }
}
