import NIOHTTP1

/// `/bytes/{n}`: n pattern bytes (see `PatternBytes`) as a cacheable, resumable download.
///
/// It carries a strong ETag and a fixed Last-Modified, and honours a single `Range`
/// (206, or 416 when it lies past the end) and `If-Range`, so tests can resume downloads.
/// The body is streamed, so n may be several GiB. `?pace_ms=M` sleeps M ms after every 64 KiB
/// (about 1.3 MB/s at 50), so a download lasts long enough to be paused, killed or shut down.
enum BytesRoute {
    /// Fixed, so a validator saved by one test run still matches in the next.
    static let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"

    static func entityTag(length: Int) -> String {
        "\"bytes-\(length)\""
    }

    @Sendable
    static func serve(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let length = Int(request.pathParameter(after: "/bytes/")), length >= 0 else {
            try await response.send(.badRequest, text: "byte count must be a non-negative integer")
            return
        }
        guard let paceMilliseconds = request.integerQuery("pace_ms", default: 0), paceMilliseconds >= 0 else {
            try await response.send(.badRequest, text: "pace_ms must be a non-negative integer")
            return
        }
        let pace = paceMilliseconds > 0 ? Duration.milliseconds(paceMilliseconds) : nil
        let entityTag = entityTag(length: length)
        var headers: HTTPHeaders = [
            "content-type": "application/octet-stream",
            "etag": entityTag,
            "last-modified": lastModified,
            "accept-ranges": "bytes",
        ]
        let range = ByteRangeRequest(
            rangeHeader: request.header("range"),
            ifRange: request.header("if-range"),
            validators: [entityTag, lastModified],
            resourceLength: length
        )
        switch range {
        case .wholeResource:
            headers.add(name: "content-length", value: String(length))
            try await response.sendHead(.ok, headers: headers)
            try await response.sendPatternBytes(from: 0, count: length, pace: pace)
            try await response.sendEnd()
        case .partial(let first, let last):
            headers.add(name: "content-length", value: String(last - first + 1))
            headers.add(name: "content-range", value: "bytes \(first)-\(last)/\(length)")
            try await response.sendHead(.partialContent, headers: headers)
            try await response.sendPatternBytes(from: first, count: last - first + 1, pace: pace)
            try await response.sendEnd()
        case .unsatisfiable:
            headers.remove(name: "content-type")
            headers.add(name: "content-range", value: "bytes */\(length)")
            try await response.send(.rangeNotSatisfiable, headers: headers)
        }
    }
}
