import Foundation

/// An HTTP cache a session reads and writes (CA-02, CA-03, CA-17..CA-20). `LocalResponseCache` keeps
/// entries in memory and in a directory; the gateway may implement one per tenant elsewhere. The
/// engine calls it on its transfer threads, so every method answers promptly and is thread-safe.
///
/// Entries are keyed by `ResponseCacheKey` (GET and the URL without fragment, or a custom protocol's
/// own key), one per Vary variant; an entry is served only to a request with the same values for the
/// headers its response's `Vary` names.
public protocol ResponseCache: AnyObject, Sendable {
    /// The entry for `request`, or nil (CA-17).
    func cachedResponse(for request: TransferRequest) -> CachedResponse?
    /// Stores an entry for `request`, replacing the variant it belongs to (CA-20).
    func storeCachedResponse(_ cachedResponse: CachedResponse, for request: TransferRequest)
    /// Removes every variant stored for the request's URL.
    func removeCachedResponse(for request: TransferRequest)
    /// Removes every entry stored at or after `date` (CA-19).
    func removeCachedResponses(since date: Date)
    func removeAllCachedResponses()
    /// Capacities and usage in bytes (CA-18).
    var memoryCapacity: Int { get }
    var diskCapacity: Int { get }
    var currentMemoryUsage: Int { get }
    var currentDiskUsage: Int { get }
    /// Whether requests made with different credentials share the entries (the gateway's tenant
    /// cache, used by every job of a tenant): then a response to a request with `Authorization` is
    /// stored only when the origin allows it (RFC 9111 §3.5). A cache of one user's own (false, the
    /// default) stores it like any other.
    var isSharedAmongCredentials: Bool { get }
}

extension ResponseCache {
    public var isSharedAmongCredentials: Bool { false }
}

/// The key and Vary rules every cache shares.
///
/// A URL may have several entries, one per variant (RFC 9111 §4.1): each is stored under its
/// `storageKey`, the request's `key` followed by the values of the headers its response varies on;
/// a lookup takes, of the variants whose values match the request's, the most recent.
public enum ResponseCacheKey {
    /// "GET <url without fragment>" for a cacheable request (an http or https GET), else nil. A custom
    /// protocol's hop is keyed by the protocol (`TransferProtocol.cacheKey(for:)`), apart from http's.
    public static func key(for request: TransferRequest) -> String? {
        if let custom = request.protocolCacheKey { return "PROTOCOL " + custom }
        guard request.method.uppercased() == "GET", let scheme = request.url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        else { return nil }
        components.fragment = nil
        components.scheme = scheme
        components.host = components.host?.lowercased()
        return "GET " + (components.string ?? request.url.absoluteString)
    }

    /// The key `entry` is stored under for `request`: its variant of the request's key. A URL never
    /// holds a line break, so the variant part cannot be mistaken for part of another key.
    /// A stored part (206) has a key of its own beside the complete response's.
    public static func storageKey(of entry: CachedResponse, for request: TransferRequest) -> String? {
        guard let key = key(for: request) else { return nil }
        let variant = entry.varyingRequestHeaders.sorted { $0.key < $1.key }.map { "\n\($0.key): \($0.value)" }.joined()
        let part = HTTPCacheRules.contentRange(of: entry.response).map { "\ncontent-range: \($0.range)/\($0.length)" } ?? ""
        return key + variant + part
    }

    /// Of a URL's stored variants, the one to answer `request` with: of those its varying headers
    /// match (RFC 9111 §4.1), a complete response before a stored part (which answers only a range
    /// inside it, §3.4), then the most recent (by `Date`, else by arrival).
    public static func preferredVariant<Variant>(
        of variants: [Variant], for request: TransferRequest, entry: (Variant) -> CachedResponse
    ) -> Variant? {
        func rank(_ variant: Variant) -> (Int, Date) {
            let stored = entry(variant)
            return (stored.response.statusCode == 206 ? 0 : 1, recency(stored))
        }
        return variants.filter { varyMatches(entry($0), request) && HTTPCacheRules.mayAnswer(entry($0), request) }
            .max { rank($0) < rank($1) }
    }

    private static func recency(_ entry: CachedResponse) -> Date {
        entry.response.headers["Date"].flatMap { HTTPDate.parse($0) } ?? entry.responseDate
    }

    /// The header names a response's `Vary` lists, lower case; nil for `Vary: *` (never matches).
    static func varyingHeaderNames(of response: TransferResponse) -> [String]? {
        var names: [String] = []
        for value in response.headers.values(for: "Vary") {
            for name in value.split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
                if trimmed == "*" { return nil }
                if !trimmed.isEmpty { names.append(trimmed) }
            }
        }
        return names
    }

    /// What `request` says for each of `names`, normalised as RFC 9111 §4.1 allows: field lines of one
    /// name combined, the whitespace around list commas and parameter semicolons dropped, and the
    /// values of fields defined as case-insensitive (codings, language tags, charsets) lower-cased.
    static func values(of names: [String], in request: TransferRequest) -> [String: String] {
        var result: [String: String] = [:]
        for name in names {
            let values = request.headers.values(for: name)
            guard !values.isEmpty else { continue }
            let members = values.flatMap(FieldValueList.members).map { member in
                member.split(separator: ";", omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ";")
            }.filter { !$0.isEmpty }
            let combined = members.joined(separator: ", ")
            result[name] = caseInsensitiveValues.contains(name) ? combined.lowercased() : combined
        }
        return result
    }

    private static let caseInsensitiveValues: Set<String> = ["accept-encoding", "accept-language", "accept-charset"]

    /// Whether storing `new` removes `old`, stored for the same URL under another key: when they vary
    /// on different headers (the resource now selects by something else), and a stored part once a
    /// complete response arrives.
    public static func replaces(_ new: CachedResponse, _ old: CachedResponse) -> Bool {
        if varyingHeaderNames(of: old.response).map(Set.init) != varyingHeaderNames(of: new.response).map(Set.init) { return true }
        return old.response.statusCode == 206 && new.response.statusCode != 206
    }

    /// Whether `entry` may answer `request`: the same values for every header its response varies on.
    public static func varyMatches(_ entry: CachedResponse, _ request: TransferRequest) -> Bool {
        guard let names = varyingHeaderNames(of: entry.response) else { return false }
        return values(of: names, in: request) == entry.varyingRequestHeaders
    }
}
