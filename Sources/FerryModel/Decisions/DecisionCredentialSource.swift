import Foundation
import URLLoading

/// Where the credential of a `{"credential": {"id": ...}}` answer comes from: the tenant's credential
/// vault. One call, so the decision path does not know the vault's table, and the gateway plugs the
/// vault in where it builds the routes and the workers.
public protocol DecisionCredentialSource: Sendable {
    /// The tenant's vault credential `id`, ready for the engine; nil when the tenant has none by that id.
    func credential(id: UUID, tenant: UUID) async throws -> Credential?
}
