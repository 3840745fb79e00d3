import FerryRuntime
import FerryStore
import Logging
import ServiceLifecycle

/// The first service of the application, so the last to stop: once every other service (the
/// server, the workers pausing their transfers, the database pool) has stopped, it invalidates the
/// engine's sessions and stops the database if ferryd started it.
struct GatewayLifetime: Service {
    let engine: JobEngine
    let database: GatewayDatabase
    let logger: Logger

    func run() async throws {
        // Cancellation (a failed sibling service) ends the wait as a graceful shutdown does.
        try? await gracefulShutdown()
        // Unstructured, so that a cancelled group still gets its database stopped.
        await Task {
            engine.invalidateAll()
            do {
                try await database.stop()
            } catch {
                logger.error("stopping the database failed", metadata: ["error": LoggedError.metadata(error)])
            }
        }.value
    }
}
