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
                throw Problem(.serviceUnavailable, code: "database_unavailable", "the database does not answer")
            }
            return Status(status: "ready")
        }
    }
}
