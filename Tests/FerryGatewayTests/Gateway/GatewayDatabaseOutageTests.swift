import FerryPrivatePostgres
import FerryStore
import Foundation
import Logging
import PostgresNIO
import Testing
import URLLoadingTestSupport

/// PostgreSQL stops under a running ferryd and starts again (issue 18, "the database goes away"):
/// a real `ferryd serve` on a private cluster this test starts, stops and starts itself.
@Suite("Gateway database outage", .timeLimit(.minutes(6)))
struct GatewayDatabaseOutageTests {
    /// About 26 s at 100 ms per 64 KiB: still running when the database comes back.
    static let longSize = 16 << 20
    /// About 6 s: ends while the database is away.
    static let shortSize = 4 << 20
    static let outage = Duration.seconds(10)

    @Test("PostgreSQL stopped for 10 s under load: API calls answer 503 database_unavailable with Retry-After without hanging, /readyz 503, /healthz 200; started again: the API answers, running downloads finish with the right bytes, each job ends once, never a 500")
    func databaseStoppedAndStartedUnderLoad() async throws {
        try await TemporaryDirectory.withNew { directory in
            var logger = Logger(label: "ferry.tests.outage")
            logger.logLevel = .warning
            // Not the shared test cluster: this one is stopped in the middle of the test.
            let cluster = PrivatePostgres(dataDirectory: directory, durability: .throwaway, logger: logger)
            let endpoint = try await cluster.start()
            let url = "postgres://\(endpoint.user)@localhost:\(endpoint.port)/\(endpoint.database)?host=\(endpoint.socketDirectory)&sslmode=disable"
            try await OriginServer.withRunning { origin in
                let adminKey = "ferry_test_admin_" + UUID().uuidString.lowercased()
                try await FerrydServer.withRunning(
                    databaseURL: url, dataDirectory: "\(directory)/ferryd", adminKey: adminKey, options: .init(workers: 4, leaseSeconds: 5)
                ) { server in
                    // A second process on the database: once it is back, it must not take over the
                    // first one's jobs although their leases ran out while nobody could renew them.
                    let second = try await FerrydServer.start(
                        databaseURL: url, dataDirectory: "\(directory)/ferryd", adminKey: adminKey, options: .init(workers: 4, leaseSeconds: 5),
                        name: "second")
                    do {
                        let admin = GatewayClient(baseURL: server.baseURL, key: adminKey, session: GatewayFixture.engine)
                        let tenant = admin.with(key: try await admin.createTenant("outage").key)
                        let finished = try await tenant.submit(["kind": "download", "request": ["url": origin.url("/bytes/100")]])
                        _ = try await tenant.waitForState(finished, ["succeeded"])
                        let sizes = [Self.longSize, Self.longSize, Self.shortSize]
                        var downloads: [String] = []
                        for size in sizes {
                            downloads.append(try await tenant.submit(["kind": "download", "request": ["url": origin.url("/bytes/\(size)?pace_ms=100")]]))
                        }
                        for id in downloads {
                            let running = try await tenant.waitForJob(id) { (($0["progress"] as? [String: Any])?["bytes_done"] as? Int ?? 0) > 0 }
                            #expect(running["state"] as? String == "running", "\(running)")
                        }

                        try await cluster.stop()
                        // `stop()` leaves the server running when it cannot be sure it is the last user (a process
                        // being spawned elsewhere in this test run holds a copy of the users lock for a moment); this
                        // test owns the cluster, so the server goes whatever else holds the lock.
                        try PrivatePostgres.stopServerNow(dataDirectory: directory)
                        // A job view read in the last 200 ms is answered from memory (RecentJobs), database or
                        // not: the polls above may have just read one.
                        try await Task.sleep(for: .milliseconds(300))
                        let restartAt = ContinuousClock.now + Self.outage
                        var calls = 0
                        while ContinuousClock.now < restartAt {
                            let replies: [(String, GatewayClient.Reply, Duration)] = [
                                try await Self.timed("GET /v1/jobs") { try await tenant.get("/v1/jobs") },
                                try await Self.timed("GET /v1/jobs/{id}") { try await tenant.get("/v1/jobs/\(downloads[0])") },
                                try await Self.timed("POST /v1/jobs") {
                                    try await tenant.post("/v1/jobs", json: ["kind": "download", "request": ["url": origin.url("/bytes/10")]])
                                },
                                try await Self.timed("POST /v1/jobs/{id}/pause") { try await tenant.post("/v1/jobs/\(finished)/pause") },
                                try await Self.timed("GET /readyz") { try await tenant.get("/readyz") },
                            ]
                            for (call, reply, took) in replies {
                                #expect(reply.status == 503, "\(call): \(reply.status) \(reply.text)")
                                #expect(reply.code == "database_unavailable", "\(call): \(reply.text)")
                                #expect(Int(reply.headers["Retry-After"] ?? "") ?? 0 > 0, "\(call): no Retry-After")
                                // A generous bound: the point is that nothing waits for the database to return.
                                #expect(took < .seconds(5), "\(call) took \(took)")
                            }
                            let health = try await tenant.get("/healthz")
                            #expect(health.status == 200)
                            calls += replies.count
                            try await Task.sleep(for: .milliseconds(500))
                        }
                        #expect(calls >= 10)

                        _ = try await cluster.start()
                        var back = false
                        let backBy = ContinuousClock.now + .seconds(30)
                        while !back, ContinuousClock.now < backBy {
                            let reply = try await tenant.get("/v1/jobs")
                            #expect(reply.status != 500, "\(reply.text)")
                            back = reply.status == 200
                            if !back { try await Task.sleep(for: .milliseconds(200)) }
                        }
                        #expect(back, "the API did not answer 200 again after the database came back")
                        #expect(try await tenant.get("/readyz").status == 200)

                        for (id, size) in zip(downloads, sizes) {
                            let job = try await tenant.waitForState(id, ["succeeded", "failed", "cancelled"], timeout: .seconds(120))
                            #expect(job["state"] as? String == "succeeded", "\(job)\n\(server.log)")
                            #expect((job["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(size))
                            let content = try await tenant.get("/v1/jobs/\(id)/content")
                            #expect(content.body.count == size)
                        }
                        let database = OutageDatabase(url: url)
                        for id in downloads {
                            // One attempt, never taken over by a worker while the database was away, and one end.
                            #expect(try await database.text("SELECT string_agg(outcome, ',' ORDER BY attempt) FROM job_attempts WHERE job_id = '\(id)'") == "succeeded")
                            #expect(try await database.text("SELECT count(*) FROM job_events WHERE job_id = '\(id)' AND type = 'job.succeeded'") == "1")
                        }
                        let fetched = origin.requests.filter { request in sizes.contains { request.path == "/bytes/\($0)" } }
                        #expect(fetched.count == downloads.count, "each download was fetched once: \(fetched.map(\.path))")
                    } catch {
                        print("second ferryd log:\n\(second.log)")
                        _ = try? await second.terminate()
                        throw error
                    }
                    _ = try await second.terminate()
                    #expect(!server.log.contains("request failed"), "a request failed with a 500:\n\(server.log)")
                }
            }
            try await cluster.stop()
        }
    }

    static func timed(_ call: String, _ body: () async throws -> GatewayClient.Reply) async throws -> (String, GatewayClient.Reply, Duration) {
        let started = ContinuousClock.now
        let reply = try await body()
        return (call, reply, ContinuousClock.now - started)
    }
}

/// One-value questions to the test's own cluster (`DatabaseQuery` asks the shared test database).
private struct OutageDatabase {
    let url: String

    func text(_ sql: String) async throws -> String? {
        let configuration = try DatabaseURL(parsing: url).connectionConfiguration(database: PrivatePostgres.databaseName)
        return try await PostgresProbe.value(PostgresQuery(unsafeSQL: "SELECT (\(sql))::text"), as: String.self, on: configuration)
    }
}
