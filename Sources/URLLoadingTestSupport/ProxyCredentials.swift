import Crypto
import Foundation

/// The user name and password a test proxy demands.
struct ProxyCredentials: Sendable, Equatable {
    let user: String
    let password: String

    init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    init?(_ pair: (user: String, password: String)?) {
        guard let pair else { return nil }
        self.init(user: pair.user, password: pair.password)
    }

    /// Whether a `Proxy-Authorization` value is Basic authentication with these credentials.
    func accept(proxyAuthorization: String?) -> Bool {
        guard let proxyAuthorization else { return false }
        let parts = proxyAuthorization.trimmingSpaces.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: parts[1].trimmingSpaces)
        else {
            return false
        }
        return String(decoding: decoded, as: UTF8.self) == "\(user):\(password)"
    }

    /// Whether a `Proxy-Authorization` value is a correct Digest (SHA-256, qop=auth) answer to
    /// `nonce` for this request: for a CONNECT, the request target is "host:port".
    func acceptDigest(proxyAuthorization: String?, method: String, target: String, realm: String, nonce: String) -> Bool {
        guard let proxyAuthorization, proxyAuthorization.lowercased().hasPrefix("digest ") else { return false }
        let fields = DigestFields.parse(String(proxyAuthorization.dropFirst("digest ".count)))
        guard fields["username"] == user, fields["realm"] == realm, fields["nonce"] == nonce, fields["uri"] == target,
              fields["qop"] == "auth", fields["algorithm"] == "SHA-256", let count = fields["nc"], let clientNonce = fields["cnonce"]
        else { return false }
        func hash(_ text: String) -> String { SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        let expected = hash("\(hash("\(user):\(realm):\(password)")):\(nonce):\(count):\(clientNonce):auth:\(hash("\(method):\(target)"))")
        return fields["response"] == expected
    }
}
