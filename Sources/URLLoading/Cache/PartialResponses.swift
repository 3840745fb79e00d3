import Foundation

/// Combining stored parts (RFC 9111 §3.4): when a new 206 and the parts stored before it hold every
/// byte of the representation, and all carry the same strong ETag, they make one complete 200, with
/// the new response's header fields (less Content-Range) and its whole Content-Length.
enum PartialResponses {
    /// The complete response `part` finishes, for `request` without its Range, its body written to a
    /// new file in `directory` that the caller removes once the cache has its copy; nil when stored
    /// parts do not cover the rest, or their validators do not allow combining.
    static func completed(
        by part: CachedResponse, for request: TransferRequest, in cache: any ResponseCache, directory: URL
    ) -> (entry: CachedResponse, request: TransferRequest, file: URL)? {
        guard let (range, length) = HTTPCacheRules.contentRange(of: part.response), let etag = part.response.headers["ETag"],
            !EntityTag(Substring(etag)).isWeak, part.body.length == Int64(range.count)
        else { return nil }
        var pieces: [(body: CachedResponse.Body, bytes: ClosedRange<Int64>)] = []
        if range.lowerBound > 0 {
            guard let before = storedPiece(0...(range.lowerBound - 1), etag: etag, for: request, in: cache) else { return nil }
            pieces.append(before)
        }
        pieces.append((part.body, 0...(Int64(range.count) - 1)))
        if range.upperBound < length - 1 {
            guard let after = storedPiece((range.upperBound + 1)...(length - 1), etag: etag, for: request, in: cache) else { return nil }
            pieces.append(after)
        }
        let file = directory.appendingPathComponent("ferry-combined-\(UUID().uuidString)")
        guard (try? CachedBodyFile.concatenate(pieces, to: file)) != nil else { return nil }
        var whole = part
        whole.response.statusCode = 200
        whole.response.headers.removeAll("Content-Range")
        whole.response.headers["Content-Length"] = String(length)
        whole.response.expectedContentLength = length
        whole.body = .file(file, length: length)
        var plain = request
        plain.headers.removeAll("Range")
        plain.headers.removeAll("If-Range")
        return (whole, plain, file)
    }

    /// The bytes `wanted` from a stored part of the same URL and variant that holds them all and has
    /// the same strong ETag (strong comparison, RFC 9110 §8.8.3.2).
    private static func storedPiece(
        _ wanted: ClosedRange<Int64>, etag: String, for request: TransferRequest, in cache: any ResponseCache
    ) -> (body: CachedResponse.Body, bytes: ClosedRange<Int64>)? {
        var probe = request
        probe.headers["Range"] = "bytes=\(wanted.lowerBound)-\(wanted.upperBound)"
        probe.headers.removeAll("If-Range")
        guard let stored = cache.cachedResponse(for: probe), stored.response.statusCode == 206,
            let storedETag = stored.response.headers["ETag"], EntityTag(Substring(storedETag)).matchesStrongly(EntityTag(Substring(etag))),
            let (held, _) = HTTPCacheRules.storedBytes(of: stored)
        else { return nil }
        return (stored.body, (wanted.lowerBound - held.lowerBound)...(wanted.upperBound - held.lowerBound))
    }
}
