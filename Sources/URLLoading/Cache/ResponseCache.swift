import Foundation

/// An HTTP cache a session reads and writes (CA-02, CA-03, CA-17..CA-20). `LocalResponseCache` keeps
/// entries in memory and in a directory; the gateway may implement one per tenant elsewhere. The
/// engine calls it on its transfer threads, so every method answers promptly and is thread-safe.
///
/// Entries are keyed by `ResponseCacheKey` (GET and the URL without fragment); an entry is served
/// only to a request with the same values for the headers its response's `Vary` names.
public protocol ResponseCache: AnyObject, Sendable {
    /// The entry for `request`, or nil (CA-17).
    func cachedResponse(for request: TransferRequest) -> CachedResponse?
    /// Stores an entry for `request`, replacing any under the same key (CA-20).
    func storeCachedResponse(_ cachedResponse: CachedResponse, for request: TransferRequest)
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
public enum ResponseCacheKey {
    /// "GET <url without fragment>" for a cacheable request (an http or https GET), else nil.
    public static func key(for request: TransferRequest) -> String? {
        guard request.method.uppercased() == "GET", let scheme = request.url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        else { return nil }
        components.fragment = nil
        components.scheme = scheme
        components.host = components.host?.lowercased()
        return "GET " + (components.string ?? request.url.absoluteString)
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

    /// What `request` says for each of `names`, combined and trimmed (RFC 9111 §4.1).
    static func values(of names: [String], in request: TransferRequest) -> [String: String] {
        var result: [String: String] = [:]
        for name in names {
            let values = request.headers.values(for: name)
            if !values.isEmpty { result[name] = values.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ") }
        }
        return result
    }

    /// Whether `entry` may answer `request`: the same values for every header its response varies on.
    public static func varyMatches(_ entry: CachedResponse, _ request: TransferRequest) -> Bool {
        guard let names = varyingHeaderNames(of: entry.response) else { return false }
        return values(of: names, in: request) == entry.varyingRequestHeaders
    }
}
