import PostgresNIO

extension JobQueue {
    /// LISTENs on `channel` on a connection of its own and calls `ring` for every notification, until
    /// the connection fails (it throws then) or the task is cancelled.
    package func listenForWork(_ ring: @escaping @Sendable () -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                for try await _ in notifications { ring() }
            }
        }
    }
}
