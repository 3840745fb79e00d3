import ArgumentParser
import FerryGateway
import FerryStore
import Foundation
import Logging

/// `ferryd migrate`: applies pending migrations and exits, printing what it applied.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending database migrations, then exit.",
        discussion: """
            Prints "applied NNNN_name" for each migration applied, or "database is up to date". \
            Without a database URL, ferryd's private PostgreSQL cluster under the data directory is \
            created or started for the run and stopped again afterwards (unless a running ferryd \
            uses it). Exit status: 0 on success, 1 when something failed (the message says what).
            """
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let logger = Logger(label: "ferryd.migrate")
        do {
            let report = try await migrate(logger: logger)
            for line in report.lines {
                print(line)
            }
        } catch {
            FileHandle.standardError.write(Data("ferryd migrate: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    private func migrate(logger: Logger) async throws -> MigrationReport {
        let configuration = try GatewayConfiguration(flags: database.flags)
        // Files first: a broken migrations folder should not cost a cluster start.
        let source = MigrationSource(directory: configuration.migrationsDirectory)
        let migrations = try source.load()
        logger.info("migrating", metadata: ["migrations": "\(source)", "files": "\(migrations.count)"])

        let gatewayDatabase = try await GatewayDatabase.start(for: configuration, logger: logger)
        let outcome: Result<MigrationReport, any Error>
        do {
            outcome = .success(try await gatewayDatabase.applyMigrations(migrations, from: source.description, logger: logger))
        } catch {
            outcome = .failure(error)
        }
        // Stopped whether or not migrating worked; a failure to stop is reported only if nothing else failed.
        do {
            try await gatewayDatabase.stop()
        } catch {
            if case .success = outcome {
                throw error
            }
            logger.error("could not stop the private PostgreSQL server: \(error)")
        }
        return try outcome.get()
    }
}
