import FerryModel
import Foundation
import URLLoading

/// The credentials of `use_credential` answers: inline ones sealed with the vault key for their
/// tenant and job (so a sealed value copied to another job or tenant does not open), vault ones
/// looked up by id when the replayed attempt needs them.
public struct DecisionCredentials: Sendable {
    package let keyring: VaultKeyring
    package let vault: any DecisionCredentialSource

    public init(keyring: VaultKeyring, vault: any DecisionCredentialSource) {
        self.keyring = keyring
        self.vault = vault
    }

    package func seal(_ inline: InlineCredential, tenant: UUID, job: UUID) throws -> StoredDecisionAnswer.StoredCredential {
        let sealed = try keyring.seal(
            JSONEncoder().encode(inline), associatedData: VaultKeyring.associatedData(tenant: tenant, row: job))
        return StoredDecisionAnswer.StoredCredential(keyID: sealed.keyID, sealed: sealed.combined.base64EncodedString())
    }

    /// The engine credential of a stored answer; nil when its vault credential is gone.
    package func credential(for stored: StoredDecisionAnswer.StoredCredential, tenant: UUID, job: UUID) async throws -> Credential? {
        if let id = stored.vaultID { return try await vault.credential(id: id, tenant: tenant) }
        guard let keyID = stored.keyID, let text = stored.sealed, let combined = Data(base64Encoded: text) else { return nil }
        let plain = try keyring.open(
            SealedSecret(keyID: keyID, combined: combined), associatedData: VaultKeyring.associatedData(tenant: tenant, row: job))
        let inline = try JSONDecoder().decode(InlineCredential.self, from: plain)
        // The engine session lives for this one attempt, so "for the session" keeps it no longer.
        return Credential(user: inline.username, password: inline.password, persistence: .forSession)
    }
}
