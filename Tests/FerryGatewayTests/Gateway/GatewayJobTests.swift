import Foundation
import Testing
import URLLoadingTestSupport

/// Jobs end to end through a real ferryd: submit, run, read, fetch content, control.
@Suite("Gateway jobs", .timeLimit(.minutes(5)))
struct GatewayJobTests {
    @Test("a download job succeeds with the content's SHA-256, and its content is served whole and by range (DL-01)")
    func downloadJobLifecycle() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let created = try await client.post("/v1/jobs", json: ["kind": "download", "request": ["url": fixture.origin.url("/bytes/300000")]])
            #expect(created.status == 201, "\(created.text)")
            #expect(created["state"] as? String == "queued")
            #expect(created.headers["Location"] == "/v1/jobs/\(created["id"] as? String ?? "")")
            let id = try #require(created["id"] as? String)

            let job = try await client.waitForState(id, ["succeeded", "failed"])
            #expect(job["state"] as? String == "succeeded", "\(job)")
            #expect(job["attempt"] as? Int == 1)
            let result = try #require(job["result"] as? [String: Any])
            #expect(result["size"] as? Int == 300_000)
            #expect(result["sha256"] as? String == GatewayFixture.patternSHA256(300_000))
            #expect(result["content_type"] as? String == "application/octet-stream")
            let response = try #require(job["response"] as? [String: Any])
            #expect(response["status"] as? Int == 200)
            #expect((job["progress"] as? [String: Any])?["bytes_done"] as? Int == 300_000)

            let content = try await client.get("/v1/jobs/\(id)/content")
            #expect(content.status == 200)
            #expect(Array(content.body) == OriginServer.patternBytes(count: 300_000))
            // HEAD: the same headers, no body.
            let head = try await client.send("HEAD", "/v1/jobs/\(id)/content")
            #expect(head.status == 200)
            #expect(head.headers["Content-Length"] == "300000")
            #expect(head.headers["ETag"] == content.headers["ETag"])
            #expect(head.body.isEmpty)
            let part = try await client.get("/v1/jobs/\(id)/content", headers: ["Range": "bytes=1000-1999"])
            #expect(part.status == 206)
            #expect(part.headers["Content-Range"] == "bytes 1000-1999/300000")
            #expect(Array(part.body) == Array(OriginServer.patternBytes(count: 2000)[1000..<2000]))
            let outside = try await client.get("/v1/jobs/\(id)/content", headers: ["Range": "bytes=400000-"])
            #expect(outside.status == 416)
            #expect(outside.code == "range_not_satisfiable")

            // Finished: it can be deleted, and then it and its file are gone.
            #expect(try await client.delete("/v1/jobs/\(id)").status == 204)
            #expect(try await client.get("/v1/jobs/\(id)").status == 404)
            #expect(Self.contentFile(of: id, in: fixture.dataDirectory) == nil)
        }
    }

    @Test("a deleted job's file is emptied and kept as a spare, and the next download writes into it")
    func deletedFilesAreReused() async throws {
        // No HTTP cache: a cached body is a second link to the job's file, which is never recycled
        // (GatewayCacheTests.cachedBodyOutlivesItsJob).
        try await GatewayFixture.with(options: FerrydServer.Options(cacheMaxBytesPerTenant: 0)) { fixture in
            let (_, client) = try await fixture.tenant()
            func download(_ size: Int) async throws -> String {
                let created = try await client.post("/v1/jobs", json: ["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(size)")]])
                let id = try #require(created["id"] as? String, "\(created.text)")
                #expect(try await client.waitForState(id, ["succeeded", "failed"])["state"] as? String == "succeeded")
                return id
            }
            let first = try await download(200_000)
            let firstFile = try #require(Self.contentFile(of: first, in: fixture.dataDirectory))
            let inode = try SpareFilesTests.inode(firstFile)

            #expect(try await client.delete("/v1/jobs/\(first)").status == 204)
            let spareDirectory = "\(fixture.dataDirectory)/spare"
            let spares = try FileManager.default.contentsOfDirectory(atPath: spareDirectory)
            #expect(spares.count == 1)
            #expect(try SpareFilesTests.inode("\(spareDirectory)/\(spares[0])") == inode)
            let spareSize = try FileManager.default.attributesOfItem(atPath: "\(spareDirectory)/\(spares[0])")[.size] as? Int
            #expect(spareSize == 0)

            let second = try await download(1000)
            let secondFile = try #require(Self.contentFile(of: second, in: fixture.dataDirectory))
            #expect(try SpareFilesTests.inode(secondFile) == inode)
            #expect(try FileManager.default.contentsOfDirectory(atPath: spareDirectory).isEmpty)
            let content = try await client.get("/v1/jobs/\(second)/content")
            #expect(Array(content.body) == OriginServer.patternBytes(count: 1000))
        }
    }

    /// The path of a job's content file under `<data>/files/<tenant>/`, if there is one.
    static func contentFile(of job: String, in dataDirectory: String) -> String? {
        let files = "\(dataDirectory)/files"
        for tenant in (try? FileManager.default.contentsOfDirectory(atPath: files)) ?? [] {
            let path = "\(files)/\(tenant)/\(job)"
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        return nil
    }

    @Test("a data job POSTs its inline body and keeps the response; an upload job sends a blob streamed in before")
    func dataAndUploadJobs() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let dataID = try await client.submit([
                "kind": "data", "request": ["url": fixture.origin.url("/echo"), "method": "POST", "body": "hello ferry", "headers": ["X-Trace": "42"]],
            ])
            let dataJob = try await client.waitForState(dataID, ["succeeded", "failed"])
            #expect(dataJob["state"] as? String == "succeeded", "\(dataJob)")
            let echo = try await client.get("/v1/jobs/\(dataID)/content").json
            #expect(echo["method"] as? String == "POST")
            #expect(echo["body_length"] as? Int == 11)
            #expect((echo["headers"] as? [[String]])?.contains(["X-Trace", "42"]) == true)

            let blobBody = Data(OriginServer.patternBytes(count: 200_000))
            let blob = try await client.send("PUT", "/v1/blobs", body: blobBody, headers: ["Content-Type": "application/octet-stream"])
            #expect(blob.status == 201, "\(blob.text)")
            #expect(blob["size"] as? Int == 200_000)
            #expect(blob["sha256"] as? String == GatewayFixture.sha256(blobBody))
            let blobID = try #require(blob["id"] as? String)
            let uploadID = try await client.submit([
                "kind": "upload", "request": ["url": fixture.origin.url("/echo"), "method": "PUT", "body": ["blob": blobID]],
            ])
            let uploadJob = try await client.waitForState(uploadID, ["succeeded", "failed"])
            #expect(uploadJob["state"] as? String == "succeeded", "\(uploadJob)")
            let received = fixture.origin.requests.filter { $0.path == "/echo" && $0.method == "PUT" }
            #expect(received.last?.bodyLength == 200_000)
        }
    }

    @Test("invalid submissions get a 400 naming every bad field, and nothing is stored")
    func validation() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let reply = try await client.post("/v1/jobs", json: [
                "kind": "teleport",
                "request": ["url": "gopher://example.com/", "headers": ["Host": "evil.example", "Connection": "close", "X-Ok": "fine"]],
                "retry": ["max_attempts": 0],
                "checksum": ["sha256": "abc"],
                "priority": 5000,
            ])
            #expect(reply.status == 400)
            #expect(reply.code == "invalid_request")
            #expect(reply.headers["Content-Type"] == "application/problem+json")
            let fields = Set(((reply["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["kind", "request.url", "request.headers.Host", "request.headers.Connection", "retry.max_attempts", "checksum.sha256", "priority"])

            let notJSON = try await client.send("POST", "/v1/jobs", body: Data("{".utf8))
            #expect(notJSON.status == 400)
            let wrongType = try await client.post("/v1/jobs", json: ["kind": "download", "request": ["url": 5]])
            #expect(wrongType.status == 400)
            #expect(((wrongType["errors"] as? [[String: Any]])?.first?["field"] as? String) == "request.url")
            let huge = try await client.send("POST", "/v1/jobs", body: Data(repeating: 0x20, count: 2 << 20))
            #expect(huge.status == 413)
            #expect(huge.code == "body_too_large")
            #expect(((try await client.get("/v1/jobs").json["jobs"]) as? [Any])?.isEmpty == true)
        }
    }

    @Test("the same Idempotency-Key and body give the same job; another body with it is a 409")
    func idempotency() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let job: [String: Any] = ["kind": "download", "request": ["url": fixture.origin.url("/bytes/10")]]
            let body = try JSONSerialization.data(withJSONObject: job)
            let first = try await client.send("POST", "/v1/jobs", body: body, headers: ["Idempotency-Key": "order-17"])
            let second = try await client.send("POST", "/v1/jobs", body: body, headers: ["Idempotency-Key": "order-17"])
            #expect(first.status == 201)
            #expect(second.status == 200)
            #expect(second.headers["Idempotent-Replayed"] == "true")
            #expect(first["id"] as? String == second["id"] as? String)
            let other = try await client.send(
                "POST", "/v1/jobs", json: ["kind": "download", "request": ["url": fixture.origin.url("/bytes/11")]], headers: ["Idempotency-Key": "order-17"])
            #expect(other.status == 409)
            #expect(other.code == "idempotency_key_reused")
            // Keys are per tenant: another tenant may use the same one.
            let (_, otherTenant) = try await fixture.tenant()
            let theirs = try await otherTenant.send("POST", "/v1/jobs", body: body, headers: ["Idempotency-Key": "order-17"])
            #expect(theirs.status == 201)
            #expect(theirs["id"] as? String != first["id"] as? String)
        }
    }

    @Test("GET /v1/jobs pages newest first with a cursor, filters by state, and rejects bad parameters")
    func pagination() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            var ids: [String] = []
            for index in 0..<7 {
                // Paused right away so the states are known: queued → paused.
                let id = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(index + 1)")], "priority": -1000])
                ids.append(id)
            }
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let reply = try await client.get("/v1/jobs?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(reply.status == 200)
                let jobs = (reply["jobs"] as? [[String: Any]]) ?? []
                #expect(jobs.count <= 3)
                seen += jobs.compactMap { $0["id"] as? String }
                cursor = reply["next_cursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            #expect(seen == Array(ids.reversed()))

            _ = try await client.waitForState(ids[0], ["succeeded"])
            let succeeded = try await client.get("/v1/jobs?state=succeeded&limit=500")
            #expect(((succeeded["jobs"] as? [[String: Any]]) ?? []).allSatisfy { $0["state"] as? String == "succeeded" })
            for query in ["state=sleeping", "limit=0", "limit=501", "cursor=nonsense"] {
                let bad = try await client.get("/v1/jobs?\(query)")
                #expect(bad.status == 400, "\(query)")
            }
        }
    }
}
