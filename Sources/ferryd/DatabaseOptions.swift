import ArgumentParser
import FerryGateway

/// The flags that say which database ferryd uses and where its schema is; each overrides its
/// `FERRY_*` variable. Kept as text: `GatewayConfiguration` validates flags and variables alike.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "PostgreSQL server, postgres://user:password@host:port/database?sslmode=disable (env FERRY_DATABASE_URL). "
                + "Without one, ferryd runs its own cluster under the data directory.",
            valueName: "url"))
    var databaseURL: String?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp("ferryd's data directory (env FERRY_DATA_DIR; default ./.ferry).", valueName: "dir"))
    var dataDirectory: String?

    @Option(
        name: .customLong("migrations"),
        help: ArgumentHelp(
            "A folder of NNNN_name.sql migrations to apply instead of the ones built into ferryd "
                + "(env FERRY_MIGRATIONS_DIR; default: the built-in set).",
            valueName: "dir"))
    var migrationsDirectory: String?

    var flags: GatewayConfigurationFlags {
        GatewayConfigurationFlags(databaseURL: databaseURL, dataDirectory: dataDirectory, migrationsDirectory: migrationsDirectory)
    }
}
