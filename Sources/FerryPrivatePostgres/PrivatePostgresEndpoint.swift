import PostgresNIO

/// How to reach a running private cluster: its Unix socket, the user and the database ferryd uses.
public struct PrivatePostgresEndpoint: Sendable, Equatable, CustomStringConvertible {
    public let socketDirectory: String
    public let port: Int
    public let user: String
    public let database: String

    public init(socketDirectory: String, port: Int, user: String, database: String) {
        self.socketDirectory = socketDirectory
        self.port = port
        self.user = user
        self.database = database
    }

    /// The socket file itself, as PostgreSQL names it inside the socket directory.
    public var socketPath: String { "\(socketDirectory)/.s.PGSQL.\(port)" }

    /// Connects over the socket as the cluster's superuser; no password, because the cluster
    /// trusts local connections and nothing else can reach its socket (mode 0700 directory).
    public var clientConfiguration: PostgresClient.Configuration {
        clientConfiguration(database: database)
    }

    /// The same server, another database (`postgres` for administration, one per test in tests).
    public func clientConfiguration(database: String) -> PostgresClient.Configuration {
        PostgresClient.Configuration(unixSocketPath: socketPath, username: user, password: nil, database: database)
    }

    /// The same, for a single `PostgresConnection` (one-shot work).
    public func connectionConfiguration(database: String) -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(unixSocketPath: socketPath, username: user, password: nil, database: database)
    }

    public var description: String { "database \(database) as \(user) through \(socketPath)" }
}
