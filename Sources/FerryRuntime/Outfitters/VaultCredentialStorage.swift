import FerryModel
import FerryStore
import Foundation
import Logging
import URLLoading

/// The engine's credential storage for one engine session owner, backed by the vault (AU-01, AU-14):
/// default handling of a 401 finds the owner's stored credential for the space (the gateway
/// session's own, else the tenant's permanent one), read and opened at the moment of the challenge,
/// so a credential created or deleted through the API counts at once, in every ferryd.
///
/// What the engine itself would store (`set`, `setDefaultCredential`, `remove`) stays in memory, for
/// this engine session's life only, for every owner alike: the vault is written only through the API,
/// where a tenant chose to keep the credential and it was checked; an ephemeral owner keeps nothing
/// beyond itself anyway (SES-03). Today no gateway job hands the engine a `.permanent` credential,
/// so nothing reaches `set`.
final class VaultCredentialStorage: CredentialStorage {
    let owner: EngineSessionOwner
    private let store: CredentialStore
    private let memory = InMemoryCredentialStorage()
    private let logger: Logger

    init(owner: EngineSessionOwner, store: CredentialStore, logger: Logger) {
        self.owner = owner
        self.store = store
        self.logger = logger
    }

    func credentials(for space: ProtectionSpace) async -> [Credential] {
        await stored(for: space) + (await memory.credentials(for: space))
    }

    func defaultCredential(for space: ProtectionSpace) async -> Credential? {
        if let stored = await stored(for: space).first { return stored }
        return await memory.defaultCredential(for: space)
    }

    func set(_ credential: Credential, for space: ProtectionSpace) async {
        await memory.set(credential, for: space)
    }

    func setDefaultCredential(_ credential: Credential, for space: ProtectionSpace) async {
        await memory.setDefaultCredential(credential, for: space)
    }

    func remove(_ credential: Credential, for space: ProtectionSpace) async {
        await memory.remove(credential, for: space)
    }

    /// The owner's stored credentials for the space that open, best first. One that does not open
    /// (copied from another tenant or row, altered, or sealed with a key no longer configured) is
    /// skipped and logged by id; the job's end then says so (see `VaultOutfitter.explainUnauthorized`).
    private func stored(for space: ProtectionSpace) async -> [Credential] {
        let records: [CredentialRecord]
        do {
            records = try await store.candidates(for: owner, scheme: space.scheme, host: space.host, port: space.port)
        } catch {
            logger.error("could not read the vault", metadata: ["tenant": "\(owner.tenantID)", "error": LoggedError.metadata(error)])
            return []
        }
        var credentials: [Credential] = []
        for record in records where record.space.matches(space) {
            do {
                if let credential = try record.opened(by: store.keyring).challengeCredential { credentials.append(credential) }
            } catch {
                logger.warning("a stored credential does not open", metadata: ["credential": "\(record.id)", "reason": "\(error)"])
            }
        }
        return credentials
    }
}
