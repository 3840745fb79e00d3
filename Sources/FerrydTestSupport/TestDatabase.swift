import FerryPrivatePostgres
import FerryStore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// A fresh, empty database for one test, dropped when the test is done.
///
/// With `FERRY_TEST_DATABASE_URL` set, databases are created on that server (its user needs
/// CREATEDB). Otherwise the test process starts one throwaway private cluster (`PrivatePostgres`,
/// so as the unprivileged `ferry-postgres` user when running as root) the first time a test asks,
/// and stops it when the process exits. Each test gets its own database in it
/// (`CREATE DATABASE test_<random>`), so tests run in parallel without seeing each other's rows.
public struct TestDatabase: Sendable {
    public let name: String
    public let clientConfiguration: PostgresClient.Configuration
    public let connectionConfiguration: PostgresConnection.Configuration
    /// The same database as a `FERRY_DATABASE_URL`, for ferryd processes.
    public let url: String

    public static let logger = Logger(label: "ferry.tests.database")

    /// Runs `body` with a database of its own.
    public static func withFresh<Result: Sendable>(_ body: (TestDatabase) async throws -> Result) async throws -> Result {
        let server = try await TestDatabaseServer.shared.server()
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await server.administer("CREATE DATABASE \(unescaped: name)")
        let database = TestDatabase(
            name: name,
            clientConfiguration: server.clientConfiguration(name),
            connectionConfiguration: try server.connectionConfiguration(name),
            url: server.url(name))
        do {
            let result = try await body(database)
            try await server.administer("DROP DATABASE \(unescaped: name) WITH (FORCE)")
            return result
        } catch {
            try? await server.administer("DROP DATABASE \(unescaped: name) WITH (FORCE)")
            throw error
        }
    }

    /// Runs `body` on a connection to this database.
    public func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await PostgresConnection.withConnection(configuration: connectionConfiguration, logger: Self.logger, body)
    }
}

/// The server test databases are created on: one per test process.
public actor TestDatabaseServer {
    public static let shared = TestDatabaseServer()

    public struct Server: Sendable {
        /// Where CREATE/DROP DATABASE are run.
        public let administration: PostgresConnection.Configuration
        public let clientConfiguration: @Sendable (String) -> PostgresClient.Configuration
        public let connectionConfiguration: @Sendable (String) throws -> PostgresConnection.Configuration
        public let url: @Sendable (String) -> String

        public func administer(_ statement: PostgresQuery) async throws {
            try await PostgresConnection.withConnection(configuration: administration, logger: TestDatabase.logger) { connection in
                try await PostgresProbe.execute(statement, on: connection)
            }
        }
    }

    private var starting: Task<Server, any Error>?

    public func server() async throws -> Server {
        if let starting {
            return try await starting.value
        }
        let task = Task { try await Self.start() }
        starting = task
        return try await task.value
    }

    private static func start() async throws -> Server {
        if let text = ProcessInfo.processInfo.environment["FERRY_TEST_DATABASE_URL"], !text.isEmpty {
            let url = try DatabaseURL(parsing: text, origin: "FERRY_TEST_DATABASE_URL")
            return Server(
                administration: try url.connectionConfiguration(database: url.database),
                clientConfiguration: { url.clientConfiguration(database: $0) },
                connectionConfiguration: { try url.connectionConfiguration(database: $0) },
                url: { database in
                    var components = URLComponents(string: text)
                    components?.path = "/\(database)"
                    return components?.string ?? text
                })
        }
        TestClusterRegistry.stopClustersOfDeadTestProcesses()
        let dataDirectory = TestClusterRegistry.newClusterDirectory()
        let cluster = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: TestDatabase.logger)
        let endpoint = try await cluster.start()
        return Server(
            administration: endpoint.connectionConfiguration(database: "postgres"),
            clientConfiguration: { endpoint.clientConfiguration(database: $0) },
            connectionConfiguration: { endpoint.connectionConfiguration(database: $0) },
            url: { "postgres://\(endpoint.user)@localhost:\(endpoint.port)/\($0)?host=\(endpoint.socketDirectory)&sslmode=disable" })
    }
}

/// The test process's own cluster directory, stopped and removed at process exit.
///
/// Directories are named `<pid>-<random>` under one folder, so that a later test run can tell the
/// clusters of test processes that died without running their exit handler (a crash, SIGKILL) and
/// stop those: no run leaves servers behind for the next.
public enum TestClusterRegistry {
    public static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-test-clusters").path
    private static let registered = Mutex<[String]>([])

    public static func newClusterDirectory() -> String {
        TestProcessCleanup.prepare()
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let path = "\(folder)/\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        registered.withLock { $0.append(path) }
        return path
    }

    /// Stops this process's clusters, blocking (nothing can be awaited at exit).
    public static func stopRegistered() {
        for directory in registered.withLock({ $0 }) {
            try? PrivatePostgres.stopServerNow(dataDirectory: directory)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    public static func stopClustersOfDeadTestProcesses() {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for entry in entries {
            guard let pid = entry.split(separator: "-").first.flatMap({ Int32($0) }), pid != getpid() else { continue }
            let alive = kill(pid, 0) == 0 || errno == EPERM
            if !alive {
                try? PrivatePostgres.stopServerNow(dataDirectory: "\(folder)/\(entry)")
                try? FileManager.default.removeItem(atPath: "\(folder)/\(entry)")
            }
        }
    }
}

/// What the test process does at exit so that no PostgreSQL process outlives `swift test`.
///
/// Besides stopping its own cluster, it collects the exits of servers it adopted: like ferryd, the
/// test process is a child subreaper (see `PrivatePostgresReaper`), so a server started by a ferryd
/// subprocess that exited before the server was stopped comes to it, and would otherwise linger as
/// a zombie once stopped.
public enum TestProcessCleanup {
    private static let installed: Bool = {
        PrivatePostgresReaper.adoptOrphanedServers()
        atexit { TestProcessCleanup.run() }
        return true
    }()

    public static func prepare() {
        _ = installed
    }

    private static func run() {
        TestClusterRegistry.stopRegistered()
        // At exit nobody else waits for these children any more.
        var status: Int32 = 0
        while waitpid(-1, &status, WNOHANG) > 0 {}
    }
}
