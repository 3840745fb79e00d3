import Foundation
import Testing
import URLLoadingTestSupport

/// Per-tenant storage quotas on a real ferryd: `FERRY_MAX_STORAGE_BYTES_PER_TENANT` for every tenant,
/// `max_storage_bytes` for one; blobs and succeeded jobs' content count together.
@Suite("Gateway: storage quota", .timeLimit(.minutes(5)))
struct GatewayStorageQuotaTests {
    static let quota: Int64 = 1_000_000

    @Test("a download that would pass the tenant's quota fails with storage_quota_exceeded, by Content-Length or as bytes arrive, and leaves no file")
    func downloadsAreHeldToTheQuota() async throws {
        try await GatewayFixture.with(options: FerrydServer.Options(maxStorageBytesPerTenant: Self.quota)) { fixture in
            let (tenant, client) = try await fixture.tenant()
            let first = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/600000")]])
            #expect(try await client.waitForState(first, ["succeeded", "failed"])["state"] as? String == "succeeded")

            // 600,000 stored: 600,000 more do not fit, as the Content-Length says before any byte.
            let announced = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/600000")]])
            let refused = try await client.waitForState(announced, ["succeeded", "failed"])
            #expect(refused["state"] as? String == "failed", "\(refused)")
            #expect((refused["error"] as? [String: Any])?["code"] as? String == "storage_quota_exceeded", "\(refused)")
            #expect(refused["attempt"] as? Int == 1, "not retried: \(refused)")

            // No length: stopped once the bytes that arrived pass the room left.
            let unannounced = try await client.submit([
                "kind": "download", "request": ["url": fixture.origin.url("/drip?bytes=3000000&chunks=60&delay_ms=20&length=0")],
            ])
            let stopped = try await client.waitForState(unannounced, ["succeeded", "failed"])
            #expect(stopped["state"] as? String == "failed", "\(stopped)")
            #expect((stopped["error"] as? [String: Any])?["code"] as? String == "storage_quota_exceeded", "\(stopped)")

            // Nothing but the first job's content is left in the tenant's directory.
            let directory = "\(fixture.dataDirectory)/files/\(tenant)"
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [first])

            // Room made by deleting the first job: the same download now fits.
            #expect(try await client.delete("/v1/jobs/\(first)").status == 204)
            let again = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/600000")]])
            #expect(try await client.waitForState(again, ["succeeded", "failed"])["state"] as? String == "succeeded")
        }
    }

    @Test("a blob counts against the same quota as job content; a tenant's own max_storage_bytes wins over the default")
    func blobsAndJobsShareTheQuotaAndATenantLimitWins() async throws {
        try await GatewayFixture.with(options: FerrydServer.Options(maxStorageBytesPerTenant: Self.quota)) { fixture in
            let (_, client) = try await fixture.tenant()
            let blob = try await client.send("PUT", "/v1/blobs", body: Data(count: 700_000))
            #expect(blob.status == 201, "\(blob.text)")
            let job = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/400000")]])
            let failed = try await client.waitForState(job, ["succeeded", "failed"])
            #expect((failed["error"] as? [String: Any])?["code"] as? String == "storage_quota_exceeded", "\(failed)")

            let (_, key) = try await fixture.admin.createTenant("roomy", extra: ["max_storage_bytes": 5_000_000])
            let roomy = fixture.admin.with(key: key)
            let big = try await roomy.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/2000000")]])
            #expect(try await roomy.waitForState(big, ["succeeded", "failed"])["state"] as? String == "succeeded")
            let refused = try await roomy.send("PUT", "/v1/blobs", body: Data(count: 3_500_000))
            #expect(refused.status == 507, "\(refused.text)")
            #expect(refused.code == "storage_quota_exceeded")
        }
    }
}
