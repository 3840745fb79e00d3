import Foundation
import Testing
import URLLoadingTestSupport

/// The `ferry` gateway commands against a live ferryd on a real PostgreSQL (the client).
@Suite("ferry against a ferryd gateway", .timeLimit(.minutes(5)))
struct GatewayClientCommandTests {
    // DL-01, DL-05: a tenant made with `ferry admin`, a download submitted and waited for, read back
    // with status and list, its content saved with the right bytes.
    @Test func tenantSubmitWaitStatusListContent() async throws {
        try await GatewayCLIFixture.with { fixture in
            // The key is printed once, with a warning that it will not be shown again.
            let created = try await fixture.ferry(["admin", "tenants", "create", "acme"], key: fixture.adminKey)
            CLIFixture.expectStatus(created, 0)
            let key = try #require(GatewayCLIFixture.field("api key", in: GatewayCLIFixture.text(created)))
            #expect(!key.isEmpty)
            #expect(GatewayCLIFixture.field("name", in: GatewayCLIFixture.text(created)) == "acme")
            #expect(created.standardError.contains("shown only this once"), "\(created.summary)")

            let url = fixture.origin.url("/bytes/300000")
            let submitted = try await fixture.ferry(["submit", url, "--wait", "--json"], key: key)
            CLIFixture.expectStatus(submitted, 0)
            let job = GatewayCLIFixture.object(submitted)
            #expect(job["state"] as? String == "succeeded", "\(submitted.summary)")
            #expect((job["result"] as? [String: Any])?["size"] as? Int == 300_000)
            let id = try #require(job["id"] as? String)

            let status = try await fixture.ferry(["status", id], key: key)
            CLIFixture.expectStatus(status, 0)
            let details = GatewayCLIFixture.text(status)
            #expect(GatewayCLIFixture.field("id", in: details) == id)
            #expect(GatewayCLIFixture.field("state", in: details) == "succeeded", "\(details)")
            #expect(GatewayCLIFixture.field("request", in: details) == "GET \(url)")
            #expect(GatewayCLIFixture.field("progress", in: details) == "293.0 KiB / 293.0 KiB", "\(details)")
            #expect(GatewayCLIFixture.field("result", in: details)?.hasPrefix("300000 bytes, sha256 ") == true)

            let statusJSON = try await fixture.ferry(["status", id, "--json"], key: key)
            #expect(GatewayCLIFixture.object(statusJSON)["id"] as? String == id)

            let list = try await fixture.ferry(["list"], key: key)
            CLIFixture.expectStatus(list, 0)
            let rows = GatewayCLIFixture.text(list).split(separator: "\n")
            #expect(rows.first?.hasPrefix("ID") == true, "a header row: \(rows)")
            #expect(rows.contains { $0.hasPrefix(id) && $0.contains("succeeded") && $0.hasSuffix(url) }, "\(rows)")
            let failedOnly = try await fixture.ferry(["list", "--state", "failed", "--json"], key: key)
            CLIFixture.expectStatus(failedOnly, 0)
            #expect((GatewayCLIFixture.object(failedOnly)["jobs"] as? [Any])?.isEmpty == true, "\(failedOnly.summary)")

            let file = fixture.directory.appendingPathComponent("content.bin")
            let content = try await fixture.ferry(["content", id, "-o", file.path], key: key)
            CLIFixture.expectStatus(content, 0)
            #expect(CLIFixture.contents(file) == CLIFixture.pattern(300_000))
        }
    }

    // `ferry submit --wait` asks for the finished job (Prefer: wait, RFC 7240 §4.3; LG-01): a short
    // job's answer is its end, with no event stream; one that outlasts the wait is followed.
    @Test func submitWaitAsksForTheFinishedJob() async throws {
        try await GatewayCLIFixture.with { fixture in
            let key = try await fixture.tenantKey()
            let quick = try await fixture.ferry(["submit", fixture.origin.url("/bytes/1000"), "--wait", "-v"], key: key)
            CLIFixture.expectStatus(quick, 0)
            #expect(quick.standardError.contains("> Prefer: wait=5"), "\(quick.summary)")
            #expect(quick.standardError.contains("< Preference-Applied: wait=5"), "\(quick.summary)")
            #expect(!quick.standardError.contains("/events"), "no event stream for a job that ended in the wait: \(quick.summary)")
            #expect(GatewayCLIFixture.field("state", in: GatewayCLIFixture.text(quick)) == "succeeded", "\(quick.summary)")

            // About 6 s (64 KiB every 50 ms): past the wait, then followed to its end.
            let slow = try await fixture.ferry(
                ["submit", fixture.origin.url("/bytes/\(8 << 20)?pace_ms=50"), "--wait", "-v", "--json"], key: key, timeout: .seconds(120))
            CLIFixture.expectStatus(slow, 0)
            #expect(slow.standardError.contains("/events"), "followed after the wait: \(slow.summary)")
            #expect(GatewayCLIFixture.object(slow)["state"] as? String == "succeeded", "\(slow.summary)")
        }
    }

    // `ferry list` follows next_cursor to the last page; --json gives every job of every page.
    @Test func listFollowsTheCursor() async throws {
        try await GatewayCLIFixture.with { fixture in
            let key = try await fixture.tenantKey()
            var ids: Set<String> = []
            for size in 1...5 { ids.insert(try await fixture.submit(fixture.origin.url("/bytes/\(size)"), key: key)) }

            let list = try await fixture.ferry(["list", "--page-size", "2", "--json", "-v"], key: key)
            CLIFixture.expectStatus(list, 0)
            let jobs = try #require(GatewayCLIFixture.object(list)["jobs"] as? [[String: Any]], "\(list.summary)")
            #expect(Set(jobs.compactMap { $0["id"] as? String }) == ids)
            #expect(jobs.count == 5)
            // Three pages of 2, 2 and 1, the later two asked for with the cursor the previous gave.
            let requests = list.standardErrorLines.filter { $0.hasPrefix("> GET ") }
            #expect(requests.count == 3, "\(list.standardError)")
            #expect(requests.dropFirst().allSatisfy { $0.contains("cursor=") }, "\(requests)")
        }
    }

    // Pause, resume and cancel a running job; a cancelled job cannot be resumed, and watching it
    // ends with exit status 3.
    @Test func pauseResumeCancel() async throws {
        try await GatewayCLIFixture.with { fixture in
            let key = try await fixture.tenantKey()
            // About 60 s of body: long enough to be controlled while it runs on a loaded machine.
            let id = try await fixture.submit(fixture.origin.url("/drip?bytes=600000&chunks=600&delay_ms=100"), key: key)
            let running = try await fixture.waitForState(id, ["running"], key: key)
            #expect(running["state"] as? String == "running")

            let pause = try await fixture.ferry(["pause", id], key: key)
            CLIFixture.expectStatus(pause, 0)
            #expect(GatewayCLIFixture.text(pause).hasPrefix("job \(id): "), "\(pause.summary)")
            #expect(try await fixture.waitForState(id, ["paused"], key: key)["state"] as? String == "paused")

            let resume = try await fixture.ferry(["resume", id, "--json"], key: key)
            CLIFixture.expectStatus(resume, 0)
            #expect(GatewayCLIFixture.object(resume)["id"] as? String == id, "\(resume.summary)")
            #expect(try await fixture.waitForState(id, ["queued", "running"], key: key)["state"] != nil)

            let cancel = try await fixture.ferry(["cancel", id], key: key)
            CLIFixture.expectStatus(cancel, 0)
            #expect(try await fixture.waitForState(id, ["cancelled"], key: key)["state"] as? String == "cancelled")

            let again = try await fixture.ferry(["resume", id], key: key)
            CLIFixture.expectStatus(again, 1)
            #expect(again.standardErrorLines.last?.hasSuffix("(illegal_transition)") == true, "\(again.summary)")

            let watch = try await fixture.ferry(["watch", id], key: key)
            CLIFixture.expectStatus(watch, 3)
            #expect(watch.standardErrorLines.last == "ferry: job \(id) was cancelled", "\(watch.summary)")
            #expect(GatewayCLIFixture.field("state", in: GatewayCLIFixture.text(watch)) == "cancelled")
        }
    }

    // UP-03: `ferry upload` streams the file to the gateway as a blob, and the upload job sends
    // exactly its bytes to the destination.
    @Test func uploadAFile() async throws {
        try await GatewayCLIFixture.with { fixture in
            let key = try await fixture.tenantKey()
            let bytes = Data((0..<150_000).map { _ in UInt8.random(in: 0...255) })
            let file = fixture.directory.appendingPathComponent("upload.bin")
            try bytes.write(to: file)

            let upload = try await fixture.ferry(
                ["upload", file.path, "--to", fixture.origin.url("/echo"), "-X", "PUT", "-H", "X-Trace: 7", "--wait", "--json"], key: key)
            CLIFixture.expectStatus(upload, 0)
            let job = GatewayCLIFixture.object(upload)
            #expect(job["kind"] as? String == "upload")
            #expect(job["state"] as? String == "succeeded", "\(upload.summary)")
            let received = fixture.origin.requests.filter { $0.path == "/echo" && $0.method == "PUT" }
            #expect(received.count == 1)
            #expect(received.last?.bodyLength == 150_000)

            // The destination's answer is the job's content: its echo of what it received.
            let id = try #require(job["id"] as? String)
            let echoFile = fixture.directory.appendingPathComponent("echo.json")
            CLIFixture.expectStatus(try await fixture.ferry(["content", id, "-o", echoFile.path], key: key), 0)
            let echo = try EchoReport(try #require(CLIFixture.contents(echoFile)))
            #expect(echo.body == bytes)
            #expect(echo.header("X-Trace") == "7")
        }
    }

    // ER-01 for the client: refusals end with status 1 and the problem's detail and code; the API
    // key never appears in what ferry prints, -v included; usage problems end with status 2.
    @Test func failuresAreReportedWithoutTheKey() async throws {
        try await GatewayCLIFixture.with { fixture in
            let key = try await fixture.tenantKey()
            let unknown = UUID().uuidString.lowercased()

            let wrongKey = "ferry_wrong_" + UUID().uuidString.lowercased()
            let refused = try await fixture.ferry(["status", unknown, "-v"], key: wrongKey)
            CLIFixture.expectStatus(refused, 1)
            #expect(refused.standardErrorLines.last == "ferry: the API key is unknown or revoked (invalid_api_key)", "\(refused.summary)")
            #expect(refused.standardError.contains("> Authorization: Bearer <redacted>"))
            #expect(!refused.standardError.contains(wrongKey) && !GatewayCLIFixture.text(refused).contains(wrongKey))

            let notFound = try await fixture.ferry(["status", unknown], key: key)
            CLIFixture.expectStatus(notFound, 1)
            // The detail is the gateway's, with the id as the API writes ids (lower case).
            #expect(notFound.standardErrorLines == ["ferry: job \(unknown) was not found (not_found)"], "\(notFound.summary)")

            let notFinished = try await fixture.ferry(["content", unknown, "-o", fixture.directory.appendingPathComponent("x").path], key: key)
            CLIFixture.expectStatus(notFinished, 1)
            #expect(notFinished.standardErrorLines.last?.hasSuffix("(not_found)") == true, "\(notFinished.summary)")
            #expect(!FileManager.default.fileExists(atPath: fixture.directory.appendingPathComponent("x").path))

            let noKey = try await fixture.ferry(["list"], key: nil)
            CLIFixture.expectStatus(noKey, 2)
            #expect(noKey.standardError.contains("FERRY_API_KEY"), "\(noKey.summary)")

            // A job that fails (nothing listens on its port): --wait ends with status 3 and the error.
            let closed = "http://127.0.0.1:\(try CLIFixture.closedPort())/nothing"
            let failed = try await fixture.ferry(["submit", closed, "--wait"], key: key, timeout: .seconds(120))
            CLIFixture.expectStatus(failed, 3)
            #expect(failed.standardErrorLines.last?.contains("failed: ") == true, "\(failed.summary)")
            #expect(GatewayCLIFixture.field("state", in: GatewayCLIFixture.text(failed)) == "failed")
        }
    }

    // LC-12 for gateway jobs: `ferry watch` draws the progress bar from the job's event stream
    // (GET /v1/jobs/{id}/events) and ends with the job's final state. Needs ferryd's event streams
    // (the server side): against a ferryd without them, watch falls back to polling and the
    // stream assertion below fails.
    @Test func watchDrawsTheBarFromTheEventStream() async throws {
        try await GatewayCLIFixture.with { fixture in
            let key = try await fixture.tenantKey()
            let id = try await fixture.submit(fixture.origin.url("/drip?bytes=400000&chunks=40&delay_ms=100"), key: key)
            let terminal = try PseudoTerminal()
            let watch = try await fixture.ferry(["watch", id, "-v"], key: key, terminal: terminal)
            CLIFixture.expectStatus(watch, 0)
            let screen = watch.standardError
            #expect(screen.contains("* streaming events from /v1/jobs/\(id)/events"), "\(screen.debugDescription)")
            #expect(screen.contains("job \(id): succeeded"))
            #expect(screen.contains("390.6 KiB / 390.6 KiB"), "\(screen.debugDescription)")
            #expect(screen.contains("100%"))
            #expect(GatewayCLIFixture.field("state", in: GatewayCLIFixture.text(watch)) == "succeeded")
        }
    }
}
