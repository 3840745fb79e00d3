import FerryModel
import FerryStore
import Foundation
import URLLoading

/// The vault as the source of decision answers that name a stored credential
/// (`{"credential": {"id": ...}}`): the tenant's own credential only, opened for the engine.
public struct VaultDecisionCredentials: DecisionCredentialSource {
    package let store: CredentialStore

    public init(store: CredentialStore) {
        self.store = store
    }

    /// Nil when the tenant has no such credential, or it holds no user name and password or token.
    public func credential(id: UUID, tenant: UUID) async throws -> Credential? {
        guard let record = try await store.credential(id, tenant: tenant) else { return nil }
        return try record.opened(by: store.keyring).challengeCredential
    }
}
