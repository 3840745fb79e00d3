import Foundation
import HTTPTypes
import Testing

/// A tenant's `max_storage_bytes`: set when the admin creates it, shown in its view, and what its
/// blobs may take (with its succeeded jobs' content, which the gateway tests cover).
@Suite("Routes: storage quota", .timeLimit(.minutes(2)))
struct StorageQuotaRouteTests {
    @Test func aTenantsStorageLimitIsSetAtCreationAndChecked() async throws {
        try await RouteFixture.with { app in
            let created = try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "small", "max_storage_bytes": 10])
            #expect(created.status == 201, "\(created.text)")
            #expect(created["max_storage_bytes"] as? Int == 10)
            let listed = try await app.send(.get, "/v1/admin/tenants", key: app.adminKey).list("tenants")
            #expect(listed.first { $0["name"] as? String == "small" }?["max_storage_bytes"] as? Int == 10)
            #expect(try await app.sql("SELECT max_storage_bytes::text FROM tenants WHERE name = 'small'") == "10")

            let unlimited = try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "unlimited"])
            #expect(unlimited["max_storage_bytes"] == nil, "absent: ferryd's default")

            for bad: Any in [-1, "10", 1e30] {
                app.expectProblem(
                    try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "bad", "max_storage_bytes": bad]),
                    400, "invalid_request", fields: ["max_storage_bytes"])
            }
            #expect(try await app.sql("SELECT count(*)::text FROM tenants WHERE name = 'bad'") == "0")
        }
    }

    @Test func aBlobThatDoesNotFitIsRefusedWith507AndNothingIsKept() async throws {
        try await RouteFixture.with { app in
            let created = try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "small", "max_storage_bytes": 10])
            let tenant = try #require(created["id"] as? String)
            let key = try #require(created["api_key"] as? String)
            let first = try await app.send(.put, "/v1/blobs", key: key, body: Data("123456".utf8))
            #expect(first.status == 201, "\(first.text)")

            // 6 of 10 bytes used: 5 more do not fit, whether the length is declared or not.
            app.expectProblem(try await app.send(.put, "/v1/blobs", key: key, body: Data("12345".utf8)), 507, "storage_quota_exceeded")
            app.expectProblem(
                try await app.send(.put, "/v1/blobs", key: key, body: Data("12345".utf8), headers: [.contentLength: "5"]),
                507, "storage_quota_exceeded")
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(app.dataDirectory)/blobs/\(tenant)") == [first["id"] as? String ?? ""],
                    "no partial upload file is left")
            #expect(try await app.sql("SELECT count(*)::text FROM blobs") == "1")

            // Exactly the room left fits; then nothing does, until a blob is deleted.
            #expect(try await app.send(.put, "/v1/blobs", key: key, body: Data("1234".utf8)).status == 201)
            app.expectProblem(try await app.send(.put, "/v1/blobs", key: key, body: Data("1".utf8)), 507, "storage_quota_exceeded")
            #expect(try await app.send(.delete, "/v1/blobs/\(first["id"] as? String ?? "")", key: key).status == 204)
            #expect(try await app.send(.put, "/v1/blobs", key: key, body: Data("123456".utf8)).status == 201)

            // Another tenant's room is its own.
            let other = try await app.createTenant()
            #expect(try await app.send(.put, "/v1/blobs", key: other.key, body: Data(count: 1000)).status == 201)
        }
    }
}
