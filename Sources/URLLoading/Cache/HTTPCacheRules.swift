import Foundation

/// RFC 9111 for a private cache: what may be stored, how long it stays fresh, how it is revalidated
/// and refreshed (CA-09). Pure functions of headers and times, so they are tested without a network.
enum HTTPCacheRules {
    // MARK: - Storing (§3)

    /// Whether a response to `request` may be stored: a complete 2xx (not 206) to a GET without
    /// `no-store` on either side; `private` is fine (this is a private cache) and `s-maxage` is
    /// ignored. A request with `Authorization` is stored only when the response says `public` or
    /// `must-revalidate` (§3.5). `Vary: *` never matches, so it is not stored either.
    static func isStorable(request: TransferRequest, response: TransferResponse) -> Bool {
        guard let status = response.statusCode, (200..<300).contains(status), status != 206,
            ResponseCacheKey.key(for: request) != nil,
            ResponseCacheKey.varyingHeaderNames(of: response) != nil
        else { return false }
        let responseControl = CacheControl(response.headers)
        if responseControl.has("no-store") || CacheControl(request.headers).has("no-store") { return false }
        if request.headers.contains("Authorization"), !responseControl.has("public"), !responseControl.has("must-revalidate") {
            return false
        }
        return true
    }

    // MARK: - Freshness (§4.2)

    /// How long the response is fresh from its origin's point of view (§4.2.1): `max-age`, else
    /// `Expires − Date`, else 10% of `Date − Last-Modified` (the heuristic of §4.2.2), else 0.
    static func freshnessLifetime(of response: TransferResponse, receivedAt responseDate: Date) -> TimeInterval {
        let control = CacheControl(response.headers)
        if let maxAge = control.seconds("max-age") { return TimeInterval(maxAge) }
        let date = response.headers["Date"].flatMap(CookieDateParser.parse) ?? responseDate
        if let expiresText = response.headers["Expires"] {
            // An unparseable Expires ("0") means already expired (§5.3).
            guard let expires = CookieDateParser.parse(expiresText) else { return 0 }
            return max(0, expires.timeIntervalSince(date))
        }
        if let lastModified = response.headers["Last-Modified"].flatMap(CookieDateParser.parse) {
            return max(0, date.timeIntervalSince(lastModified) / 10)
        }
        return 0
    }

    /// The entry's age now (§4.2.3): what it was when it arrived (the larger of `Date`'s apparent
    /// age and `Age` plus the request's round trip) plus the time it has spent in the cache.
    static func currentAge(of entry: CachedResponse, now: Date) -> TimeInterval {
        let headers = entry.response.headers
        let ageValue = headers["Age"].flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let dateValue = headers["Date"].flatMap(CookieDateParser.parse) ?? entry.responseDate
        let apparentAge = max(0, entry.responseDate.timeIntervalSince(dateValue))
        let responseDelay = max(0, entry.responseDate.timeIntervalSince(entry.requestDate))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(entry.responseDate))
    }

    enum Use: Equatable {
        /// Fresh: serve it.
        case serve
        /// Stale, or it must be checked every time: ask the origin with a conditional request.
        case revalidate
    }

    /// What protocol policy does with `entry` for `request` (CA-09): fresh entries are served,
    /// unless the response or the request says `no-cache` or the request's `max-age` is shorter than
    /// the entry's age; everything else is revalidated (`must-revalidate` entries included: stale
    /// entries are never served).
    static func use(of entry: CachedResponse, for request: TransferRequest, now: Date) -> Use {
        let responseControl = CacheControl(entry.response.headers)
        let requestControl = CacheControl(request.headers)
        if responseControl.has("no-cache") || requestControl.has("no-cache") { return .revalidate }
        let age = currentAge(of: entry, now: now)
        if let maxAge = requestControl.seconds("max-age"), age > TimeInterval(maxAge) { return .revalidate }
        return freshnessLifetime(of: entry.response, receivedAt: entry.responseDate) > age ? .serve : .revalidate
    }

    // MARK: - Revalidation (§4.3)

    /// `request` made conditional on `entry`'s validators (`If-None-Match` for an ETag,
    /// `If-Modified-Since` for a Last-Modified); nil when the entry has neither and must be fetched anew.
    static func conditionalRequest(_ request: TransferRequest, for entry: CachedResponse) -> TransferRequest? {
        let etag = entry.response.headers["ETag"]
        let lastModified = entry.response.headers["Last-Modified"]
        guard etag != nil || lastModified != nil else { return nil }
        var conditional = request
        if let etag { conditional.headers["If-None-Match"] = etag }
        if let lastModified { conditional.headers["If-Modified-Since"] = lastModified }
        return conditional
    }

    /// Headers a 304 must not replace: they describe the stored body, not the new message (§3.2).
    private static let bodyHeaders: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range"]

    /// The entry after a 304 (§4.3.4): the 304's headers replace the stored ones of the same name,
    /// the body stays, and the age calculation restarts from this exchange.
    static func refreshed(
        _ entry: CachedResponse, with notModified: TransferResponse, requestDate: Date, responseDate: Date
    ) -> CachedResponse {
        var headers = entry.response.headers
        let replaced = Set(notModified.headers.map { $0.name.lowercased() }).subtracting(bodyHeaders)
        for name in replaced { headers.removeAll(name) }
        for field in notModified.headers where replaced.contains(field.name.lowercased()) {
            headers.add(name: field.name, value: field.value)
        }
        var refreshed = entry
        refreshed.response.headers = headers
        refreshed.requestDate = requestDate
        refreshed.responseDate = responseDate
        return refreshed
    }

    /// Whether a request may be answered from the cache at all: a plain GET with no body, no range and
    /// no validators of its own (those are the caller's conditional request, passed through as is).
    static func isLookupEligible(_ request: TransferRequest) -> Bool {
        guard ResponseCacheKey.key(for: request) != nil, request.body == nil else { return false }
        return !["Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"]
            .contains { request.headers.contains($0) }
    }
}
