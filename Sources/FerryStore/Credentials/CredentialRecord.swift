import FerryVault
import Foundation
import PostgresNIO

/// One row of `credentials`: where a credential applies and its sealed secret.
package struct CredentialRecord: Sendable {
    package enum Persistence: String, Sendable {
        /// Every job of the tenant.
        case permanent
        /// Only the jobs of one gateway session.
        case session
    }

    package var id: UUID
    package var tenantID: UUID
    package var space: VaultProtectionSpace
    package var persistence: Persistence
    package var sessionID: UUID?
    package var secretKind: String
    package var sealed: SealedSecret
    package var createdAt: Date
    package var resealedAt: Date?
    package var createdMicros: Int64

    /// The select list every read of a whole row uses, in the order `init(row:)` reads it.
    package static let columns = """
        id, tenant_id, scheme, host, port, realm, method, persistence, session_id, secret_kind, key_id, sealed, \
        created_at, resealed_at, (extract(epoch FROM created_at) * 1000000)::bigint
        """

    package struct UnknownValue: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    package init(row: PostgresRow) throws {
        let r = row.makeRandomAccess()
        id = try r[0].decode(UUID.self)
        tenantID = try r[1].decode(UUID.self)
        let methodText = try r[6].decode(String.self)
        let persistenceText = try r[7].decode(String.self)
        guard let method = VaultProtectionSpace.Method(rawValue: methodText), let persistence = Persistence(rawValue: persistenceText) else {
            throw UnknownValue(description: "credential \(id) has method \(methodText) and persistence \(persistenceText)")
        }
        space = VaultProtectionSpace(
            scheme: try r[2].decode(String.self), host: try r[3].decode(String.self), port: Int(try r[4].decode(Int32.self)),
            realm: try r[5].decode(String?.self), method: method)
        self.persistence = persistence
        sessionID = try r[8].decode(UUID?.self)
        secretKind = try r[9].decode(String.self)
        sealed = SealedSecret(keyID: try r[10].decode(String.self), combined: try r[11].decode(Data.self))
        createdAt = try r[12].decode(Date.self)
        resealedAt = try r[13].decode(Date?.self)
        createdMicros = try r[14].decode(Int64.self)
    }

    package func opened(by keyring: VaultKeyring) throws -> VaultSecret {
        try VaultSecret.opened(sealed, by: keyring, tenant: tenantID, row: id)
    }
}
