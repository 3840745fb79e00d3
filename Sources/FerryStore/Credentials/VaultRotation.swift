import FerryVault
import Foundation
import Logging
import PostgresNIO

/// `ferryd admin rotate-vault-key`: seals every credential not yet under the keyring's current key
/// again under it, and then every other stored secret (`SecretsResealing`: webhook secrets, cookie
/// values, credential-bearing headers, proxy passwords, resume data; plain ones left from before
/// they were sealed included), so the older keys can then be dropped from the configuration.
///
/// Row by row, each its own statement, and only if the row still holds what was read: safe next to
/// running ferryd (which read rows at each challenge and open them with any configured key), and
/// safe to run again after an interruption. A row that does not open is left as it is and reported.
public enum VaultRotation {
    public struct Report: Sendable, Equatable {
        public var currentKeyID: String
        public var resealed: Int
        public var alreadyCurrent: Int
        /// Rows that no configured key opens (altered, copied from elsewhere, or sealed with a key no
        /// longer configured): their ids, never anything of their content.
        public var unopenable: [UUID]
        /// The other secrets, by kind.
        package var others: [SecretsResealing.Kind: SecretsResealing.Tally] = [:]

        /// Whether every secret is now under the current key.
        public var isComplete: Bool { unopenable.isEmpty && others.values.allSatisfy(\.unopenable.isEmpty) }

        public var lines: [String] {
            var lines = ["resealed \(resealed) credential(s) under vault key \(currentKeyID); \(alreadyCurrent) already were"]
            if !unopenable.isEmpty {
                lines.append("\(unopenable.count) credential(s) do not open with any configured key and were left as they are: "
                    + unopenable.map(\.lowercasedString).joined(separator: ", "))
            }
            let kinds = SecretsResealing.Kind.allCases
            lines.append("sealed again under vault key \(currentKeyID): "
                + kinds.map { "\(others[$0]?.resealed ?? 0) \($0.rawValue)" }.joined(separator: ", "))
            for kind in kinds {
                guard let rows = others[kind]?.unopenable, !rows.isEmpty else { continue }
                lines.append("\(rows.count) \(kind.rawValue) do not open with any configured key and were left as they are: "
                    + rows.joined(separator: ", "))
            }
            return lines
        }

        package init(currentKeyID: String, resealed: Int, alreadyCurrent: Int, unopenable: [UUID]) {
            self.currentKeyID = currentKeyID
            self.resealed = resealed
            self.alreadyCurrent = alreadyCurrent
            self.unopenable = unopenable
        }
    }

    package static let batchSize = 500

    public static func run(on connection: PostgresConnection, keyring: VaultKeyring, logger: Logger) async throws -> Report {
        let current = keyring.currentKeyID
        var report = Report(currentKeyID: current, resealed: 0, alreadyCurrent: 0, unopenable: [])
        for try await count in try await connection.query(
            "SELECT count(*) FROM credentials WHERE key_id = \(current)", logger: logger
        ).decode(Int64.self) {
            report.alreadyCurrent = Int(count)
        }
        var after = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        while true {
            let rows = try await connection.query(
                """
                SELECT id, tenant_id, key_id, sealed FROM credentials
                WHERE key_id <> \(current) AND id > \(after) ORDER BY id LIMIT \(batchSize)
                """, logger: logger)
            var batch: [(id: UUID, tenant: UUID, sealed: SealedSecret)] = []
            for try await (id, tenant, keyID, sealed) in rows.decode((UUID, UUID, String, Data).self) {
                batch.append((id, tenant, SealedSecret(keyID: keyID, combined: sealed)))
            }
            guard let last = batch.last else {
                report.others = try await SecretsResealing.run(on: connection, keyring: keyring, logger: logger)
                return report
            }
            after = last.id
            for row in batch {
                let associatedData = VaultKeyring.associatedData(tenant: row.tenant, row: row.id)
                let resealed: SealedSecret
                do {
                    resealed = try keyring.seal(try keyring.open(row.sealed, associatedData: associatedData), associatedData: associatedData)
                } catch {
                    logger.warning("a credential does not open", metadata: ["credential": "\(row.id)", "reason": "\(error)"])
                    report.unopenable.append(row.id)
                    continue
                }
                let updated = try await connection.query(
                    """
                    UPDATE credentials SET key_id = \(resealed.keyID), sealed = \(resealed.combined), resealed_at = now()
                    WHERE id = \(row.id) AND key_id = \(row.sealed.keyID) AND sealed = \(row.sealed.combined)
                    RETURNING id
                    """, logger: logger)
                for try await _ in updated.decode(UUID.self) { report.resealed += 1 }
            }
        }
    }
}
