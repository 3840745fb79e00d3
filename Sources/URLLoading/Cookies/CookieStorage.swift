import Foundation

/// Which cookies a storage takes from responses (CK-05, SES-22).
public enum CookieAcceptPolicy: String, Sendable, Equatable, Codable {
    case always
    case never
    /// Only from responses whose host belongs to the same site (registrable domain) as the request's
    /// `mainDocumentURL`; a request without one is its own main document.
    case onlyFromMainDocumentDomain
}

/// What changed in a cookie storage (CK-07): what a persistence layer writes down, in order.
public enum CookieChange: Sendable, Equatable {
    /// Stored, new or replacing one of the same name, domain and path.
    case stored(Cookie)
    /// Deleted: by hand, by a response that expired it, or because it expired.
    case deleted(Cookie)
    case acceptPolicyChanged(CookieAcceptPolicy)
}

/// Where a session keeps cookies (CK-04, CK-08, CK-09). The engine reads and writes it on its
/// transfer threads, so implementations answer synchronously from memory; persistence (the gateway's
/// PostgreSQL jar) follows `changes()` asynchronously and fills a new storage from what it saved.
/// `InMemoryCookieStorage` is the implementation; sessions sharing one storage share its cookies
/// and its accept policy (CK-06).
public protocol CookieStorage: AnyObject, Sendable {
    var acceptPolicy: CookieAcceptPolicy { get set }
    /// Every cookie not yet expired.
    var cookies: [Cookie] { get }
    /// Stores `cookie`, replacing one of the same identity; an expired cookie deletes that one instead.
    func setCookie(_ cookie: Cookie)
    func deleteCookie(_ cookie: Cookie)
    /// The changes from now on, as long as the stream is iterated.
    func changes() -> AsyncStream<CookieChange>
}

extension CookieStorage {
    /// The cookies for a request to `url`, in `Cookie` header order (RFC 6265 §5.4): longer paths
    /// first, then older first. With `mainDocumentURL` on another site, SameSite=Strict cookies stay
    /// home, and SameSite=Lax ones go only with safe methods.
    public func cookies(for url: URL, mainDocumentURL: URL? = nil, method: String = "GET") -> [Cookie] {
        let crossSite = mainDocumentURL.map { main in
            !PublicSuffixList.isSameSite(main.host ?? "", url.host ?? "")
        } ?? false
        let safeMethod = ["GET", "HEAD", "OPTIONS"].contains(method.uppercased())
        let now = Date()
        return cookies
            .filter { cookie in
                guard cookie.matches(url), !cookie.isExpired(at: now) else { return false }
                guard crossSite else { return true }
                switch cookie.sameSite {
                case .some(.strict): return false
                case .some(.lax): return safeMethod
                case .some(.none), nil: return true
                }
            }
            .sorted { a, b in
                a.path.count != b.path.count ? a.path.count > b.path.count : a.creationDate < b.creationDate
            }
    }

    /// The `Cookie` header value for a request, or nil when no cookie goes with it (CK-02).
    public func cookieHeader(for url: URL, mainDocumentURL: URL? = nil, method: String = "GET") -> String? {
        let matching = cookies(for: url, mainDocumentURL: mainDocumentURL, method: method)
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Takes the `Set-Cookie` headers of a response from `url` under `policy` (CK-03): parsed per RFC
    /// 6265, refused when malformed or for a public suffix. Returns the cookies it stored.
    @discardableResult
    public func storeCookies(
        from headers: HTTPHeaders, for url: URL, mainDocumentURL: URL? = nil, policy: CookieAcceptPolicy? = nil
    ) -> [Cookie] {
        let values = headers.values(for: "Set-Cookie")
        guard !values.isEmpty else { return [] }
        switch policy ?? acceptPolicy {
        case .never:
            return []
        case .onlyFromMainDocumentDomain:
            if let main = mainDocumentURL, !PublicSuffixList.isSameSite(main.host ?? "", url.host ?? "") { return [] }
        case .always:
            break
        }
        let now = Date()
        // A microsecond apart: cookies of one response keep their header order among equal paths (§5.4).
        let parsed = values.enumerated().compactMap { index, value in
            SetCookieParser.parse(value, from: url, now: now.addingTimeInterval(TimeInterval(index) / 1_000_000))
        }
        for cookie in parsed { setCookie(cookie) }
        return parsed
    }

    /// Deletes every cookie created at or after `date`.
    public func removeCookies(since date: Date) {
        for cookie in cookies where cookie.creationDate >= date { deleteCookie(cookie) }
    }
}
