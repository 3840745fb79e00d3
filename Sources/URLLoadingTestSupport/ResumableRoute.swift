import Foundation
import NIOCore
import NIOHTTP1

/// `/resumable/{n}?stall_at=K[,K...]&drop_at=K[,K...]&statuses=S[,S...]&ranges=ignore&if_range=ignore&range_from=K&changes=1&encoding=gzip&etag=weak&last_modified=none`:
/// `/bytes/{n}` with the misbehaviour resume tests need, decided per request so that a download
/// and the request that continues it (same URI) can be treated differently.
///
/// Requests are numbered per URI in arrival order on this server, from 0 (`resetStatistics()`
/// starts over). Options:
/// - `stall_at=K0,K1,...`: request i sends the body only up to entity offset K_i (exclusive),
///   then holds the connection open until the client leaves: a download that stops mid-body
///   at a known offset, where the client can pause or snapshot it. Requests past the list, and
///   responses that start at or after K_i, are sent whole.
/// - `drop_at=K0,K1,...`: the same, but the connection is closed (the client sees it lost).
/// - `statuses=S0,S1,...`: request i answers status S_i with a short text body and no validators
///   when S_i is not 200 (a 503 while the download is paused, say); 200 means "as usual".
/// - `ranges=ignore`: a server without range support: every request gets 200 and the whole
///   body, and no `Accept-Ranges`.
/// - `if_range=ignore`: `Range` is honoured whatever `If-Range` says, as some servers and caches
///   do; with `changes=1` a continuation gets a 206 of the new version, with the new ETag.
/// - `range_from=K`: a `Range` request is answered with a 206 from entity offset K, whatever offset
///   it asked for (Content-Range says K): a continuation that does not start where it should.
/// - `changes=1`: the entity changes with every request: request i has ETag
///   `"resumable-{n}-v{i}"`, a Last-Modified i seconds after `BytesRoute`'s, and the body's byte
///   j is `UInt8((j + i) % 251)`, so bytes of two versions mixed in one file show.
/// - `encoding=gzip`: the body is gzip-encoded (stored deflate blocks, so it is as long as the
///   pattern plus framing), labelled `Content-Encoding: gzip`; offsets are the encoded body's and
///   ranges are ignored.
/// - `etag=weak` sends the ETag as a weak one (`W/"..."`), `etag=none` sends none;
///   `last_modified=none` leaves out Last-Modified. If-Range compares strongly, as RFC 9110 says:
///   a weak tag never matches, so a client that sends one gets the whole body.
/// Otherwise it behaves like `/bytes/{n}`: strong ETag `"resumable-{n}"`, Last-Modified, a single
/// `Range` (206/416) honoured with `If-Range`.
enum ResumableRoute {
    @Sendable
    static func serve(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let length = Int(request.pathParameter(after: "/resumable/")), length >= 0,
            let stalls = integers(request.query["stall_at"]), let drops = integers(request.query["drop_at"])
        else {
            try await response.send(.badRequest, text: "bad resumable parameters")
            return
        }
        let version = request.earlierRequestsWithSameURI
        if let statuses = integers(request.query["statuses"]), version < statuses.count, statuses[version] != 200 {
            try await response.send(HTTPResponseStatus(statusCode: statuses[version]), text: "status \(statuses[version])\n")
            return
        }
        let changes = request.query["changes"] == "1"
        let ignoresRanges = request.query["ranges"] == "ignore"
        let gzip = request.query["encoding"] == "gzip"
        let ignoresIfRange = request.query["if_range"] == "ignore"
        guard let misplacedStart = integers(request.query["range_from"]), misplacedStart.count <= 1 else {
            try await response.send(.badRequest, text: "bad resumable parameters")
            return
        }

        let strongTag = changes ? "\"resumable-\(length)-v\(version)\"" : "\"resumable-\(length)\""
        let entityTag: String? =
            switch request.query["etag"] {
            case "none": nil
            case "weak": "W/" + strongTag
            default: strongTag
            }
        let lastModified: String? =
            request.query["last_modified"] == "none"
            ? nil : changes ? lastModified(secondsAfterBase: version) : BytesRoute.lastModified
        let phase = changes ? version : 0
        var headers: HTTPHeaders = ["content-type": "application/octet-stream"]
        if let entityTag { headers.add(name: "etag", value: entityTag) }
        if let lastModified { headers.add(name: "last-modified", value: lastModified) }
        if !ignoresRanges && !gzip { headers.add(name: "accept-ranges", value: "bytes") }
        if gzip { headers.add(name: "content-encoding", value: "gzip") }

        let encoded = gzip ? gzipStored(PatternBytes.bytes(from: phase, count: length)) : nil
        let bodyLength = encoded?.count ?? length
        let range: ByteRangeRequest
        if ignoresRanges || gzip {
            range = .wholeResource
        } else {
            let asked = ByteRangeRequest(
                rangeHeader: request.header("range"), ifRange: ignoresIfRange ? nil : request.header("if-range"),
                validators: [entityTag?.hasPrefix("W/") == false ? entityTag : nil, lastModified].compactMap { $0 },
                resourceLength: length)
            if case .partial(_, let last) = asked, let start = misplacedStart.first, start <= last {
                range = .partial(first: start, last: last)
            } else {
                range = asked
            }
        }
        let first: Int
        let last: Int
        switch range {
        case .wholeResource:
            (first, last) = (0, bodyLength - 1)
            try await response.sendHead(.ok, headers: headers + [("content-length", String(bodyLength))])
        case .partial(let from, let to):
            (first, last) = (from, to)
            try await response.sendHead(
                .partialContent,
                headers: headers + [("content-length", String(to - from + 1)), ("content-range", "bytes \(from)-\(to)/\(length)")])
        case .unsatisfiable:
            headers.remove(name: "content-type")
            headers.add(name: "content-range", value: "bytes */\(length)")
            try await response.send(.rangeNotSatisfiable, headers: headers)
            return
        }

        // Where this request's body stops early, if it does.
        let stop: Int? = version < stalls.count ? stalls[version] : version < drops.count ? drops[version] : nil
        let end = stop.map { min($0, last + 1) } ?? last + 1
        let cutShort = stop.map { $0 > first && $0 <= last } ?? false
        if let encoded {
            if end > first { try await response.sendBody(ByteBuffer(bytes: encoded[first..<end])) }
        } else {
            try await response.sendPatternBytes(from: first + phase, count: max(0, end - first))
        }
        guard cutShort else {
            try await response.sendEnd()
            return
        }
        if version < stalls.count {
            await response.holdUntilClientGoesAway()
        } else {
            await response.dropConnection()
        }
    }

    /// "K0,K1,..." as non-negative integers; [] when absent, nil when malformed.
    private static func integers(_ text: String?) -> [Int]? {
        guard let text else { return [] }
        var result: [Int] = []
        for piece in text.split(separator: ",") {
            guard let offset = Int(piece), offset >= 0 else { return nil }
            result.append(offset)
        }
        return result
    }

    private static func lastModified(secondsAfterBase seconds: Int) -> String {
        // BytesRoute.lastModified is 07:28:00; versions stay within the hour tests could reach.
        let minute = 28 + seconds / 60
        let second = seconds % 60
        return "Wed, 21 Oct 2015 07:\(minute < 10 ? "0" : "")\(minute):\(second < 10 ? "0" : "")\(second) GMT"
    }

    /// A gzip member holding `data` in stored (uncompressed) deflate blocks: valid gzip that any
    /// decoder accepts, with no compressor needed.
    static func gzipStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let isFinal = offset + count == data.count
            out.append(isFinal ? 0x01 : 0x00)
            out.append(contentsOf: [UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)])
            out.append(contentsOf: data[offset..<(offset + count)])
            offset += count
        } while offset < data.count
        let crc = crc32(data)
        let size = UInt32(truncatingIfNeeded: data.count)
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((crc >> UInt32(shift)) & 0xff)) }
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((size >> UInt32(shift)) & 0xff)) }
        return out
    }

    /// CRC-32 (IEEE 802.3, reflected), as gzip's trailer needs.
    private static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xedb8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}

private func + (headers: HTTPHeaders, extra: [(String, String)]) -> HTTPHeaders {
    var headers = headers
    for (name, value) in extra { headers.add(name: name, value: value) }
    return headers
}
