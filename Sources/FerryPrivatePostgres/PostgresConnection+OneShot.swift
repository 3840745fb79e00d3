import Logging
import PostgresNIO

extension PostgresConnection {
    /// Opens one connection, runs `body` with it and closes it again.
    ///
    /// For one-shot work (`ferryd migrate`, creating a database, tests). Unlike a `PostgresClient`,
    /// whose pool keeps retrying a server it cannot reach while callers wait, this fails at once
    /// with the reason (connection refused, authentication failed, no such database).
    public static func withConnection<Result: Sendable>(
        configuration: PostgresConnection.Configuration,
        logger: Logger,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
