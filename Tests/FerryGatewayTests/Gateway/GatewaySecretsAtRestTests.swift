import FerryPrivatePostgres
import FerryVault
import Foundation
import Testing
import URLLoadingTestSupport

/// Secrets outside the credential vault are sealed at rest too (issue 18, "Secrets and storage"):
/// webhook signing secrets, credential-bearing headers of jobs and sessions, a proxy's password,
/// session cookie values and resume data. A `pg_dump` of the database shows none of them, and
/// `ferryd admin rotate-vault-key` seals them again under a new key without changing what they do
/// (AU-14 for headers sent as given, CK-09 for the jar, DL-07 for resume data).
@Suite("Gateway secrets at rest", .timeLimit(.minutes(8)))
struct GatewaySecretsAtRestTests {
    /// The whole database as `pg_dump` writes it, with the private cluster's own programs.
    static func dump(_ database: TestDatabase) throws -> Data {
        let binaries = try PrivatePostgresBinaries.locate()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(binaries.directory)/pg_dump")
        process.arguments = ["--dbname=\(database.url)", "--no-owner"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let dumped = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "pg_dump: \(String(decoding: complaint, as: UTF8.self))")
        return dumped
    }

    /// Submits `job` and waits for its end.
    static func run(_ client: GatewayClient, _ job: [String: Any]) async throws -> [String: Any] {
        try await client.waitForState(try await client.submit(job), ["succeeded", "failed"])
    }

    /// Which of `secrets` (by label) occur in `dump`, byte for byte, each with the dump's line that holds it.
    static func found(_ secrets: [String: String], in dump: Data) -> [String] {
        let lines = String(decoding: dump, as: UTF8.self).split(separator: "\n")
        return secrets.filter { dump.range(of: Data($0.value.utf8)) != nil }
            .map { secret in "\(secret.key): \(lines.first { $0.contains(secret.value) }.map { String($0.prefix(400)) } ?? "")" }.sorted()
    }

    @Test("a pg_dump shows no webhook secret, job or session header, proxy password, cookie value or resume data; after rotate-vault-key a ferryd with only the new key signs with the same secrets and sends the same headers, and the old key is nowhere")
    func sealedAndRotated() async throws {
        let oldKey = VaultKey.generateText()
        let newKey = VaultKey.generateText()
        let oldID = try VaultKey(base64: oldKey).id
        let newID = try VaultKey(base64: newKey).id
        let mark = UUID().uuidString.prefix(8).lowercased()
        let jobToken = "job-bearer-\(mark)"
        let pausedToken = "paused-bearer-\(mark)"
        let sessionKey = "session-api-key-\(mark)"
        let proxyPassword = "proxy-password-\(mark)"
        let cookieValue = "cookie-value-\(mark)"

        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with(options: .init(vaultKeys: [oldKey])) { fixture in
                let (_, client) = try await fixture.tenant()
                let tenantSecret = try #require(try await client.get("/v1/webhooks/secret")["secret"] as? String)
                let endpoint = try await client.post(
                    "/v1/webhooks/endpoints", json: ["url": receiver.url("/endpoint"), "events": ["job.succeeded"]])
                let endpointSecret = try #require(endpoint["secret"] as? String)

                // A job with an Authorization header, run to its end.
                let plainJob = try await Self.run(
                    client, ["kind": "download", "request": ["url": fixture.origin.url("/bytes/1000"), "headers": ["Authorization": "Bearer \(jobToken)"]]])
                #expect(plainJob["state"] as? String == "succeeded", "\(plainJob)")

                // A session with a secret header whose job is given a cookie; another with a proxy password.
                let session = try #require(try await client.post(
                    "/v1/sessions", json: ["kind": "default", "configuration": ["additional_headers": ["X-Api-Key": sessionKey, "X-Team": "blue"]]]
                )["id"] as? String)
                // Percent-encoded whole, so that the job's URL (stored plain, as every URL is) does not spell the value.
                let encodedCookie = cookieValue.utf8.map { String(format: "%%%02X", $0) }.joined()
                let login = try await client.download(fixture.origin.url("/cookies/login/set?sid=\(encodedCookie)"), ["session": session])
                #expect(login["state"] as? String == "succeeded", "\(login)")
                #expect(fixture.origin.requests.last { $0.path == "/cookies/login/set" }?.header("X-Api-Key") == sessionKey)
                let proxied = try await client.post(
                    "/v1/sessions", json: ["configuration": ["proxy": "http://scout:\(proxyPassword)@127.0.0.1:3128"]])
                #expect(proxied.status == 201, "\(proxied.text)")
                let proxiedView = try await client.get("/v1/sessions/\(try #require(proxied["id"] as? String))")
                let shownProxy = (proxiedView["configuration"] as? [String: Any])?["proxy"] as? String ?? ""
                #expect(shownProxy.contains("scout:") && shownProxy.contains("redacted") && !shownProxy.contains(proxyPassword), "\(shownProxy)")
                let sessionView = try await client.get("/v1/sessions/\(session)")
                let shownHeaders = (sessionView["configuration"] as? [String: Any])?["additional_headers"] as? [String: Any]
                #expect(shownHeaders?["x-api-key"] as? String == "<redacted>" && shownHeaders?["x-team"] as? String == "blue", "\(sessionView.text)")

                // A slow download with an Authorization header, paused with resume data.
                let paused = try await client.submit([
                    "kind": "download",
                    "request": ["url": fixture.origin.url("/bytes/\(8 << 20)?pace_ms=50"), "headers": ["Authorization": "Bearer \(pausedToken)"]],
                ])
                _ = try await client.waitForJob(paused) { (($0["progress"] as? [String: Any])?["bytes_done"] as? Int ?? 0) > 200_000 }
                #expect(try await client.post("/v1/jobs/\(paused)/pause").status == 202)
                #expect(try await client.waitForState(paused, ["paused"])["state"] as? String == "paused")
                #expect(await DatabaseQuery.bool("SELECT resume_data ? 'sealed' AND resume_data ? 'partial_file' FROM jobs WHERE id = '\(paused)'", fixture.database))

                let secrets = [
                    "tenant webhook secret": tenantSecret, "endpoint secret": endpointSecret, "job Authorization": jobToken,
                    "paused job Authorization": pausedToken, "session header": sessionKey, "proxy password": proxyPassword,
                    "cookie value": cookieValue,
                ]
                let before = try Self.dump(fixture.database)
                #expect(before.range(of: Data("/cookies/login/set".utf8)) != nil, "the dump holds the jobs")
                #expect(before.range(of: Data(oldID.utf8)) != nil, "and values sealed under the old key")
                #expect(Self.found(secrets, in: before) == [], "no secret in the dump")

                // Rotation: every value sealed again under the new key.
                let rotation = try await GatewayVaultTests.ferryd(
                    ["admin", "rotate-vault-key"], databaseURL: fixture.database.url, dataDirectory: fixture.dataDirectory, vaultKeys: [newKey, oldKey])
                #expect(rotation.status == 0, "\(rotation.standardOutput)\(rotation.standardError)")
                #expect(rotation.standardOutput.contains("sealed again under vault key \(newID): 1 tenant webhook secret(s), 1 webhook endpoint secret(s)"),
                        "\(rotation.standardOutput)")
                #expect(!rotation.standardOutput.contains(cookieValue) && !rotation.standardError.contains(cookieValue))

                _ = try await fixture.server.terminate()
                let renewed = try await fixture.startAnother(name: "ferryd-new-key", options: .init(vaultKeys: [newKey]))
                do {
                    let client = client.with(baseURL: renewed.baseURL)
                    #expect(try await client.get("/v1/webhooks/secret")["secret"] as? String == tenantSecret, "the same tenant secret")

                    // The paused job continues, sending its header again (from its opened resume data and request).
                    #expect(try await client.post("/v1/jobs/\(paused)/resume").status == 200)
                    let resumed = try await client.waitForState(paused, ["succeeded", "failed"])
                    #expect(resumed["state"] as? String == "succeeded", "\(resumed)")
                    let continued = fixture.origin.requests.filter { $0.path == "/bytes/\(8 << 20)" && $0.header("Range") != nil }
                    #expect(!continued.isEmpty && continued.allSatisfy { $0.header("Authorization") == "Bearer \(pausedToken)" })

                    // The session's next job sends its header and its cookie, both opened with the new key.
                    let page = try await client.download(fixture.origin.url("/cookies/app/require?name=sid"), ["session": session])
                    #expect(page["state"] as? String == "succeeded", "\(page)")
                    let sent = fixture.origin.requests.last { $0.path == "/cookies/app/require" }
                    #expect(sent?.header("Cookie") == "sid=\(cookieValue)" && sent?.header("X-Api-Key") == sessionKey)
                    let jar = try await client.get("/v1/sessions/\(session)/cookies")
                    #expect((jar["cookies"] as? [[String: Any]])?.first?["value"] as? String == cookieValue)

                    // Webhooks are signed with the same secrets as before the rotation.
                    let signed = try await Self.run(
                        client, ["kind": "download", "callback": ["url": receiver.url("/job")], "request": ["url": fixture.origin.url("/bytes/10")]])
                    let id = try #require(signed["id"] as? String)
                    let received = try await receiver.waitFor {
                        $0.contains { $0.path == "/job" && $0.job["id"] as? String == id } && $0.contains { $0.path == "/endpoint" && $0.job["id"] as? String == id }
                    }
                    let callback = try #require(received.first { $0.path == "/job" && $0.job["id"] as? String == id })
                    let toEndpoint = try #require(received.first { $0.path == "/endpoint" && $0.job["id"] as? String == id })
                    #expect(StandardWebhookVerifier.isValid(callback, secret: tenantSecret))
                    #expect(StandardWebhookVerifier.isValid(toEndpoint, secret: endpointSecret))

                    let after = try Self.dump(fixture.database)
                    #expect(Self.found(secrets, in: after) == [], "still no secret in the dump")
                    #expect(after.range(of: Data(oldID.utf8)) == nil, "nothing is sealed under the old key any more")
                    #expect(after.range(of: Data(newID.utf8)) != nil)
                    #expect(!renewed.log.contains(cookieValue) && !renewed.log.contains(pausedToken), "secrets are never logged")
                    _ = try await renewed.terminate()
                } catch {
                    print("ferryd log:\n\(renewed.log)")
                    _ = try? await renewed.terminate()
                    throw error
                }
            }
        }
    }
}
