import FerryModel
import FerryStore
import FerryVault
import Foundation
import Logging
import URLLoading

/// Gives every engine session its owner's vault: a `VaultCredentialStorage` for default handling of
/// 401 challenges (AU-14), what its server-trust and client-certificate credentials make each host's
/// TLS do (certificates and CAs trusted, public keys pinned, client certificates presented: TLS-02,
/// TLS-03, TLS-08, TLS-11, see `VaultTrustedServers`), and the explanation of a job's 401 that a
/// stored credential did not answer.
///
/// Everything connection-level applies per host and port, for the owner's engine sessions only: an
/// engine session serves every host an owner's jobs reach, and another tenant's sessions never see it.
public struct VaultOutfitter: EngineSessionOutfitter {
    package let store: CredentialStore
    package let logger: Logger
    private let trustedServers = VaultTrustedServers()

    public init(store: CredentialStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    public func outfit(_ configuration: inout SessionConfiguration, for owner: EngineSessionOwner) {
        configuration.credentialStorage = VaultCredentialStorage(owner: owner, store: store, logger: logger)
        let settings = trustedServers.settings(for: owner)
        configuration.trustedServerCertificates += settings.certificates
        configuration.hostTrustedCAs += settings.authorities
        configuration.hostPinnedPublicKeys += settings.pins
        configuration.hostClientIdentities += settings.identities
    }

    public func fixedOutfit(for owner: EngineSessionOwner) -> String {
        trustedServers.fingerprint(for: owner)
    }

    /// Reads the owner's server-trust and client-certificate credentials before each job: one created
    /// or deleted through the API counts from the next job on, in every ferryd.
    public func prepare(for owner: EngineSessionOwner, stored: OwnerStoredState) async throws {
        var settings = VaultTrustedServers.Settings()
        // With none stored, the empty settings still drop credentials deleted since.
        let records = stored.connectionCredentials ? try await store.connectionCredentials(for: owner) : []
        for record in records.sorted(by: { $0.id.uuidString < $1.id.uuidString }) {
            let (host, port) = (record.space.host, record.space.port)
            do {
                switch try record.opened(by: store.keyring) {
                case .trust(let pins, let pem):
                    // Both ways for a ca_certificate: see `VaultTrustedServers`.
                    if let pem, let certificate = TrustedServerCertificate(host: host, port: port, certificatePEM: pem),
                       let authority = HostTrustedCA(host: host, port: port, certificatesPEM: pem) {
                        settings.certificates.append(certificate)
                        settings.authorities.append(authority)
                    }
                    if !pins.isEmpty { settings.pins.append(HostPinnedPublicKeys(host: host, port: port, pins: Set(pins))) }
                    settings.credentialIDs.append(record.id)
                case .identity(let identity):
                    if let clientIdentity = identity.clientIdentity {
                        settings.identities.append(HostClientIdentity(host: host, port: port, identity: clientIdentity))
                        settings.credentialIDs.append(record.id)
                    }
                default:
                    break
                }
            } catch {
                logger.warning("a stored credential does not open", metadata: ["credential": "\(record.id)", "reason": "\(error)"])
            }
        }
        trustedServers.update(settings, for: owner)
    }

    public func explainUnauthorized(_ response: TransferResponse, for owner: EngineSessionOwner) async -> AuthenticationRefusal? {
        let url = response.url
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
              let port = url.port ?? VaultProtectionSpace.defaultPort(of: scheme)
        else { return nil }
        let challenges = UnauthorizedChallenges(response.headers.values(for: "WWW-Authenticate"))
        let candidates: [CredentialRecord]
        do {
            candidates = try await store.candidates(for: owner, scheme: scheme, host: host, port: port)
                .filter { challenges.offers($0.space) }
        } catch {
            return nil
        }
        var unreadable: (CredentialRecord, any Error)?
        for record in candidates {
            do {
                _ = try record.opened(by: store.keyring)
                return AuthenticationRefusal(
                    code: "authentication_failed",
                    message: "the server refused stored credential \(record.id.lowercasedString) for \(record.space.description) "
                        + "after 1 attempt (401): a stored credential is tried once per job; store a corrected one")
            } catch {
                if unreadable == nil { unreadable = (record, error) }
            }
        }
        guard let (record, error) = unreadable else { return nil }
        return AuthenticationRefusal(
            code: "credential_unreadable",
            message: "stored credential \(record.id.lowercasedString) for \(record.space.description) cannot be used: \(error)")
    }
}

/// The schemes and realms a 401's `WWW-Authenticate` fields offer, read loosely: enough to tell which
/// stored credentials the engine's default handling would have answered it with.
struct UnauthorizedChallenges {
    private let methods: Set<String>
    private let text: String

    init(_ fieldValues: [String]) {
        text = fieldValues.joined(separator: ", ")
        methods = Set(text.split(separator: ",").compactMap { part in
            part.split(separator: " ", omittingEmptySubsequences: true).first.map { $0.lowercased() }
        })
    }

    func offers(_ space: VaultProtectionSpace) -> Bool {
        guard methods.contains(space.method.rawValue) else { return false }
        guard let realm = space.realm else { return true }
        return text.contains("realm=\"\(realm)\"") || text.contains("realm=\(realm)")
    }
}
