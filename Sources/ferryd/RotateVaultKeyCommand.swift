import ArgumentParser
import FerryGateway
import FerryPrivatePostgres
import FerryStore
import Foundation
import Logging

/// `ferryd admin rotate-vault-key`: seals every stored credential, and every other stored secret
/// (webhook signing secrets, session cookie values, credential-bearing headers of jobs, events and
/// sessions, proxy passwords, resume data), again under the current (first) vault key, so that
/// older keys can be removed from the configuration afterwards.
struct RotateVaultKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-vault-key",
        abstract: "Re-encrypt every stored credential and secret under the current vault key.",
        discussion: """
            Rotating: put the new key first in FERRY_VAULT_KEY (or the key file), keeping the old ones \
            after it, and restart ferryd (it then seals with the new key and opens with all); run this \
            command with the same configuration; then drop the old keys. Safe while ferryd runs and to \
            run again. Prints how many credentials and other secrets it resealed. Exit status: 0 when \
            every secret is under the current key, 1 when some could not be opened (their rows are \
            printed, never their content) or something failed.
            """
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let logger = Logger(label: "ferryd.admin")
        let report: VaultRotation.Report
        do {
            report = try await rotate(logger: logger)
        } catch {
            FileHandle.standardError.write(Data("ferryd admin rotate-vault-key: \(PostgresErrorDescription.describe(error))\n".utf8))
            throw ExitCode.failure
        }
        for line in report.lines { print(line) }
        if !report.isComplete { throw ExitCode.failure }
    }

    private func rotate(logger: Logger) async throws -> VaultRotation.Report {
        let configuration = try GatewayConfiguration(flags: database.flags)
        let keyring = try configuration.vaultKeySource.keyring(logger: logger)
        let gatewayDatabase = try await GatewayDatabase.start(for: configuration, logger: logger)
        let outcome: Result<VaultRotation.Report, any Error>
        do {
            outcome = .success(try await gatewayDatabase.withConnection(logger: logger) { connection in
                try await VaultRotation.run(on: connection, keyring: keyring, logger: logger)
            })
        } catch {
            outcome = .failure(error)
        }
        do {
            try await gatewayDatabase.stop()
        } catch {
            if case .success = outcome { throw error }
            logger.error("could not stop the private PostgreSQL server: \(error)")
        }
        return try outcome.get()
    }
}
