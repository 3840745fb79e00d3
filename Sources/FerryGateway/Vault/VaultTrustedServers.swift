import Crypto
import Foundation
import Synchronization
import URLLoading

/// The server certificates each owner's server-trust credentials trust (TLS-03), and the client
/// certificates its client-certificate credentials present to their hosts (TLS-11), as `prepare` last
/// read them before a job: `outfit` is synchronous and cannot read the database itself, and an
/// engine session's TLS settings are fixed when it is made, so a change is a new engine session
/// (see `EngineSessionOutfitter.fixedOutfit`).
///
/// A credential's `ca_certificate` is trusted as the server's own certificate, for its host and
/// port only: right for a self-signed server, whose certificate is its own CA. A server whose
/// certificate a private CA issued is not trusted through it: the engine trusts extra CAs only for
/// a whole session, not per host, and an engine session serves every host an owner's jobs reach.
final class VaultTrustedServers: Sendable {
    struct Settings: Sendable {
        var certificates: [TrustedServerCertificate] = []
        var identities: [HostClientIdentity] = []
        /// The client-certificate credentials' ids: a credential never changes, so its id names it.
        var identityCredentialIDs: [UUID] = []
        var isEmpty: Bool { certificates.isEmpty && identities.isEmpty }
    }

    private let byOwner = Mutex<[EngineSessionOwner: Settings]>([:])

    func update(_ settings: Settings, for owner: EngineSessionOwner) {
        byOwner.withLock { $0[owner] = settings.isEmpty ? nil : settings }
    }

    func certificates(for owner: EngineSessionOwner) -> [TrustedServerCertificate] {
        byOwner.withLock { $0[owner]?.certificates ?? [] }
    }

    func identities(for owner: EngineSessionOwner) -> [HostClientIdentity] {
        byOwner.withLock { $0[owner]?.identities ?? [] }
    }

    /// Names the owner's current certificates; empty when there are none.
    func fingerprint(for owner: EngineSessionOwner) -> String {
        guard let settings = byOwner.withLock({ $0[owner] }) else { return "" }
        var hash = SHA256()
        for certificate in settings.certificates {
            hash.update(data: Data("\(certificate.host) \(certificate.port ?? 0) \(certificate.certificate.count)\n".utf8))
            hash.update(data: certificate.certificate)
        }
        for id in settings.identityCredentialIDs { hash.update(data: Data("identity \(id)\n".utf8)) }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
