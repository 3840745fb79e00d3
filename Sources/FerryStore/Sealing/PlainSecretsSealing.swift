import FerryVault
import Foundation
import Logging
import PostgresNIO

/// At start, before the API serves: seals the secrets stored plain before migration 0013 (webhook
/// secrets, cookie values, credential-bearing headers of jobs, job events and sessions, proxy
/// passwords, resume data), which SQL could not seal for want of the key. Runs until it has once
/// finished (`vault_sealing.plain_values_sealed_at`), so later starts cost one small query; any
/// ferryd may do it, and two at once only find each other's rows sealed already.
public enum PlainSecretsSealing {
    /// What was sealed, by kind; empty when it had been done before.
    @discardableResult
    public static func runIfPending(on connection: PostgresConnection, keyring: VaultKeyring, logger: Logger) async throws -> [String: Int] {
        var pending = false
        for try await sealedAt in try await connection.query(
            "SELECT plain_values_sealed_at FROM vault_sealing WHERE id = 1", logger: logger
        ).decode(Date?.self) {
            pending = sealedAt == nil
        }
        guard pending else { return [:] }
        let tallies = try await SecretsResealing.run(on: connection, keyring: keyring, logger: logger)
        var sealed: [String: Int] = [:]
        for (kind, tally) in tallies where tally.resealed > 0 {
            sealed[kind.rawValue] = tally.resealed
            logger.notice("sealed stored secrets with the vault key", metadata: ["kind": "\(kind.rawValue)", "count": "\(tally.resealed)"])
        }
        try await connection.query("UPDATE vault_sealing SET plain_values_sealed_at = now() WHERE id = 1", logger: logger)
        return sealed
    }
}
