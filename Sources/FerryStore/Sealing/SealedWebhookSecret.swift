import FerryModel
import FerryVault
import Foundation

/// Webhook signing secrets, sealed: a tenant's (`webhook_secrets.key_id`/`sealed`, and the previous
/// one's `previous_key_id`/`previous_sealed`, which a rotation moves over as they are, so both use
/// the tenant's associated data) and an endpoint's (`webhook_endpoints.secret_key_id`/`secret_sealed`).
/// The plain `secret` columns hold only rows written before sealing existed, until start-up seals them.
package enum SealedWebhookSecret {
    package static let tenantColumn = "webhook_secrets.secret"
    package static let endpointColumn = "webhook_endpoints.secret"

    package static func tenantAssociatedData(_ tenant: UUID) -> Data {
        VaultKeyring.associatedData(column: tenantColumn, row: tenant)
    }

    package static func endpointAssociatedData(_ endpoint: UUID) -> Data {
        VaultKeyring.associatedData(column: endpointColumn, row: endpoint)
    }

    package static func seal(_ secret: Secret, associatedData: Data, keyring: VaultKeyring) throws -> SealedSecret {
        try keyring.seal(Data(secret.revealed.utf8), associatedData: associatedData)
    }

    /// The secret a row holds: its sealed columns opened, or (a row from before sealing) its plain one.
    package static func open(
        plain: String?, keyID: String?, sealed: Data?, associatedData: Data, keyring: VaultKeyring
    ) throws -> Secret? {
        if let keyID, let sealed {
            return Secret(String(decoding: try keyring.open(SealedSecret(keyID: keyID, combined: sealed), associatedData: associatedData), as: UTF8.self))
        }
        return plain.map(Secret.init)
    }
}
