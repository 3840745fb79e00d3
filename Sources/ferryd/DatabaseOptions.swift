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
            "The folder of NNNN_name.sql migrations (env FERRY_MIGRATIONS_DIR; default: the migrations/ folder "
                + "found next to or above the ferryd executable, else in the current directory).",
            valueName: "dir"))
    var migrationsDirectory: String?

    var flags: GatewayConfigurationFlags {
        GatewayConfigurationFlags(databaseURL: databaseURL, dataDirectory: dataDirectory, migrationsDirectory: migrationsDirectory)
    }
}
