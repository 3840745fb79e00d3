import FerrydTestSupport
import Foundation
import Testing
import URLLoadingTestSupport

/// A live ferryd (on a fresh test database) and the loopback origin its jobs fetch from, for running
/// the `ferry` gateway commands against.
struct GatewayCLIFixture: Sendable {
    let origin: OriginServer
    let server: FerrydServer
    let adminKey: String
    /// A scratch directory for files the test writes and reads.
    let directory: URL

    static func with<Result: Sendable>(_ body: (GatewayCLIFixture) async throws -> Result) async throws -> Result {
        try await TestDatabase.withFresh { database in
            try await CLIFixture.withTemporaryDirectory { directory in
                try await OriginServer.withRunning { origin in
                    let adminKey = "ferry_test_admin_" + UUID().uuidString.lowercased()
                    return try await FerrydServer.withRunning(
                        databaseURL: database.url, dataDirectory: directory.appendingPathComponent("ferryd").path, adminKey: adminKey
                    ) { server in
                        try await body(GatewayCLIFixture(origin: origin, server: server, adminKey: adminKey, directory: directory))
                    }
                }
            }
        }
    }

    /// Runs `ferry` with FERRY_URL set to this ferryd and FERRY_API_KEY to `key` (unset when nil).
    func ferry(
        _ arguments: [String], key: String?, terminal: PseudoTerminal? = nil, timeout: Duration = .seconds(90)
    ) async throws -> FerryResult {
        var environment = ["FERRY_URL": server.baseURL]
        if let key { environment["FERRY_API_KEY"] = key }
        return try await FerryProcess.run(arguments, terminal: terminal, environment: environment, timeout: timeout)
    }

    /// A new tenant's API key, made with `ferry admin tenants create --json`.
    func tenantKey(sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let result = try await ferry(["admin", "tenants", "create", "tenant-\(UUID().uuidString.prefix(6))", "--json"], key: adminKey)
        CLIFixture.expectStatus(result, 0, sourceLocation: sourceLocation)
        return try #require(Self.object(result)["api_key"] as? String, sourceLocation: sourceLocation)
    }

    /// Submits a job with `ferry submit` (not waiting) and returns its id.
    func submit(_ url: String, key: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let result = try await ferry(["submit", url], key: key)
        CLIFixture.expectStatus(result, 0, sourceLocation: sourceLocation)
        let id = Self.text(result).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id) != nil, "submit prints the new job's id: \(id)", sourceLocation: sourceLocation)
        return id
    }

    /// Asks `ferry status --json` until the job's state is one of `states` (up to `timeout`); returns the last job.
    func waitForState(
        _ id: String, _ states: Set<String>, key: String, timeout: Duration = .seconds(60)
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        var job: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            job = Self.object(try await ferry(["status", id, "--json"], key: key))
            if states.contains(job["state"] as? String ?? "") { return job }
            try await Task.sleep(for: .milliseconds(200))
        }
        return job
    }

    /// Standard output as text.
    static func text(_ result: FerryResult) -> String {
        String(decoding: result.standardOutput, as: UTF8.self)
    }

    /// Standard output as a JSON object; empty when it is not one.
    static func object(_ result: FerryResult) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: result.standardOutput)) as? [String: Any]) ?? [:]
    }

    /// The value of a `label:` line of `ferry status`'s text.
    static func field(_ label: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(label + ":") }
            .map { $0.dropFirst(label.count + 1).trimmingCharacters(in: .whitespaces) }
    }
}
