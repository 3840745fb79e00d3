import NIOHTTP1

/// Routes whose point is timing: slow, stalled, delayed or broken responses, for the
/// engine's timeout, progress and "connection lost" behaviour.
enum TimedRoutes {
    /// `/drip?bytes=N&chunks=K&delay_ms=D&initial_delay_ms=I&length=1`
    ///
    /// Waits I ms before the response head (like httpbin's drip), then sends N pattern bytes
    /// in K chunks, D ms apart. `length=0` leaves out Content-Length, so HTTP/1.1 goes chunked.
    /// Defaults: N=10, K=1, D=0, I=0, length=1.
    @Sendable
    static func drip(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let byteCount = request.integerQuery("bytes", default: 10), byteCount >= 0,
            let requestedChunks = request.integerQuery("chunks", default: 1),
            let delay = request.integerQuery("delay_ms", default: 0), delay >= 0,
            let initialDelay = request.integerQuery("initial_delay_ms", default: 0), initialDelay >= 0,
            let sendsLength = request.integerQuery("length", default: 1)
        else {
            try await response.send(.badRequest, text: "bad drip parameters")
            return
        }
        try await Task.sleep(for: .milliseconds(initialDelay))

        var headers: HTTPHeaders = ["content-type": "application/octet-stream"]
        if sendsLength != 0 {
            headers.add(name: "content-length", value: String(byteCount))
        }
        try await response.sendHead(.ok, headers: headers)

        // Never more chunks than bytes, so every chunk carries at least one byte.
        let chunkCount = max(1, min(requestedChunks, byteCount))
        var offset = 0
        for chunkIndex in 0..<chunkCount where byteCount > 0 {
            if chunkIndex > 0 {
                try await Task.sleep(for: .milliseconds(delay))
            }
            // Spread the remainder over the first chunks: sizes differ by at most one byte.
            let chunkLength = byteCount / chunkCount + (chunkIndex < byteCount % chunkCount ? 1 : 0)
            try await response.sendPatternBytes(from: offset, count: chunkLength)
            offset += chunkLength
        }
        try await response.sendEnd()
    }

    /// `/stall?bytes=N`: promises 2N bytes (at least 1), sends N, then goes silent with the
    /// connection open until the client leaves. For idle (low-speed) timeouts. Default N=1.
    @Sendable
    static func stall(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard try await sendHalfOfPromisedBody(request, response) else { return }
        await response.holdUntilClientGoesAway()
    }

    /// `/delay/{ms}`: waits, then answers 200 "delayed".
    @Sendable
    static func delay(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let milliseconds = Int(request.pathParameter(after: "/delay/")), milliseconds >= 0 else {
            try await response.send(.badRequest, text: "delay must be a non-negative number of milliseconds")
            return
        }
        try await Task.sleep(for: .milliseconds(milliseconds))
        try await response.send(.ok, text: "delayed")
    }

    /// `/drop?bytes=N`: promises 2N bytes (at least 1), sends N, then closes the TCP connection,
    /// so the client sees the connection lost mid-body. Default N=1.
    @Sendable
    static func drop(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard try await sendHalfOfPromisedBody(request, response) else { return }
        await response.dropConnection()
    }

    /// For `/stall` and `/drop`: promises 2N bytes (at least 1) and sends N of them. False, after
    /// answering 400, when `bytes` is not a non-negative number.
    private static func sendHalfOfPromisedBody(_ request: OriginRequest, _ response: OriginResponder) async throws -> Bool {
        guard let byteCount = request.integerQuery("bytes", default: 1), byteCount >= 0 else {
            try await response.send(.badRequest, text: "bad byte count")
            return false
        }
        try await response.sendHead(
            .ok,
            headers: ["content-type": "application/octet-stream", "content-length": String(max(1, 2 * byteCount))]
        )
        try await response.sendPatternBytes(from: 0, count: byteCount)
        return true
    }
}
