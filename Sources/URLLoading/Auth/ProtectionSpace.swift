/// A region that requires authentication: a server (or proxy) host and port, a scheme, a realm and a
/// method (AU-01, AU-04).
///
/// Two spaces are equal when host, port, scheme, realm, method and proxy-ness are; the server trust a
/// server-trust space carries is not part of its identity.
public struct ProtectionSpace: Sendable, Hashable, CustomStringConvertible {
    /// Lower-cased host name or address literal.
    public var host: String
    public var port: Int
    /// `http`, `https`, `ftp`, ... for a server; the proxy's scheme for a proxy.
    public var scheme: String
    public var realm: String?
    public var authenticationMethod: AuthenticationMethod
    /// The space belongs to a proxy (407 / `Proxy-Authenticate`) rather than the origin server.
    public var isProxy: Bool
    /// The server's certificate chain, for `serverTrust` spaces only (TLS-01, TLS-06).
    public var serverTrust: ServerTrust?

    public init(host: String, port: Int, scheme: String, realm: String? = nil,
                authenticationMethod: AuthenticationMethod, isProxy: Bool = false, serverTrust: ServerTrust? = nil) {
        self.host = host.lowercased()
        self.port = port
        self.scheme = scheme.lowercased()
        self.realm = realm
        self.authenticationMethod = authenticationMethod
        self.isProxy = isProxy
        self.serverTrust = serverTrust
    }

    public static func == (lhs: ProtectionSpace, rhs: ProtectionSpace) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.scheme == rhs.scheme && lhs.realm == rhs.realm
            && lhs.authenticationMethod == rhs.authenticationMethod && lhs.isProxy == rhs.isProxy
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(scheme)
        hasher.combine(realm)
        hasher.combine(authenticationMethod)
        hasher.combine(isProxy)
    }

    public var description: String {
        let realmText = realm.map { " realm \"\($0)\"" } ?? ""
        return "\(isProxy ? "proxy " : "")\(scheme)://\(host):\(port)\(realmText) (\(authenticationMethod.rawValue))"
    }
}
