import Foundation
import Logging
import URLLoading

/// Gives every engine session its owner's vault: a `VaultCredentialStorage` for default handling of
/// 401 challenges (AU-14), the certificates of its server-trust credentials (TLS-03, see
/// `VaultTrustedServers`), and the explanation of a job's 401 that a stored credential did not answer.
///
/// Client-certificate credentials and server-trust pins are stored and checked but not applied: the
/// engine takes a client identity and public-key pins per session, not per host, and an engine
/// session serves every host an owner's jobs reach.
public struct VaultOutfitter: EngineSessionOutfitter {
    let store: CredentialStore
    let logger: Logger
    private let trustedServers = VaultTrustedServers()

    public init(store: CredentialStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    public func outfit(_ configuration: inout SessionConfiguration, for owner: EngineSessionOwner) {
        configuration.credentialStorage = VaultCredentialStorage(owner: owner, store: store, logger: logger)
        configuration.trustedServerCertificates += trustedServers.certificates(for: owner)
        configuration.hostClientIdentities += trustedServers.identities(for: owner)
    }

    public func fixedOutfit(for owner: EngineSessionOwner) -> String {
        trustedServers.fingerprint(for: owner)
    }

    /// Reads the owner's server-trust certificates and client certificates before each job: one
    /// created or deleted through the API counts from the next job on, in every ferryd.
    public func prepare(for owner: EngineSessionOwner) async throws {
        var settings = VaultTrustedServers.Settings()
        for record in try await store.connectionCredentials(for: owner).sorted(by: { $0.id.uuidString < $1.id.uuidString }) {
            do {
                switch try record.opened(by: store.keyring) {
                case .trust(_, let pem?):
                    if let certificate = TrustedServerCertificate(host: record.space.host, port: record.space.port, certificatePEM: pem) {
                        settings.certificates.append(certificate)
                    }
                case .identity(let identity):
                    if let clientIdentity = identity.clientIdentity {
                        settings.identities.append(HostClientIdentity(host: record.space.host, port: record.space.port, identity: clientIdentity))
                        settings.identityCredentialIDs.append(record.id)
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
