/// An absolute-form request target, "http://host[:port]/path?query", split the way a
/// forward proxy needs it.
struct AbsoluteHTTPURI {
    /// "host:port" as written in the URI (the port may be absent).
    let authority: String
    let host: String
    let port: Int
    /// Origin form: what goes on the request line sent upstream. Never empty.
    let pathAndQuery: String

    init?(_ uri: String) {
        let scheme = "http://"
        guard uri.lowercased().hasPrefix(scheme) else { return nil }
        let rest = uri.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        authority = String(rest[..<authorityEnd])
        var path = String(rest[authorityEnd...])
        if let fragment = path.firstIndex(of: "#") {
            path = String(path[..<fragment])
        }
        pathAndQuery = path.hasPrefix("/") ? path : "/" + path

        // "[::1]:8080", "[::1]", "127.0.0.1:8080", "localhost"
        let hostPart: Substring
        if authority.hasSuffix("]") || !authority.contains(":") {
            hostPart = Substring(authority)
            port = 80
        } else if let (host, port) = LoopbackTarget.splitHostAndPort(authority) {
            hostPart = Substring(host)
            self.port = port
        } else {
            return nil
        }
        guard !hostPart.isEmpty else { return nil }
        host = String(hostPart)
    }
}
