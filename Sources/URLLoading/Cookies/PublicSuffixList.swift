import Foundation
internal import CPSL

/// The public suffix list, through libpsl: the system's list (Debian's `publicsuffix` package) when
/// it can be read, else the one built into the library. Cookies must not be set on a public suffix
/// such as "com" or "co.uk" (RFC 6265 §5.3 step 5, CK-03); "only from the main document domain"
/// compares registrable domains.
enum PublicSuffixList {
    /// libpsl contexts are immutable after loading and safe to share between threads.
    private nonisolated(unsafe) static let context: OpaquePointer? = psl_latest(nil) ?? psl_builtin()

    /// Whether a cookie for `cookieDomain` may be set by a response from `host`: `cookieDomain` is
    /// `host` or one of its parents, and not a public suffix (unless it is the host itself, as a
    /// server on "github.io" may set a host-only-like cookie for itself).
    static func isCookieDomainAcceptable(host: String, cookieDomain: String) -> Bool {
        guard let context else { return Cookie.domainMatches(host: host, domain: cookieDomain) && cookieDomain.contains(".") }
        return psl_is_cookie_domain_acceptable(context, host, cookieDomain) != 0
    }

    /// "example.co.uk" for "www.example.co.uk"; nil for a public suffix itself or an IP address.
    static func registrableDomain(of host: String) -> String? {
        guard let context, !Cookie.isIPAddress(host), let pointer = psl_registrable_domain(context, host) else {
            return nil
        }
        return String(cString: pointer)
    }

    /// Whether `a` and `b` belong to the same site: the same registrable domain, or the same host
    /// when there is none (an IP address, "localhost").
    static func isSameSite(_ a: String, _ b: String) -> Bool {
        let (a, b) = (Cookie.canonicalDomain(a), Cookie.canonicalDomain(b))
        return (registrableDomain(of: a) ?? a) == (registrableDomain(of: b) ?? b)
    }
}
