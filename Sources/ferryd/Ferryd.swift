import ArgumentParser
import Logging

/// `ferryd`: Ferry's transfer gateway service.
///
/// `serve` runs the HTTP API and the workers; `migrate` applies the database schema and exits;
/// `admin` holds operator tasks such as `rotate-vault-key`.
@main
struct Ferryd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferryd",
        abstract: "Ferry's transfer gateway: transfers as REST jobs, on PostgreSQL.",
        subcommands: [ServeCommand.self, MigrateCommand.self, AdminCommand.self]
    )

    static func main() async {
        MallocArenas.limitUnlessConfigured()
        FerrydLogging.bootstrap()
        await main(nil)
    }
}
