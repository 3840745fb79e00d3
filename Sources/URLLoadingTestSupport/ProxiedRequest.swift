/// One request a `ForwardProxyServer` received, whether or not it was let through.
public struct ProxiedRequest: Sendable, Hashable {
    /// "GET", "CONNECT", ...
    public var method: String
    /// The absolute URI ("http://127.0.0.1:PORT/path"), or "host:port" for CONNECT.
    public var target: String
    /// The `Proxy-Authorization` header as sent, if any.
    public var proxyAuthorization: String?

    public init(method: String, target: String, proxyAuthorization: String?) {
        self.method = method
        self.target = target
        self.proxyAuthorization = proxyAuthorization
    }
}
