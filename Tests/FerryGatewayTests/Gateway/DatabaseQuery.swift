import Foundation
import PostgresNIO

/// One-value SQL questions tests ask a ferryd's database, and waiting until one answers as hoped.
enum DatabaseQuery {
    /// The first column of the first row, as text (nil for no row or NULL).
    static func text(_ sql: String, _ database: TestDatabase) async -> String? {
        try? await PostgresProbe.value(PostgresQuery(unsafeSQL: "SELECT (\(sql))::text"), as: String.self, on: database.connectionConfiguration)
    }

    static func bool(_ sql: String, _ database: TestDatabase) async -> Bool {
        await text(sql, database) == "true"
    }

    /// Polls `condition` every 100 ms until it holds (true) or `timeout` passes (false).
    static func wait(timeout: Duration, until condition: () async -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return await condition()
    }
}
