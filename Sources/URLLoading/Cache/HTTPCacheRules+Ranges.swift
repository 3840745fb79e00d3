import Foundation

/// Ranges (RFC 9111 §3.3, §3.4, RFC 9110 §14): which byte range a request asks for, which bytes a
/// stored entry holds, and the 206 that answers one from the other.
extension HTTPCacheRules {
    /// A GET for one byte range (`Range: bytes=first-last`, `first-` or `-suffix`, one field line),
    /// with no precondition but `If-Range`: a fresh complete entry can answer it with a 206.
    /// Several ranges go to the origin.
    static func isSingleRangeRequest(_ request: TransferRequest) -> Bool {
        guard ResponseCacheKey.key(for: request) != nil, request.body == nil, request.headers.values(for: "Range").count == 1,
            let spec = byteRangeSpec(request)
        else { return false }
        return !["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since"].contains { request.headers.contains($0) }
            && parseRange(spec) != nil
    }

    /// The bytes the request's single range covers in a representation of `length` bytes; nil when
    /// it is not satisfiable there (RFC 9110 §14.1.1: a last position past the end is cut to it).
    static func requestedRange(_ request: TransferRequest, length: Int64) -> ClosedRange<Int64>? {
        guard length > 0, let spec = byteRangeSpec(request), let (first, last) = parseRange(spec) else { return nil }
        guard let first else {
            // A suffix: the last `last` bytes.
            guard let suffix = last, suffix > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
        guard first < length else { return nil }
        return first...min(last ?? (length - 1), length - 1)
    }

    private static func byteRangeSpec(_ request: TransferRequest) -> Substring? {
        guard let value = request.headers["Range"]?.trimmingCharacters(in: .whitespaces),
            value.lowercased().hasPrefix("bytes=")
        else { return nil }
        return value.dropFirst(6)
    }

    /// `first-last`, `first-` or `-suffix`, digits only, first ≤ last.
    private static func parseRange(_ spec: Substring) -> (first: Int64?, last: Int64?)? {
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func number(_ text: Substring) -> Int64?? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return .some(nil) }
            guard trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int64(trimmed) else { return nil }
            return .some(value)
        }
        guard let first = number(parts[0]), let last = number(parts[1]), first != nil || last != nil else { return nil }
        if let first, let last, first > last { return nil }
        return (first, last)
    }

    /// A 206's one part: its bytes and the whole representation's length, from
    /// `Content-Range: bytes first-last/length`; nil for anything else (several parts, `*` length).
    static func contentRange(of response: TransferResponse) -> (range: ClosedRange<Int64>, length: Int64)? {
        guard response.statusCode == 206, let value = response.headers["Content-Range"]?.trimmingCharacters(in: .whitespaces),
            value.lowercased().hasPrefix("bytes ")
        else { return nil }
        let parts = value.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let length = Int64(parts[1]), let (first, last) = parseRange(parts[0]), let first, let last,
            last < length
        else { return nil }
        return (first...last, length)
    }

    /// The bytes a stored entry holds and the whole representation's length: all of a complete 200,
    /// the part of a 206; nil for other statuses and encoded bodies (whose bytes are not the
    /// representation's).
    static func storedBytes(of entry: CachedResponse) -> (range: ClosedRange<Int64>, length: Int64)? {
        guard !entry.response.headers.contains("Content-Encoding") else { return nil }
        if entry.response.statusCode == 206 { return contentRange(of: entry.response) }
        let length = entry.body.length
        guard entry.response.statusCode == 200, length > 0 else { return nil }
        return (0...(length - 1), length)
    }

    /// Whether `entry` may answer `request` at all: a stored part (206) only a single-range request
    /// whose range lies inside it; anything else any request.
    static func mayAnswer(_ entry: CachedResponse, _ request: TransferRequest) -> Bool {
        guard entry.response.statusCode == 206 else { return true }
        guard isSingleRangeRequest(request), let (stored, length) = storedBytes(of: entry),
            let asked = requestedRange(request, length: length)
        else { return false }
        return stored.contains(asked.lowerBound) && stored.contains(asked.upperBound)
    }

    /// Whether the request's `If-Range` lets the entry answer with a part (RFC 9110 §13.1.5): the
    /// same strong ETag (strong comparison), or the same Last-Modified date; without one, it does.
    static func ifRangeHolds(_ request: TransferRequest, for entry: CachedResponse) -> Bool {
        guard let condition = request.headers["If-Range"]?.trimmingCharacters(in: .whitespaces) else { return true }
        if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
            guard let etag = entry.response.headers["ETag"] else { return false }
            return EntityTag(Substring(condition)).matchesStrongly(EntityTag(Substring(etag)))
        }
        guard let date = HTTPDate.parse(condition), let lastModified = entry.response.headers["Last-Modified"].flatMap({ HTTPDate.parse($0) })
        else { return false }
        return date == lastModified
    }

    /// The 206 for `range` of a stored entry whose representation has `length` bytes (RFC 9110
    /// §15.3.7): its headers, with the part's Content-Range and Content-Length.
    static func partialContent(from entry: CachedResponse, range: ClosedRange<Int64>, length: Int64) -> CachedResponse {
        var answer = entry
        answer.response.statusCode = 206
        answer.response.headers["Content-Range"] = "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"
        answer.response.headers["Content-Length"] = String(range.count)
        answer.response.expectedContentLength = Int64(range.count)
        return answer
    }
}
