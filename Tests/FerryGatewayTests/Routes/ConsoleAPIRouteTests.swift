import Foundation
import HTTPTypes
import Testing

/// What the operator console needs from the public API and got added to it (issue 23): jobs listed by
/// a part of their URL, a job's attempts, the tenant's blobs, and the admin's overview. No worker runs here (see
/// `RouteFixture`), so every job stays queued; `GatewayOverviewTests` covers jobs that ran.
@Suite("Routes: console's API", .timeLimit(.minutes(2)))
struct ConsoleAPIRouteTests {
    @Test("GET /v1/jobs?url_contains= lists only jobs whose URL contains the text, letter case aside, with paging and state")
    func jobsByURLText() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let mirrors = [
                try await app.submit(alice.key, RouteFixture.download("http://127.0.0.1:9/Debian/one.iso")),
                try await app.submit(alice.key, RouteFixture.download("http://127.0.0.1:9/debian/two.iso")),
            ]
            _ = try await app.submit(alice.key, RouteFixture.download("http://127.0.0.1:9/ubuntu/three.iso"))
            let bobs = try await app.submit(bob.key, RouteFixture.download("http://127.0.0.1:9/debian/bob.iso"))

            let found = try await app.send(.get, "/v1/jobs?url_contains=DEBIAN", key: alice.key)
            #expect(found.status == 200)
            #expect(Set(found.list("jobs").compactMap { $0["id"] as? String }) == Set(mirrors), "another tenant's match stays out")

            let firstPage = try await app.send(.get, "/v1/jobs?url_contains=debian&limit=1", key: alice.key)
            let cursor = try #require(firstPage["next_cursor"] as? String)
            let secondPage = try await app.send(.get, "/v1/jobs?url_contains=debian&limit=1&cursor=\(cursor)", key: alice.key)
            #expect(firstPage.list("jobs").count == 1 && secondPage.list("jobs").count == 1)
            #expect(secondPage["next_cursor"] == nil)
            #expect(Set((firstPage.list("jobs") + secondPage.list("jobs")).compactMap { $0["id"] as? String }) == Set(mirrors))

            #expect(try await app.send(.get, "/v1/jobs?url_contains=debian&state=running", key: alice.key).list("jobs").isEmpty)
            let everyone = try await app.send(.get, "/v1/admin/jobs?url_contains=debian", key: app.adminKey)
            #expect(Set(everyone.list("jobs").compactMap { $0["id"] as? String }) == Set(mirrors + [bobs]))
        }
    }

    @Test("url_contains that is empty, longer than a URL may be, or holds NUL is a 400 naming it")
    func urlTextIsValidated() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            for query in ["url_contains=", "url_contains=%00", "url_contains=\(String(repeating: "a", count: 8193))"] {
                app.expectProblem(try await app.send(.get, "/v1/jobs?\(query)", key: tenant.key), 400, "invalid_request", fields: ["url_contains"])
            }
        }
    }

    @Test("GET /v1/jobs/{id}/attempts: none before a worker takes the job; another tenant's job is a 404; the admin reads any")
    func attemptsOfAJobNoWorkerTook() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let job = try await app.submit(alice.key)
            let attempts = try await app.send(.get, "/v1/jobs/\(job)/attempts", key: alice.key)
            #expect(attempts.status == 200)
            #expect(attempts.list("attempts").isEmpty)
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(job)/attempts", key: bob.key), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(UUID())/attempts", key: alice.key), 404, "not_found")
            #expect(try await app.send(.get, "/v1/admin/jobs/\(job)/attempts", key: app.adminKey).status == 200)
            app.expectProblem(try await app.send(.get, "/v1/admin/jobs/\(job)/attempts", key: alice.key), 403, "admin_key_required")
        }
    }

    @Test("GET /v1/blobs lists the tenant's blobs newest first, a page at a time; another tenant's stay out; admins get a 403")
    func blobsAreListed() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            var stored: [String] = []
            for body in ["first", "second body"] {
                let reply = try await app.send(.put, "/v1/blobs", key: alice.key, body: Data(body.utf8), headers: [.contentType: "text/plain"])
                #expect(reply.status == 201)
                stored.append(try #require(reply["id"] as? String))
            }
            _ = try await app.send(.put, "/v1/blobs", key: bob.key, body: Data("bob's".utf8))

            let all = try await app.send(.get, "/v1/blobs", key: alice.key)
            #expect(all.status == 200)
            #expect(all.list("blobs").compactMap { $0["id"] as? String } == stored.reversed())
            #expect(all.list("blobs").first?["size"] as? Int == 11)
            #expect(all.list("blobs").first?["content_type"] as? String == "text/plain")
            #expect(all.list("blobs").allSatisfy { $0["created_at"] is String })
            let first = try await app.send(.get, "/v1/blobs?limit=1", key: alice.key)
            let cursor = try #require(first["next_cursor"] as? String)
            let second = try await app.send(.get, "/v1/blobs?limit=1&cursor=\(cursor)", key: alice.key)
            #expect(second.list("blobs").compactMap { $0["id"] as? String } == [stored[0]])
            #expect(second["next_cursor"] == nil)
            app.expectProblem(try await app.send(.get, "/v1/blobs?limit=0", key: alice.key), 400, "invalid_request", fields: ["limit"])
            app.expectProblem(try await app.send(.get, "/v1/blobs", key: app.adminKey), 403, "tenant_key_required")
        }
    }

    @Test("GET /v1/admin/overview: every state counted, sixty minutes, the oldest queued job, each tenant's queued jobs; admins only")
    func overviewOfAQueue() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let oldest = try await app.submit(alice.key)
            _ = try await app.submit(alice.key)
            _ = try await app.submit(bob.key)

            let overview = try await app.send(.get, "/v1/admin/overview", key: app.adminKey)
            #expect(overview.status == 200)
            let states = try #require(overview["jobs_by_state"] as? [String: Int])
            #expect(states.count == 8)
            #expect(states["queued"] == 3 && states["running"] == 0)
            let minutes = overview.list("last_hour")
            #expect(minutes.count == 60)
            #expect(minutes.allSatisfy { $0["bytes"] as? Int == 0 })
            let starts = minutes.compactMap { ($0["start"] as? String).flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) } }
            #expect(starts.count == 60 && zip(starts, starts.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 60 })
            #expect((overview["oldest_queued_job"] as? [String: Any])?["id"] as? String == oldest)
            #expect((overview["oldest_queued_job"] as? [String: Any])?["tenant"] as? String == alice.id)
            let usage = Dictionary(uniqueKeysWithValues: overview.list("tenants").map { ($0["tenant"] as? String ?? "", $0) })
            #expect(usage[alice.id]?["queued_jobs"] as? Int == 2)
            #expect(usage[bob.id]?["queued_jobs"] as? Int == 1)
            #expect(usage[alice.id]?["stored_bytes"] as? Int == 0)
            #expect((overview["webhook_deliveries"] as? [String: Any])?["failed"] as? Int == 0)

            app.expectProblem(try await app.send(.get, "/v1/admin/overview", key: alice.key), 403, "admin_key_required")
        }
    }
}
