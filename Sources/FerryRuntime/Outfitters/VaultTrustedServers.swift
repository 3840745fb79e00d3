import Crypto
import FerryModel
import Foundation
import Synchronization
import URLLoading

/// What each owner's connection credentials make its engine sessions do, per host and port, as
/// `prepare` last read them before a job: the server certificates and CAs its server-trust credentials
/// trust (TLS-02, TLS-03), the public keys they pin (TLS-08), and the client certificates its
/// client-certificate credentials present (TLS-11). `outfit` is synchronous and cannot read the
/// database itself, and an engine session's TLS settings are fixed when it is made, so a change is a
/// new engine session (see `EngineSessionOutfitter.fixedOutfit`).
///
/// A credential's `ca_certificate` is trusted both ways for its host and port: as the server's own
/// certificate (a self-signed server, or the very certificate the server presents; host names are
/// not checked, the certificate is the identity) and as a CA the server's chain may end at (a private
/// CA; the chain is verified and the host name checked as usual). Which one a certificate is need not
/// be guessed: each way only succeeds for what the certificate really is, and neither widens trust
/// beyond that host and port. The system store stays trusted for the host too; pins narrow it.
final class VaultTrustedServers: Sendable {
    struct Settings: Sendable {
        var certificates: [TrustedServerCertificate] = []
        var authorities: [HostTrustedCA] = []
        var pins: [HostPinnedPublicKeys] = []
        var identities: [HostClientIdentity] = []
        /// The ids of the credentials all of the above came from: a credential never changes, so its
        /// id names what it contributes.
        var credentialIDs: [UUID] = []
        var isEmpty: Bool { credentialIDs.isEmpty }
    }

    private let byOwner = Mutex<[EngineSessionOwner: Settings]>([:])

    func update(_ settings: Settings, for owner: EngineSessionOwner) {
        byOwner.withLock { $0[owner] = settings.isEmpty ? nil : settings }
    }

    func settings(for owner: EngineSessionOwner) -> Settings {
        byOwner.withLock { $0[owner] } ?? Settings()
    }

    /// Names the owner's current settings; empty when there are none.
    func fingerprint(for owner: EngineSessionOwner) -> String {
        let ids = settings(for: owner).credentialIDs
        guard !ids.isEmpty else { return "" }
        var hash = SHA256()
        for id in ids { hash.update(data: Data("credential \(id)\n".utf8)) }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
