import FerryPrivatePostgres
import Logging
import PostgresNIO

/// The database ferryd uses, as its configuration says: the server at `FERRY_DATABASE_URL`, or,
/// without one, the private cluster under the data directory, started here and stopped by `stop()`.
public struct GatewayDatabase: Sendable {
    /// How a `PostgresClient` (the service's pool) connects.
    public let clientConfiguration: PostgresClient.Configuration
    /// How a single `PostgresConnection` connects (one-shot work, see `withConnection`).
    public let connectionConfiguration: PostgresConnection.Configuration
    /// The private cluster, when that is what is used.
    public let privateCluster: PrivatePostgres?
    /// Where the database is, for the log; never contains a password.
    public let summary: String

    /// Makes the database reachable: for a URL there is nothing to start; otherwise the private
    /// cluster is created or reused, and started.
    public static func start(databaseURL: DatabaseURL?, dataDirectory: String, logger: Logger) async throws -> GatewayDatabase {
        if let url = databaseURL {
            return GatewayDatabase(
                clientConfiguration: url.clientConfiguration,
                connectionConfiguration: try url.connectionConfiguration(database: url.database),
                privateCluster: nil,
                summary: "\(url)")
        }
        let cluster = PrivatePostgres(dataDirectory: dataDirectory, logger: logger)
        let endpoint = try await cluster.start()
        return GatewayDatabase(
            clientConfiguration: endpoint.clientConfiguration,
            connectionConfiguration: endpoint.connectionConfiguration(database: endpoint.database),
            privateCluster: cluster,
            summary: "private cluster: \(endpoint)")
    }

    /// Runs `body` on a connection of its own, failing at once if the database cannot be reached.
    public func withConnection<Result: Sendable>(logger: Logger, _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await PostgresConnection.withConnection(configuration: connectionConfiguration, logger: logger, body)
    }

    /// Applies whatever of `migrations` is pending, on a connection of its own (`ferryd migrate`;
    /// the service passes its pool to `MigrationRunner` instead).
    public func applyMigrations(_ migrations: [Migration], from directory: String, logger: Logger) async throws -> MigrationReport {
        do {
            return try await withConnection(logger: logger) { connection in
                try await MigrationRunner(logger: logger).apply(migrations, directory: directory, on: connection)
            }
        } catch let error as MigrationError {
            throw error
        } catch {
            throw MigrationError.databaseFailed(step: "connect to \(summary)", reason: PostgresErrorDescription.describe(error))
        }
    }

    /// Stops the private cluster (unless another ferryd still uses it); nothing for an external server.
    public func stop() async throws {
        try await privateCluster?.stop()
    }

    package init(clientConfiguration: PostgresClient.Configuration, connectionConfiguration: PostgresConnection.Configuration, privateCluster: PrivatePostgres? = nil, summary: String) {
        self.clientConfiguration = clientConfiguration
        self.connectionConfiguration = connectionConfiguration
        self.privateCluster = privateCluster
        self.summary = summary
    }
}
