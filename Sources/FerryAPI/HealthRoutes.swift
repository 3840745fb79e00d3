import FerryStore
import Hummingbird

/// `/healthz` (the process answers) and `/readyz` (and its database does), without authentication.
struct HealthRoutes {
    let database: DatabaseProbe

    struct Status: ResponseEncodable {
        var status: String
    }

    func add(to router: Router<GatewayRequestContext>) {
        router.get("/healthz") { _, _ in Status(status: "ok") }
        router.get("/readyz") { _, _ in
            do {
                try await database.ping(timeout: .seconds(2))
            } catch {
                // The same refusal (with Retry-After) as every other route gets while the database is away.
                throw Problem(DatabaseOutage.refusal)
            }
            return Status(status: "ready")
        }
    }
}
