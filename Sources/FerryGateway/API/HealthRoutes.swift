import Hummingbird
import Logging
import PostgresNIO

/// `/healthz` (the process answers) and `/readyz` (and its database does), without authentication.
struct HealthRoutes {
    let client: PostgresClient
    let logger: Logger

    struct Status: ResponseEncodable {
        var status: String
    }

    func add(to router: Router<GatewayRequestContext>) {
        router.get("/healthz") { _, _ in Status(status: "ok") }
        router.get("/readyz") { _, _ in
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { for try await _ in try await client.query("SELECT 1", logger: logger) {} }
                    group.addTask {
                        try await Task.sleep(for: .seconds(2))
                        throw CancellationError()
                    }
                    try await group.next()
                    group.cancelAll()
                }
            } catch {
                throw Problem(.serviceUnavailable, code: "database_unavailable", "the database does not answer")
            }
            return Status(status: "ready")
        }
    }
}
