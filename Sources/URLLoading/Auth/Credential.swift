import Foundation

/// Authentication information with a persistence (AU-01, AU-02, AU-17).
///
/// `description` never shows a secret, so a credential can be logged or put in an error message.
public struct Credential: Sendable, Hashable, CustomStringConvertible {
    /// How long a credential is kept once it worked (AU-02, AU-03).
    public enum Persistence: String, Sendable, Hashable, Codable {
        /// Used for this one request only.
        case none
        /// Kept by the session whose task used it, for that session's life (AU-03).
        case forSession = "for_session"
        /// Kept by the credential storage and handed to its persistence hook (the gateway stores it).
        case permanent
    }

    public enum Kind: Sendable, Hashable {
        /// Basic or Digest (and proxy) authentication.
        case password(user: String, password: String)
        /// `Authorization: Bearer <token>`.
        case bearer(token: String)
        /// A client certificate and its private key (TLS-11).
        case identity(ClientIdentity)
        /// "Trust this server": the answer to a server-trust challenge (TLS-07).
        case serverTrust(ServerTrust)
    }

    public var kind: Kind
    public var persistence: Persistence

    public init(_ kind: Kind, persistence: Persistence = .forSession) {
        self.kind = kind
        self.persistence = persistence
    }

    public init(user: String, password: String, persistence: Persistence = .forSession) {
        self.init(.password(user: user, password: password), persistence: persistence)
    }

    public init(trust: ServerTrust) {
        self.init(.serverTrust(trust), persistence: .none)
    }

    public var user: String? {
        if case .password(let user, _) = kind { return user }
        return nil
    }

    public var description: String {
        switch kind {
        case .password(let user, _): "Credential(user: \(user), password: <redacted>, \(persistence.rawValue))"
        case .bearer: "Credential(bearer token <redacted>, \(persistence.rawValue))"
        case .identity: "Credential(client identity <redacted>, \(persistence.rawValue))"
        case .serverTrust(let trust): "Credential(trust for \(trust.host))"
        }
    }
}

/// A client certificate with its private key, as PEM or PKCS#12 (TLS-11, AU-17).
public enum ClientIdentity: Sendable, Hashable {
    /// PEM certificate (optionally followed by its chain) and a PEM private key.
    case pem(certificate: Data, privateKey: Data, passphrase: String?)
    /// A PKCS#12 bundle (`.p12`).
    case pkcs12(Data, passphrase: String?)
}
