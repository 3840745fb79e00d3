import Foundation

/// RFC 9111 for a private cache: what may be stored, how long it stays fresh, how it is revalidated
/// and refreshed (CA-09). Pure functions of headers and times, so they are tested without a network.
///
/// Every cache applies the same rules: `ferry get --cache-dir` (`LocalResponseCache`) and the
/// gateway's tenant cache differ only in what `ResponseCache.isSharedAmongCredentials` says.
enum HTTPCacheRules {
    // MARK: - Storing (§3)

    /// Status codes a cache may give a heuristic freshness lifetime (RFC 9110 §15.1, RFC 9111 §4.2.2).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Whether a response to `request` may be stored (§3): a final status other than 304 (and a 206
    /// only with one part of a known whole, §3.3), to a GET, without `no-store` on either side and not
    /// `Vary: *`, that says how long it stays fresh (`max-age`, `Expires`), is marked cacheable
    /// (`public`, or `private`: this is a private cache), or has a heuristically cacheable status. `s-maxage` is ignored (§5.2.2.10). A cache
    /// shared among credentials stores a response to a request with `Authorization` only when it
    /// says `public`, `must-revalidate` or `s-maxage` (§3.5).
    static func isStorable(request: TransferRequest, response: TransferResponse, sharedAmongCredentials: Bool) -> Bool {
        guard let status = response.statusCode, status >= 200, status != 304, status != 206 || contentRange(of: response) != nil,
            ResponseCacheKey.key(for: request) != nil,
            ResponseCacheKey.varyingHeaderNames(of: response) != nil
        else { return false }
        let control = CacheControl(response.headers)
        if control.has("no-store") || CacheControl(request.headers).has("no-store") { return false }
        if sharedAmongCredentials, request.headers.contains("Authorization"),
            !control.has("public"), !control.has("must-revalidate"), !control.has("s-maxage")
        {
            return false
        }
        return control.has("public") || control.has("private") || control.has("max-age") || response.headers.contains("Expires")
            || heuristicallyCacheable.contains(status)
    }

    /// Hop-by-hop fields (RFC 9110 §7.6.1) and the proxy's authentication fields: never stored (§3.1).
    private static let unstoredHeaders: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// `headers` without what §3.1 forbids a cache to store: the hop-by-hop fields, and every field
    /// the `Connection` header names.
    static func storableHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        var named = unstoredHeaders
        for value in headers.values(for: "Connection") {
            for name in value.split(separator: ",") { named.insert(name.trimmingCharacters(in: .whitespaces).lowercased()) }
        }
        var kept = HTTPHeaders()
        for field in headers where !named.contains(field.name.lowercased()) { kept.add(name: field.name, value: field.value) }
        return kept
    }

    // MARK: - Invalidation (§4.4)

    /// Methods that do not change the resource (RFC 9110 §9.2.1); every other one, unknown ones
    /// included, may.
    private static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// The URLs whose stored responses `response` invalidates (§4.4): after a non-error response
    /// (2xx, 3xx) to an unsafe method, the target URL, and the `Location` and `Content-Location`
    /// URLs of the same origin (another origin's could be invalidated by anyone who can send a
    /// request, which is a denial of service).
    static func invalidatedURLs(request: TransferRequest, response: TransferResponse) -> [URL] {
        guard !safeMethods.contains(request.method.uppercased()), let status = response.statusCode, (200..<400).contains(status)
        else { return [] }
        var urls = [request.url]
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers[name], let url = URL(string: value, relativeTo: request.url)?.absoluteURL,
                isSameOrigin(url, request.url)
            else { continue }
            urls.append(url)
        }
        return urls
    }

    private static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }

    // MARK: - Freshness (§4.2)

    /// How long the response is fresh from its origin's point of view (§4.2.1): `max-age` (an invalid
    /// one: not fresh), else `Expires − Date` (an Expires that is not an HTTP-date: already expired,
    /// §5.3), else, only for a heuristically cacheable status or a `public` response, 10% of
    /// `Date − Last-Modified` (§4.2.2), else 0.
    static func freshnessLifetime(of response: TransferResponse, receivedAt responseDate: Date) -> TimeInterval {
        let control = CacheControl(response.headers)
        if control.has("max-age") { return control.seconds("max-age").map(TimeInterval.init) ?? 0 }
        let date = response.headers["Date"].flatMap { HTTPDate.parse($0) } ?? responseDate
        if let expiresText = response.headers["Expires"] {
            guard let expires = HTTPDate.parse(expiresText) else { return 0 }
            return max(0, expires.timeIntervalSince(date))
        }
        guard heuristicallyCacheable.contains(response.statusCode ?? 0) || control.has("public") else { return 0 }
        if let lastModified = response.headers["Last-Modified"].flatMap({ HTTPDate.parse($0) }) {
            return max(0, date.timeIntervalSince(lastModified) / 10)
        }
        return 0
    }

    /// What §5.1 says the greatest Age is, for values that do not fit.
    private static let largestAge = 2_147_483_648

    /// The `Age` header's value (§5.1): delta-seconds, the first of a list; an invalid one (`7200.0`,
    /// `-1`) is ignored (0).
    static func ageValue(of headers: HTTPHeaders) -> TimeInterval {
        guard let value = headers["Age"], let first = value.split(separator: ",", omittingEmptySubsequences: false).first
        else { return 0 }
        let digits = first.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return 0 }
        return TimeInterval(min(Int(digits) ?? largestAge, largestAge))
    }

    /// The entry's age now (§4.2.3): what it was when it arrived (the larger of `Date`'s apparent
    /// age and `Age` plus the request's round trip) plus the time it has spent in the cache.
    static func currentAge(of entry: CachedResponse, now: Date) -> TimeInterval {
        let headers = entry.response.headers
        let dateValue = headers["Date"].flatMap { HTTPDate.parse($0) } ?? entry.responseDate
        let apparentAge = max(0, entry.responseDate.timeIntervalSince(dateValue))
        let responseDelay = max(0, entry.responseDate.timeIntervalSince(entry.requestDate))
        let correctedInitialAge = max(apparentAge, ageValue(of: headers) + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(entry.responseDate))
    }

    /// The stored response as the cache serves it: with an `Age` header that says its current age in
    /// whole seconds (§5.1, §4.2.3), replacing the one it arrived with.
    static func served(_ entry: CachedResponse, now: Date) -> CachedResponse {
        var served = entry
        let age = min(currentAge(of: entry, now: now).rounded(.down), TimeInterval(largestAge))
        served.response.headers["Age"] = String(Int(age))
        return served
    }

    enum Use: Equatable {
        /// Fresh, or stale within what the request's `max-stale` accepts: serve it.
        case serve
        /// Stale within the response's `stale-while-revalidate` (RFC 5861 §3): serve it, and ask
        /// the origin again in the background.
        case serveWhileRevalidating
        /// Stale, or it must be checked every time: ask the origin with a conditional request.
        case revalidate
    }

    /// What protocol policy does with `entry` for `request` (CA-09). `no-cache` on either side and a
    /// request `max-age` shorter than the entry's age always revalidate; a request's `min-fresh`
    /// wants that many seconds of freshness left (§5.2.1.3). A stale entry is served only within
    /// the request's `max-stale` (§5.2.1.2) or the response's `stale-while-revalidate`, and never
    /// when the response says `must-revalidate` (§5.2.2.2).
    static func use(of entry: CachedResponse, for request: TransferRequest, now: Date) -> Use {
        let responseControl = CacheControl(entry.response.headers)
        let requestControl = CacheControl(request.headers)
        if responseControl.has("no-cache") || requestControl.has("no-cache") { return .revalidate }
        let age = currentAge(of: entry, now: now)
        if let maxAge = requestControl.seconds("max-age"), age > TimeInterval(maxAge) { return .revalidate }
        let lifetime = freshnessLifetime(of: entry.response, receivedAt: entry.responseDate)
        if let minFresh = requestControl.seconds("min-fresh"), lifetime - age < TimeInterval(minFresh) { return .revalidate }
        if lifetime > age { return .serve }
        let staleness = age - lifetime
        if responseControl.has("must-revalidate") { return .revalidate }
        if requestControl.has("max-stale") {
            // Without an argument, any staleness is accepted.
            guard let limit = requestControl.seconds("max-stale") else { return .serve }
            if staleness <= TimeInterval(limit) { return .serve }
        }
        if let window = responseControl.seconds("stale-while-revalidate"), staleness <= TimeInterval(window) {
            return .serveWhileRevalidating
        }
        return .revalidate
    }

    /// Whether a stored entry may answer in place of an error (a failed connection, or a 500, 502,
    /// 503 or 504) while the response's or the request's `stale-if-error` covers its staleness
    /// (RFC 5861 §4), and nothing forbids serving it stale (`no-cache`, `must-revalidate`, §4.2.4).
    static func mayServeOnError(_ entry: CachedResponse, for request: TransferRequest, now: Date) -> Bool {
        let responseControl = CacheControl(entry.response.headers)
        let requestControl = CacheControl(request.headers)
        guard !responseControl.has("no-cache"), !requestControl.has("no-cache"), !responseControl.has("must-revalidate") else {
            return false
        }
        let windows = [responseControl.seconds("stale-if-error"), requestControl.seconds("stale-if-error")].compactMap { $0 }
        guard let window = windows.max() else { return false }
        let staleness = currentAge(of: entry, now: now) - freshnessLifetime(of: entry.response, receivedAt: entry.responseDate)
        return staleness <= TimeInterval(window)
    }

    /// The statuses RFC 5861 §4 counts as errors.
    static let errorStatuses: Set<Int> = [500, 502, 503, 504]

    /// What the cache answers a request with `only-if-cached` that no stored response satisfies (§5.2.1.7).
    static func gatewayTimeout(for request: TransferRequest) -> CachedResponse {
        let response = TransferResponse(
            url: request.url, statusCode: 504, headers: ["Content-Length": "0"], expectedContentLength: 0)
        return CachedResponse(response: response, data: Data())
    }

    // MARK: - Revalidation (§4.3)

    /// `request` made conditional on `entry`'s validators (`If-None-Match` for an ETag, exactly as the
    /// origin sent it, `If-Modified-Since` for a Last-Modified); nil when the entry has neither and
    /// must be fetched anew.
    static func conditionalRequest(_ request: TransferRequest, for entry: CachedResponse) -> TransferRequest? {
        let etag = entry.response.headers["ETag"]
        let lastModified = entry.response.headers["Last-Modified"]
        guard etag != nil || lastModified != nil else { return nil }
        var conditional = request
        if let etag { conditional.headers["If-None-Match"] = etag }
        if let lastModified { conditional.headers["If-Modified-Since"] = lastModified }
        return conditional
    }

    /// Whether a 304 to a revalidation names the stored entry, so that it may refresh it (§4.3.4): a
    /// strong ETag must match the entry's strongly, a weak one weakly (RFC 9110 §8.8.3.2); without an
    /// ETag, a Last-Modified must be the entry's. A 304 without validators refreshes the one entry
    /// that was revalidated.
    static func notModifiedSelects(_ entry: CachedResponse, _ notModified: TransferResponse) -> Bool {
        guard let tag = notModified.headers["ETag"] else {
            guard let date = notModified.headers["Last-Modified"] else { return true }
            return entry.response.headers["Last-Modified"].flatMap { HTTPDate.parse($0) } == HTTPDate.parse(date)
        }
        guard let stored = entry.response.headers["ETag"] else { return false }
        let (new, old) = (EntityTag(Substring(tag)), EntityTag(Substring(stored)))
        return new.isWeak ? new.matchesWeakly(old) : new.matchesStrongly(old)
    }

    /// Headers a 304 must not replace: they describe the stored body, not the new message (§3.2).
    private static let bodyHeaders: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range"]

    /// The entry after a 304 (§4.3.4): the 304's storable headers replace the stored ones of the same
    /// name, the body stays, and the age calculation restarts from this exchange.
    static func refreshed(
        _ entry: CachedResponse, with notModified: TransferResponse, requestDate: Date, responseDate: Date
    ) -> CachedResponse {
        var headers = entry.response.headers
        let update = storableHeaders(notModified.headers)
        let replaced = Set(update.map { $0.name.lowercased() }).subtracting(bodyHeaders)
        for name in replaced { headers.removeAll(name) }
        for field in update where replaced.contains(field.name.lowercased()) {
            headers.add(name: field.name, value: field.value)
        }
        var refreshed = entry
        refreshed.response.headers = headers
        refreshed.requestDate = requestDate
        refreshed.responseDate = responseDate
        return refreshed
    }

    /// Whether a request may be answered by any stored entry, under every cache policy: a plain GET
    /// with no body, no range and no preconditions. The caller's own conditional and single-range
    /// requests have rules of their own (`isCallersConditional`, `isSingleRangeRequest`).
    static func isLookupEligible(_ request: TransferRequest) -> Bool {
        guard ResponseCacheKey.key(for: request) != nil, request.body == nil else { return false }
        return !["Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"]
            .contains { request.headers.contains($0) }
    }
}
