import Crypto
import Foundation
import Synchronization
import URLLoading

/// The server certificates each owner's server-trust credentials trust (TLS-03), as `prepare` last
/// read them before a job: `outfit` is synchronous and cannot read the database itself, and an
/// engine session's TLS settings are fixed when it is made, so a change is a new engine session
/// (see `EngineSessionOutfitter.fixedOutfit`).
///
/// A credential's `ca_certificate` is trusted as the server's own certificate, for its host and
/// port only: right for a self-signed server, whose certificate is its own CA. A server whose
/// certificate a private CA issued is not trusted through it: the engine trusts extra CAs only for
/// a whole session, not per host, and an engine session serves every host an owner's jobs reach.
final class VaultTrustedServers: Sendable {
    private let byOwner = Mutex<[EngineSessionOwner: [TrustedServerCertificate]]>([:])

    func update(_ certificates: [TrustedServerCertificate], for owner: EngineSessionOwner) {
        byOwner.withLock { $0[owner] = certificates.isEmpty ? nil : certificates }
    }

    func certificates(for owner: EngineSessionOwner) -> [TrustedServerCertificate] {
        byOwner.withLock { $0[owner] ?? [] }
    }

    /// Names the owner's current certificates; empty when there are none.
    func fingerprint(for owner: EngineSessionOwner) -> String {
        let certificates = certificates(for: owner)
        guard !certificates.isEmpty else { return "" }
        var hash = SHA256()
        for certificate in certificates {
            hash.update(data: Data("\(certificate.host) \(certificate.port ?? 0) \(certificate.certificate.count)\n".utf8))
            hash.update(data: certificate.certificate)
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
