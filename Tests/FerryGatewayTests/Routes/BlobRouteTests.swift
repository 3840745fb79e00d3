import Foundation
import HTTPTypes
import Testing

/// `PUT /v1/blobs`: a stored body for upload jobs (UP-01, UP-03: the body comes from a file), with
/// its size and SHA-256; an upload job names it, and only its own tenant's jobs may.
@Suite("Routes: blobs", .timeLimit(.minutes(2)))
struct BlobRouteTests {
    /// SHA-256 of "hello" and of nothing.
    static let helloDigest = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    static let emptyDigest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test func blobIsStoredWithSizeAndDigestAndAnUploadJobMayNameIt() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let bytes = Data("hello".utf8)
            let stored = try await app.send(.put, "/v1/blobs", key: tenant.key, body: bytes, headers: [.contentType: "text/plain"])
            #expect(stored.status == 201)
            let blob = try #require(stored["id"] as? String)
            #expect(UUID(uuidString: blob) != nil)
            #expect(stored["size"] as? Int == 5)
            #expect(stored["sha256"] as? String == Self.helloDigest)
            #expect(stored["content_type"] as? String == "text/plain")

            let empty = try await app.send(.put, "/v1/blobs", key: tenant.key)
            #expect(empty.status == 201)
            #expect(empty["size"] as? Int == 0)
            #expect(empty["sha256"] as? String == Self.emptyDigest)

            let upload = try await app.send(
                .post, "/v1/jobs", key: tenant.key, json: ["kind": "upload", "request": ["url": RouteFixture.unreachable, "body": ["blob": blob]]])
            #expect(upload.status == 201)
            #expect(upload["kind"] as? String == "upload")
            #expect((upload["request"] as? [String: Any])?["method"] as? String == "POST", "an upload posts unless told otherwise")
        }
    }

    @Test func uploadJobsCannotNameUnknownOrForeignBlobsAndBlobsNeedATenantKey() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let alicesBlob = try #require(try await app.send(.put, "/v1/blobs", key: alice.key, body: Data("secret".utf8))["id"] as? String)
            for blob in [alicesBlob, UUID().uuidString.lowercased()] {
                let refused = try await app.send(
                    .post, "/v1/jobs", key: bob.key, json: ["kind": "upload", "request": ["url": RouteFixture.unreachable, "body": ["blob": blob]]])
                app.expectProblem(refused, 404, "blob_not_found")
            }
            app.expectProblem(
                try await app.send(
                    .post, "/v1/jobs", key: alice.key, json: ["kind": "upload", "request": ["url": RouteFixture.unreachable, "body": ["blob": "nope"]]]),
                400, "invalid_request", fields: ["request.body.blob"])
            #expect(try await app.send(.get, "/v1/jobs", key: bob.key).list("jobs").isEmpty)
            app.expectProblem(try await app.send(.put, "/v1/blobs", key: app.adminKey, body: Data("x".utf8)), 403, "tenant_key_required")
            app.expectProblem(try await app.send(.put, "/v1/blobs", key: nil, body: Data("x".utf8)), 401, "unauthenticated")
        }
    }

    @Test func deletingABlobRemovesItsRowAndFileAndIsRefusedWhileAnUnfinishedJobWillSendIt() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let blob = try #require(try await app.send(.put, "/v1/blobs", key: alice.key, body: Data("hello".utf8))["id"] as? String)
            let file = "\(app.dataDirectory)/blobs/\(alice.id)/\(blob)"
            #expect(FileManager.default.fileExists(atPath: file))

            app.expectProblem(try await app.send(.delete, "/v1/blobs/\(blob)", key: bob.key), 404, "not_found")
            app.expectProblem(try await app.send(.delete, "/v1/blobs/\(UUID().uuidString.lowercased())", key: alice.key), 404, "not_found")
            app.expectProblem(try await app.send(.delete, "/v1/blobs/nope", key: alice.key), 404, "not_found")
            app.expectProblem(try await app.send(.delete, "/v1/blobs/\(blob)", key: app.adminKey), 403, "tenant_key_required")

            // Queued (no worker runs here): the job will send it, so it stays.
            let job = try await app.submit(alice.key, ["kind": "upload", "request": ["url": RouteFixture.unreachable, "body": ["blob": blob]]])
            app.expectProblem(try await app.send(.delete, "/v1/blobs/\(blob)", key: alice.key), 409, "blob_in_use")
            #expect(FileManager.default.fileExists(atPath: file))
            #expect(try await app.send(.post, "/v1/jobs/\(job)/cancel", key: alice.key).status == 200)

            let deleted = try await app.send(.delete, "/v1/blobs/\(blob)", key: alice.key)
            #expect(deleted.status == 204, "\(deleted.text)")
            #expect(!FileManager.default.fileExists(atPath: file))
            #expect(try await app.sql("SELECT count(*)::text FROM blobs") == "0")
            app.expectProblem(try await app.send(.delete, "/v1/blobs/\(blob)", key: alice.key), 404, "not_found")
            app.expectProblem(
                try await app.send(
                    .post, "/v1/jobs", key: alice.key, json: ["kind": "upload", "request": ["url": RouteFixture.unreachable, "body": ["blob": blob]]]),
                404, "blob_not_found")
        }
    }
}
