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
}
