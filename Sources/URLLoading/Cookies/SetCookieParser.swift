import Foundation

/// Turns a `Set-Cookie` header into a cookie the way RFC 6265 §5.2 and §5.3 say a user agent must
/// (CK-01, CK-03), or refuses it:
/// - Domain: lower-cased, one leading dot dropped (a second one matches no host); it must domain-match the request's host and not be a
///   public suffix (libpsl), else the cookie is refused. Without it the cookie is host-only.
/// - Path: kept when it starts with "/", else the request path's directory (§5.1.4).
/// - Max-Age wins over Expires; both accept every date format of §5.1.1. Max-Age ≤ 0 or a past
///   Expires makes an already expired cookie, which deletes a stored one of the same identity.
/// - Secure, HttpOnly and SameSite are kept; a Secure cookie from http is refused (RFC 6265bis),
///   and so is SameSite=None without Secure.
/// - Only http and https responses set cookies.
enum SetCookieParser {
    /// RFC 6265bis caps a lifetime at 400 days; it also keeps the date arithmetic finite.
    static let maximumMaxAge = 400 * 86_400

    static func parse(_ header: String, from url: URL, now: Date = Date()) -> Cookie? {
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", let rawHost = url.host, !rawHost.isEmpty else { return nil }
        let host = Cookie.canonicalDomain(rawHost)

        var pieces = header.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let pair = pieces.next(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count + value.count <= 4096 else { return nil }

        var domainText: String?
        var path: String?
        var maxAge: Int?
        var expires: Date?
        var secure = false
        var httpOnly = false
        var sameSite: Cookie.SameSite?
        while let piece = pieces.next() {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let attribute = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            let attributeValue = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            switch attribute {
            case "expires":
                if let date = CookieDateParser.parse(attributeValue) { expires = date }
            case "max-age":
                // §5.2.2: a leading "-" or digits only; anything else ignores the attribute.
                let digits = attributeValue.hasPrefix("-") ? attributeValue.dropFirst() : Substring(attributeValue)
                if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    maxAge = Int(attributeValue) ?? (attributeValue.hasPrefix("-") ? Int.min : Int.max)
                }
            case "domain":
                // An empty Domain is ignored (§5.2.3); the last non-empty one wins (§5.3 step 4).
                if !attributeValue.isEmpty { domainText = attributeValue }
            case "path":
                path = attributeValue.hasPrefix("/") ? attributeValue : nil
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            case "samesite":
                switch attributeValue.lowercased() {
                case "strict": sameSite = .strict
                case "lax": sameSite = .lax
                case "none": sameSite = Cookie.SameSite.none
                default: break
                }
            default:
                break
            }
        }

        let expiresDate: Date?
        if let maxAge {
            expiresDate = maxAge <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(min(maxAge, Self.maximumMaxAge)))
        } else {
            expiresDate = expires
        }

        // §5.2.3 removes exactly one leading dot: "..example.org" keeps one, matches no host, and
        // the cookie is ignored (§5.3 step 6).
        if let text = domainText, text.dropFirst(text.hasPrefix(".") ? 1 : 0).hasPrefix(".") { return nil }
        let domainAttribute = domainText.map(Cookie.canonicalDomain)
        let domain: String
        let hostOnly: Bool
        if let domainAttribute, domainAttribute != host {
            guard PublicSuffixList.isCookieDomainAcceptable(host: host, cookieDomain: domainAttribute) else { return nil }
            domain = domainAttribute
            hostOnly = false
        } else {
            // Domain naming the host itself (even a public suffix, §5.3 step 5) acts as host-only
            // for suffixes, and as a domain cookie otherwise.
            domain = host
            hostOnly = domainAttribute == nil || PublicSuffixList.registrableDomain(of: host) == nil
        }
        if secure, scheme != "https" { return nil }
        if sameSite == Cookie.SameSite.none, !secure { return nil }

        return Cookie(
            name: name, value: value, domain: domain, path: path ?? Cookie.defaultPath(for: url),
            expiresDate: expiresDate, isSecure: secure, isHTTPOnly: httpOnly, sameSite: sameSite, isHostOnly: hostOnly,
            creationDate: now)
    }
}
