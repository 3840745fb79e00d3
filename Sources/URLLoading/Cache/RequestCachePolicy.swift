/// How a request uses the cache (CA-05..CA-09), set on the request or inherited from the session
/// (SES-26). For ftp, file and data URLs nothing is cached; the policy only decides whether the
/// request may go out (CA-01).
public enum RequestCachePolicy: String, Sendable, Equatable, Codable {
    /// HTTP caching (RFC 9111, as a private cache): a fresh entry is served, a stale or no-cache one
    /// revalidated with a conditional request, everything else fetched (CA-09).
    case useProtocolCachePolicy
    /// Always from the origin; the response may still be stored (CA-06).
    case reloadIgnoringLocalCacheData
    /// Any entry, however old, else from the origin (CA-07).
    case returnCacheDataElseLoad
    /// Only an entry; without one the request fails with `resourceUnavailable` (CA-08, offline).
    case returnCacheDataDontLoad
}

/// What the cache did for a response (`TransferResponse.cacheStatus`).
public enum CacheStatus: String, Sendable, Equatable, Codable {
    /// Served from the cache without asking the origin.
    case hit
    /// The origin confirmed the entry (304): stored body, refreshed headers.
    case revalidated
    /// The response came from the origin in full (or, for `only-if-cached` with nothing usable
    /// stored, is the cache's own 504).
    case miss
    /// Served from the cache although stale, as the origin allowed: `stale-while-revalidate` (the
    /// origin is asked again in the background) or `stale-if-error` (the origin failed), RFC 5861.
    case stale
}
