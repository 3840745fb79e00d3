import FerryStore
import Logging

extension GatewayDatabase {
    /// The database the configuration names: `FERRY_DATABASE_URL`, else the private cluster under the data directory.
    public static func start(for configuration: GatewayConfiguration, logger: Logger) async throws -> GatewayDatabase {
        try await start(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory, logger: logger)
    }
}
