import FerryModel
import FerryStore
import FerryVault
import Foundation
import URLLoading

/// The body of `POST /v1/credentials`, and its validation into a credential the vault seals.
///
/// Every message names a field and says what is wrong with it, never what it holds: the values here
/// are secrets.
struct CredentialSubmission: Decodable {
    var protectionSpace: SpacePart?
    var persistence: String?
    var session: String?
    var username: String?
    var password: String?
    var token: String?
    var identity: String?
    var passphrase: String?
    var pins: [String]?
    var caCertificate: String?

    struct SpacePart: Decodable {
        var scheme: String?
        var host: String?
        var port: Int?
        var realm: String?
        var method: String?
    }

    enum CodingKeys: String, CodingKey {
        case protectionSpace = "protection_space"
        case persistence, session, username, password, token, identity, passphrase, pins
        case caCertificate = "ca_certificate"
    }

    static let maximumSecretLength = 8192
    static let maximumDocumentLength = 64 * 1024
    static let maximumPins = 32

    /// The secret fields and the methods that take them, to refuse a secret sent for another method
    /// instead of storing it unused.
    private static let secretFields: [(field: String, methods: Set<VaultProtectionSpace.Method>)] = [
        ("username", [.basic, .digest]), ("password", [.basic, .digest]), ("token", [.bearer]),
        ("identity", [.clientCertificate]), ("passphrase", [.clientCertificate]),
        ("pins", [.serverTrust]), ("ca_certificate", [.serverTrust]),
    ]

    func validated() throws(Problem) -> CredentialStore.NewCredential {
        var errors: [Problem.FieldError] = []
        func problem(_ field: String, _ message: String) { errors.append(.init(field: field, message: message)) }

        guard let spacePart = protectionSpace else {
            throw Problem.invalid([.init(field: "protection_space", message: "is required")])
        }
        let method = spacePart.method.flatMap(VaultProtectionSpace.Method.init(rawValue:))
        if spacePart.method == nil {
            problem("protection_space.method", "is required")
        } else if method == nil {
            problem("protection_space.method", "must be one of \(VaultProtectionSpace.Method.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let scheme = spacePart.scheme?.lowercased()
        let allowedSchemes: [String] = method?.isConnectionLevel == true ? ["https", "ftps"] : method == nil ? ["http", "https", "ftp", "ftps"] : ["http", "https"]
        if scheme == nil {
            problem("protection_space.scheme", "is required")
        } else if let scheme, !allowedSchemes.contains(scheme) {
            problem("protection_space.scheme", "must be \(allowedSchemes.joined(separator: " or "))\(method.map { " for \($0.rawValue)" } ?? "")")
        }
        let host = spacePart.host.map(Self.normalizedHost)
        if host == nil {
            problem("protection_space.host", "is required")
        } else if let host, !Self.isHostName(host) {
            problem("protection_space.host", "must be a host name or an IP address, without scheme, port or path")
        }
        var port = spacePart.port
        if let given = port {
            if !(1...65535).contains(given) { problem("protection_space.port", "must be from 1 to 65535") }
        } else if let scheme {
            port = VaultProtectionSpace.defaultPort(of: scheme)
        }
        if let realm = spacePart.realm {
            if realm.isEmpty || realm.unicodeScalars.count > 1000 || realm.contains(where: { $0.isNewline || $0 == "\0" }) {
                problem("protection_space.realm", "must be 1 to 1000 characters on one line")
            } else if method?.isConnectionLevel == true {
                problem("protection_space.realm", "is only for basic, digest and bearer: a TLS handshake has no realm")
            }
        }

        let persistence: CredentialRecord.Persistence?
        if let text = self.persistence {
            persistence = CredentialRecord.Persistence(rawValue: text)
        } else {
            persistence = session == nil ? .permanent : .session
        }
        var sessionID: UUID?
        switch persistence {
        case nil:
            problem("persistence", "must be permanent or session")
        case .permanent?:
            if session != nil { problem("session", "is only for persistence session") }
        case .session?:
            if let text = session {
                sessionID = UUID(idText: text)
                if sessionID == nil { problem("session", "must be a session id") }
            } else {
                problem("session", "is required for persistence session")
            }
        }

        if let method {
            for (field, methods) in Self.secretFields where isPresent(field) && !methods.contains(method) {
                problem(field, "is not used by method \(method.rawValue)")
            }
        }
        let secret = method.flatMap { checkedSecret(for: $0, problem: problem) }

        guard errors.isEmpty, let method, let scheme, let host, let port, let persistence, let secret else {
            throw Problem.invalid(errors)
        }
        return CredentialStore.NewCredential(
            space: VaultProtectionSpace(scheme: scheme, host: host, port: port, realm: spacePart.realm, method: method),
            persistence: persistence, sessionID: sessionID, secret: secret)
    }

    private func isPresent(_ field: String) -> Bool {
        switch field {
        case "username": username != nil
        case "password": password != nil
        case "token": token != nil
        case "identity": identity != nil
        case "passphrase": passphrase != nil
        case "pins": pins != nil
        case "ca_certificate": caCertificate != nil
        default: false
        }
    }

    /// The secret the method needs, checked; nil (with problems recorded) when it is missing or bad.
    private func checkedSecret(for method: VaultProtectionSpace.Method, problem: (String, String) -> Void) -> VaultSecret? {
        switch method {
        case .basic, .digest:
            var ok = true
            if let username {
                if username.isEmpty || username.count > 1024 || username.contains(where: \.isControlCharacter) {
                    problem("username", "must be 1 to 1024 characters without control characters"); ok = false
                } else if method == .basic, username.contains(":") {
                    problem("username", "must not contain ':' for basic (the password starts after the first colon)"); ok = false
                }
            } else {
                problem("username", "is required for \(method.rawValue)"); ok = false
            }
            if let password {
                if password.utf8.count > Self.maximumSecretLength || password.contains(where: { $0 == "\0" || $0.isNewline }) {
                    problem("password", "must be at most \(Self.maximumSecretLength) bytes on one line"); ok = false
                }
            } else {
                problem("password", "is required for \(method.rawValue)"); ok = false
            }
            guard ok, let username, let password else { return nil }
            return .password(username: username, password: password)
        case .bearer:
            guard let token else {
                problem("token", "is required for bearer")
                return nil
            }
            guard !token.isEmpty, token.utf8.count <= Self.maximumSecretLength,
                  token.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isControlCharacter })
            else {
                problem("token", "must be 1 to \(Self.maximumSecretLength) visible ASCII characters")
                return nil
            }
            return .token(token)
        case .clientCertificate:
            guard let identity else {
                problem("identity", "is required for client_certificate (PEM certificate and key, or base64 PKCS#12)")
                return nil
            }
            if let passphrase, passphrase.utf8.count > 1024 || passphrase.contains("\0") {
                problem("passphrase", "must be at most 1024 bytes")
                return nil
            }
            guard identity.utf8.count <= Self.maximumDocumentLength, let parsed = Self.identity(identity, passphrase: passphrase) else {
                problem("identity", "must be PEM text with a certificate and its private key, or base64 PKCS#12, at most 64 KiB")
                return nil
            }
            return .identity(parsed)
        case .serverTrust:
            var ok = true
            if pins == nil && caCertificate == nil {
                problem("pins", "pins or ca_certificate is required for server_trust")
                return nil
            }
            if let pins, pins.isEmpty || pins.count > Self.maximumPins || !pins.allSatisfy(Self.isPin) {
                problem("pins", "must be 1 to \(Self.maximumPins) public-key pins, each sha256// and the base64 of 32 bytes"); ok = false
            }
            if let caCertificate,
               caCertificate.utf8.count > Self.maximumDocumentLength || TrustedServerCertificate(host: "ca", certificatePEM: caCertificate) == nil {
                problem("ca_certificate", "must be a PEM certificate (-----BEGIN CERTIFICATE-----), at most 64 KiB"); ok = false
            }
            guard ok else { return nil }
            return .trust(pins: pins ?? [], caCertificatePEM: caCertificate)
        }
    }

    static func identity(_ text: String, passphrase: String?) -> VaultIdentity? {
        if text.contains("-----BEGIN") {
            guard text.contains("-----BEGIN CERTIFICATE-----"), VaultIdentity.privateKeyBlock(in: text) != nil else { return nil }
            return VaultIdentity(format: .pem, data: Data(text.utf8), passphrase: passphrase)
        }
        // Base64 of a DER SEQUENCE (a PKCS#12 PFX starts with one); line breaks allowed, nothing else.
        let base64 = text.filter { !$0.isWhitespace }
        guard let bytes = Data(base64Encoded: base64), bytes.count > 16, bytes.first == 0x30 else { return nil }
        return VaultIdentity(format: .pkcs12, data: bytes, passphrase: passphrase)
    }

    static func isPin(_ pin: String) -> Bool {
        guard pin.hasPrefix("sha256//"), let digest = Data(base64Encoded: String(pin.dropFirst("sha256//".count))) else { return false }
        return digest.count == 32
    }

    /// Lower case, IPv6 literals without brackets: as the engine names a space's host.
    static func normalizedHost(_ host: String) -> String {
        host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    static func isHostName(_ host: String) -> Bool {
        guard (1...253).contains(host.unicodeScalars.count) else { return false }
        if host.contains(":") { return host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        return host.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." || $0 == "_" }
    }
}

extension Character {
    fileprivate var isControlCharacter: Bool { unicodeScalars.contains { $0.properties.generalCategory == .control } }
}
