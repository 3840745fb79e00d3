import Foundation

/// One cookie as the storage model of RFC 6265 §5.3 keeps it (CK-01): made from a `Set-Cookie`
/// header by `SetCookieParser`, or by hand (CK-08), and turned back into a `Cookie` header by
/// `CookieStorage.cookieHeader(for:)`.
///
/// `domain` is lower case without a leading dot. A host-only cookie goes back to exactly that host;
/// a domain cookie also to its subdomains. A cookie without `expiresDate` lasts for the session (in
/// practice: as long as the storage holding it).
public struct Cookie: Sendable, Hashable, Codable {
    public enum SameSite: String, Sendable, Hashable, Codable {
        case strict = "Strict", lax = "Lax", none = "None"
    }

    public var name: String
    public var value: String
    public var domain: String
    public var path: String
    public var expiresDate: Date?
    public var isSecure: Bool
    public var isHTTPOnly: Bool
    public var sameSite: SameSite?
    /// True when the `Set-Cookie` had no Domain attribute: only the exact host gets it back.
    public var isHostOnly: Bool
    /// Orders cookies of equal path length in a `Cookie` header (RFC 6265 §5.4 step 2).
    public var creationDate: Date

    public init(
        name: String, value: String, domain: String, path: String = "/", expiresDate: Date? = nil,
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: SameSite? = nil, isHostOnly: Bool = true,
        creationDate: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = Self.canonicalDomain(domain)
        self.path = path.isEmpty ? "/" : path
        self.expiresDate = expiresDate
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.isHostOnly = isHostOnly
        self.creationDate = creationDate
    }

    /// A cookie without an expiry date: it is not meant to outlive the session (curl writes 0).
    public var isSessionOnly: Bool { expiresDate == nil }

    /// Name, domain and path identify a cookie: a new one with the same three replaces the old
    /// (RFC 6265 §5.3 step 11).
    public struct Identity: Hashable, Sendable {
        public let name: String
        public let domain: String
        public let path: String
    }

    public var identity: Identity { Identity(name: name, domain: domain, path: path) }

    public func isExpired(at date: Date) -> Bool {
        expiresDate.map { $0 <= date } ?? false
    }

    /// Whether this cookie goes with a request for `url` (RFC 6265 §5.4 step 1): domain and path
    /// match, and a Secure cookie only over https (never over http, whatever the host).
    public func matches(_ url: URL) -> Bool {
        guard let host = url.host.map(Self.canonicalDomain), !host.isEmpty else { return false }
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else { return false }
        if isSecure, scheme != "https" { return false }
        if isHostOnly ? host != domain : !Self.domainMatches(host: host, domain: domain) { return false }
        return Self.pathMatches(requestPath: Self.requestPath(of: url), cookiePath: path)
    }

    // MARK: - RFC 6265 matching rules

    /// Lower case, without the leading dot the Domain attribute may carry (§5.2.3).
    static func canonicalDomain(_ domain: String) -> String {
        var text = domain.lowercased()
        if text.hasPrefix(".") { text.removeFirst() }
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        return text
    }

    /// §5.1.3: identical, or `host` ends with "." + `domain` and is a name, not an IP address.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix("." + domain) && !isIPAddress(host)
    }

    /// §5.1.4: identical, or the cookie path is a prefix ending at a "/" boundary.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// §5.1.4: the directory of the request path, the default Path of a cookie that names none.
    static func defaultPath(for url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else { return "/" }
        return String(path[..<lastSlash])
    }

    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in UInt8(part) != nil }
    }
}
