import Foundation
import URLLoading

/// What the vault seals for one credential: the secret only. Encoded as JSON, sealed, and never put in
/// any other column, view, log line or error message.
package enum VaultSecret: Sendable, Equatable, Codable {
    case password(username: String, password: String)
    case token(String)
    /// A client certificate with its key: PEM text (certificate, chain, key), or a PKCS#12 bundle.
    case identity(VaultIdentity)
    /// For a server-trust space: public-key pins and/or a CA certificate (PEM).
    case trust(pins: [String], caCertificatePEM: String?)

    /// The `secret_kind` column: which kind is sealed, which the views may show.
    package var kind: String {
        switch self {
        case .password: "password"
        case .token: "token"
        case .identity: "identity"
        case .trust: "trust"
        }
    }

    /// The engine's credential for a challenge: `.none` persistence, so the engine session keeps no
    /// copy of it (a credential deleted through the API stops working at the next challenge, in every
    /// ferryd) and never hands it back to a storage.
    package var challengeCredential: Credential? {
        switch self {
        case .password(let username, let password): Credential(user: username, password: password, persistence: .none)
        case .token(let token): Credential(.bearer(token: token), persistence: .none)
        case .identity, .trust: nil
        }
    }

    package func sealed(by keyring: VaultKeyring, tenant: UUID, row: UUID) throws -> SealedSecret {
        try keyring.seal(try JSONEncoder().encode(self), associatedData: VaultKeyring.associatedData(tenant: tenant, row: row))
    }

    package static func opened(_ sealed: SealedSecret, by keyring: VaultKeyring, tenant: UUID, row: UUID) throws -> VaultSecret {
        let plaintext = try keyring.open(sealed, associatedData: VaultKeyring.associatedData(tenant: tenant, row: row))
        do {
            return try JSONDecoder().decode(VaultSecret.self, from: plaintext)
        } catch {
            // Never the decoder's text: it could quote the plaintext.
            throw VaultError.cannotOpen
        }
    }
}

/// A client identity as the API accepts it, kept as given.
package struct VaultIdentity: Sendable, Equatable, Codable {
    package enum Format: String, Sendable, Codable { case pem, pkcs12 }
    package var format: Format
    /// PEM text, or the PKCS#12 bytes.
    package var data: Data
    package var passphrase: String?

    /// The engine's identity: a PEM text's certificates and key split apart, or the PKCS#12 bundle.
    package var clientIdentity: ClientIdentity? {
        switch format {
        case .pkcs12:
            return .pkcs12(data, passphrase: passphrase)
        case .pem:
            let text = String(decoding: data, as: UTF8.self)
            guard let key = Self.privateKeyBlock(in: text) else { return nil }
            let certificates = text.replacingOccurrences(of: key, with: "")
            return .pem(certificate: Data(certificates.utf8), privateKey: Data(key.utf8), passphrase: passphrase)
        }
    }

    /// The `-----BEGIN ... PRIVATE KEY-----` block of PEM text (PKCS#8, RSA, EC, encrypted).
    package static func privateKeyBlock(in pem: String) -> String? {
        guard let begin = pem.range(of: #"-----BEGIN [A-Z ]*PRIVATE KEY-----"#, options: .regularExpression),
              let end = pem.range(of: #"-----END [A-Z ]*PRIVATE KEY-----"#, options: .regularExpression, range: begin.upperBound..<pem.endIndex)
        else { return nil }
        return String(pem[begin.lowerBound..<end.upperBound])
    }

    package init(format: Format, data: Data, passphrase: String? = nil) {
        self.format = format
        self.data = data
        self.passphrase = passphrase
    }
}
