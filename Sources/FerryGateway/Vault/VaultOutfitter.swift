import Foundation
import Logging
import URLLoading

/// Gives every engine session its owner's vault: a `VaultCredentialStorage` for default handling of
/// 401 challenges (AU-14), and the explanation of a job's 401 that a stored credential did not answer.
///
/// Client-certificate and server-trust credentials are stored and checked but not applied to engine
/// sessions: the engine takes a client identity, public-key pins and extra CAs per session, not per
/// host, and an engine session serves every host a tenant's jobs reach (see the vault report, issue 6).
public struct VaultOutfitter: EngineSessionOutfitter {
    let store: CredentialStore
    let logger: Logger

    public init(store: CredentialStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    public func outfit(_ configuration: inout SessionConfiguration, for owner: EngineSessionOwner) {
        configuration.credentialStorage = VaultCredentialStorage(owner: owner, store: store, logger: logger)
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
