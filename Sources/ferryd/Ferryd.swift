import ArgumentParser
import Logging

/// `ferryd`: Ferry's transfer gateway service.
///
/// `migrate` applies the database schema; `serve` (the HTTP API and the workers) joins it later.
@main
struct Ferryd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferryd",
        abstract: "Ferry's transfer gateway: transfers as REST jobs, on PostgreSQL.",
        subcommands: [MigrateCommand.self]
    )

    static func main() async {
        FerrydLogging.bootstrap()
        await main(nil)
    }
}
