import FerryMetrics
import FerryModel
import FerryPrivatePostgres
@testable import FerryStore
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

/// `DatabasePool` on a private cluster that the test stops and starts (issue 18, "the database goes
/// away"): calls are refused at once with `database_unavailable` while it is away, never left waiting
/// in PostgresNIO's pool, and the pool serves again once it is back.
@Suite("Database pool", .timeLimit(.minutes(3)))
struct DatabasePoolTests {
    let logger = Logger(label: "ferry.tests.database-pool")

    @Test("stopped: queries, transactions and leased connections fail with database_unavailable instead of waiting; started again: they succeed")
    func refusesWhileAwayAndServesOnceBack() async throws {
        try await TemporaryDirectory.withNew { directory in
            let cluster = PrivatePostgres(dataDirectory: directory, durability: .throwaway, logger: logger)
            let endpoint = try await cluster.start()
            let pool = DatabasePool(
                clientConfiguration: endpoint.clientConfiguration(database: endpoint.database),
                probeConfiguration: endpoint.connectionConfiguration(database: endpoint.database), logger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await pool.run() }
                defer { group.cancelAll() }
                #expect(try await Self.one(pool) == 1)

                try await cluster.stop()
                // `stop()` leaves the server running when it cannot be sure it is the last user (a process
                // being spawned elsewhere in this test run holds a copy of the users lock for a moment); this
                // test owns the cluster, so the server goes whatever else holds the lock.
                try PrivatePostgres.stopServerNow(dataDirectory: directory)
                // Whatever the pool knows yet, each kind of call ends with the refusal, not a wait
                // (the test's time limit would catch a wait for the database's return: it never returns here).
                await Self.expectEveryCallRefused(pool, "stopped", logger: logger)
                #expect(!pool.isAvailable)
                #expect(!pool.hasBeenAvailable(for: .zero))

                _ = try await cluster.start()
                await pool.waitUntilAvailable(atMost: .seconds(30))
                #expect(pool.isAvailable)
                #expect(try await Self.one(pool) == 1)
                // Just back: not yet available for a lease's length (WorkerPool takes no leases back meanwhile).
                #expect(!pool.hasBeenAvailable(for: .seconds(600)))
                try await cluster.stop()
            }
        }
    }

    @Test("the server refuses the database (no longer accepting connections, FATAL 55000; then renamed away, FATAL 3D000): calls fail with database_unavailable instead of waiting a minute in PostgresNIO's pool; given back, they succeed")
    func refusesWhileTheServerRefusesTheDatabase() async throws {
        try await TemporaryDirectory.withNew { directory in
            let cluster = PrivatePostgres(dataDirectory: directory, durability: .throwaway, logger: logger)
            let endpoint = try await cluster.start()
            let database = endpoint.database
            let pool = DatabasePool(
                clientConfiguration: endpoint.clientConfiguration(database: database),
                probeConfiguration: endpoint.connectionConfiguration(database: database), logger: logger)
            let maintenance = endpoint.connectionConfiguration(database: "postgres")
            func administer(_ sql: String) async throws {
                try await PostgresConnection.withConnection(configuration: maintenance, logger: logger) { connection in
                    for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {}
                }
            }
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await pool.run() }
                defer { group.cancelAll() }
                #expect(try await Self.one(pool) == 1)

                // The server stays up; its connections to the database end and new ones are refused.
                try await administer("ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
                try await administer("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
                // As in the stopped case, the suite's time limit catches a call left waiting: each
                // would wait a minute in PostgresClient, nine of them longer than the limit.
                await Self.expectEveryCallRefused(pool, "not accepting connections", logger: logger)
                #expect(!pool.isAvailable)

                // Renamed, as if dropped: a terminated backend may still be leaving, so the rename is retried.
                try await Self.retrying { try await administer("ALTER DATABASE \(database) RENAME TO \(database)_away") }
                await Self.expectRefusal("query, renamed away") { _ = try await Self.one(pool) }
                await Self.expectRefusal("connection, renamed away") { try await pool.withConnection { _ in } }

                try await administer("ALTER DATABASE \(database)_away RENAME TO \(database)")
                try await administer("ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
                await pool.waitUntilAvailable(atMost: .seconds(30))
                #expect(pool.isAvailable)
                #expect(try await Self.one(pool) == 1)
                try await cluster.stop()
            }
        }
    }

    /// `body`, again after a moment while it fails, at most ten times.
    static func retrying(_ body: () async throws -> Void) async throws {
        for attempt in 1... {
            do {
                return try await body()
            } catch where attempt < 10 {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    @Test("each connection and transaction call records its wait for a connection in ferry_database_pool_wait_seconds; single queries lease inside PostgresNIO and record none")
    func recordsWaitsForConnections() async throws {
        try await TemporaryDirectory.withNew { directory in
            let cluster = PrivatePostgres(dataDirectory: directory, durability: .throwaway, logger: logger)
            let endpoint = try await cluster.start()
            let exposition = PrometheusExposition()
            var clientConfiguration = endpoint.clientConfiguration(database: endpoint.database)
            // One connection: the concurrent calls below queue for it.
            clientConfiguration.options.maximumConnections = 1
            let pool = DatabasePool(
                clientConfiguration: clientConfiguration, probeConfiguration: endpoint.connectionConfiguration(database: endpoint.database),
                metrics: GatewayMetrics(factory: exposition.factory), logger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await pool.run() }
                defer { group.cancelAll() }
                for _ in 0..<4 { #expect(try await Self.one(pool) == 1) }
                try await withThrowingTaskGroup(of: Void.self) { calls in
                    for index in 0..<6 {
                        calls.addTask {
                            if index.isMultiple(of: 2) {
                                try await pool.withConnection { connection in
                                    for try await _ in try await connection.query("SELECT pg_sleep(0.05)", logger: logger) {}
                                }
                            } else {
                                try await pool.transaction(logger: logger) { connection in
                                    for try await _ in try await connection.query("SELECT pg_sleep(0.05)", logger: logger) {}
                                }
                            }
                        }
                    }
                    try await calls.waitForAll()
                }
                let parsed = try ParsedMetrics.parse(String(decoding: exposition.text(), as: UTF8.self))
                #expect(parsed["ferry_database_pool_wait_seconds"]?.type == "histogram")
                #expect(parsed.value("ferry_database_pool_wait_seconds_count") == 6, "three connections and three transactions, not the queries")
                #expect(parsed.value("ferry_database_pool_wait_seconds_bucket", ["le": "+Inf"]) == 6)
                try await cluster.stop()
            }
        }
    }

    @Test("calls made while the pool is starting wait until its client runs: PostgresNIO logs no warning for them (ferryd logged six at every start)")
    func callsMadeAtStartWaitForTheClientToRun() async throws {
        try await TemporaryDirectory.withNew { directory in
            let cluster = PrivatePostgres(dataDirectory: directory, durability: .throwaway, logger: logger)
            let endpoint = try await cluster.start()
            let records = RecordedLogLines()
            let recordingLogger = Logger(label: "ferry.tests.database-pool") { _ in records }
            let pool = DatabasePool(
                clientConfiguration: endpoint.clientConfiguration(database: endpoint.database),
                probeConfiguration: endpoint.connectionConfiguration(database: endpoint.database), logger: recordingLogger)
            try await withThrowingDiscardingTaskGroup { group in
                // The calls start first and race the pool's start, as the services of ferryd do.
                try await withThrowingTaskGroup(of: Int.self) { calls in
                    for _ in 0..<6 { calls.addTask { try await Self.one(pool) } }
                    group.addTask { try await pool.run() }
                    for try await value in calls { #expect(value == 1) }
                }
                group.cancelAll()
            }
            #expect(records.warnings.isEmpty, "\(records.warnings)")
            try await cluster.stop()
        }
    }

    static func one(_ pool: DatabasePool) async throws -> Int {
        for try await value in try await pool.query("SELECT 1", logger: nil).decode(Int.self) { return value }
        return 0
    }

    /// Each kind of call, three times, ends with the refusal: a query, a transaction and a leased connection.
    static func expectEveryCallRefused(_ pool: DatabasePool, _ situation: String, logger: Logger) async {
        for attempt in 0..<3 {
            await expectRefusal("query \(attempt), \(situation)") { _ = try await one(pool) }
            await expectRefusal("transaction \(attempt), \(situation)") {
                try await pool.transaction(logger: logger) { connection in
                    for try await _ in try await connection.query("SELECT 1", logger: logger) {}
                }
            }
            await expectRefusal("connection \(attempt), \(situation)") { try await pool.withConnection { _ in } }
        }
    }

    static func expectRefusal(_ what: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(what) succeeded while the database was away")
        } catch let error as GatewayError {
            #expect(error.code == "database_unavailable", "\(what): \(error)")
            #expect(error.kind == .unavailable)
            #expect(error.retryAfterSeconds != nil)
        } catch {
            Issue.record("\(what) failed with \(String(reflecting: error)), not the refusal")
        }
    }
}

/// The warnings and errors a logger was given, whatever its level says.
private final class RecordedLogLines: LogHandler, @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    var warnings: [String] { lines.withLock { $0 } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= .warning else { return }
        lines.withLock { $0.append("\(event.level): \(event.message)") }
    }
}
