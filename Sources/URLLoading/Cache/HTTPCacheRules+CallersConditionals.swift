import Foundation

/// The caller's own conditional request (RFC 9111 §4.3.2): a fresh entry answers it, with a 304 when
/// the condition says the caller's copy is current.
extension HTTPCacheRules {
    /// A GET that is conditional with `If-None-Match` or `If-Modified-Since` only: a fresh entry can
    /// answer it. Other preconditions and ranges go to the origin as they are.
    static func isCallersConditional(_ request: TransferRequest) -> Bool {
        guard ResponseCacheKey.key(for: request) != nil, request.body == nil,
            request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since")
        else { return false }
        return !["Range", "If-Match", "If-Unmodified-Since", "If-Range"].contains { request.headers.contains($0) }
    }

    /// Whether the stored entry makes the caller's conditional request false, so that it is answered
    /// 304 (RFC 9110 §13.2.2): `If-None-Match` (weak comparison with the entry's ETag, `*` matches
    /// any) decides when present; else `If-Modified-Since` (an HTTP-date, else ignored) against the
    /// entry's Last-Modified, or its Date, or when it arrived (RFC 9111 §4.3.2).
    static func isNotModified(_ entry: CachedResponse, for request: TransferRequest) -> Bool {
        let noneMatch = request.headers.values(for: "If-None-Match")
        if !noneMatch.isEmpty {
            guard let tags = EntityTag.list(noneMatch.joined(separator: ", ")) else { return true }
            guard let etag = entry.response.headers["ETag"] else { return false }
            let stored = EntityTag(Substring(etag))
            return tags.contains { $0.matchesWeakly(stored) }
        }
        guard let since = request.headers["If-Modified-Since"].flatMap({ HTTPDate.parse($0) }) else { return false }
        let headers = entry.response.headers
        let modified = headers["Last-Modified"].flatMap { HTTPDate.parse($0) } ?? headers["Date"].flatMap { HTTPDate.parse($0) }
        return (modified ?? entry.responseDate) <= since
    }

    /// Fields of a stored response a 304 leaves out: they describe the body it does not have.
    private static let contentHeaders: Set<String> = [
        "content-length", "content-type", "content-encoding", "content-range", "transfer-encoding",
    ]

    /// The 304 a stored entry answers the caller's conditional request with: its other headers, the
    /// validators and Cache-Control among them (RFC 9110 §15.4.5), and no body.
    static func notModified(from entry: CachedResponse) -> CachedResponse {
        var answer = entry
        answer.response.statusCode = 304
        answer.response.headers = HTTPHeaders(
            entry.response.headers.filter { !contentHeaders.contains($0.name.lowercased()) }.map { ($0.name, $0.value) })
        answer.response.expectedContentLength = 0
        answer.body = .data(Data())
        return answer
    }
}
