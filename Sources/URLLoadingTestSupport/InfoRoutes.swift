import NIOCore
import NIOHTTP1

/// Small routes that report on the request or answer with what the query asks for.
enum InfoRoutes {
    /// `/status/{code}`: that status with body "status {code}" (none for 204 and 304).
    @Sendable
    static func status(_ request: OriginRequest, _ response: OriginResponder) async throws {
        // 1xx are interim responses and cannot end an exchange.
        guard let code = Int(request.pathParameter(after: "/status/")), (200...599).contains(code) else {
            try await response.send(.badRequest, text: "status must be between 200 and 599")
            return
        }
        let status = HTTPResponseStatus(statusCode: code)
        if code == 204 || code == 304 {
            try await response.send(status)
        } else {
            try await response.send(status, text: "status \(code)")
        }
    }

    /// `/http-version`: "HTTP/2" or "HTTP/1.1" (or "HTTP/1.0").
    @Sendable
    static func httpVersion(_ request: OriginRequest, _ response: OriginResponder) async throws {
        try await response.send(.ok, text: request.httpVersion)
    }

    /// `/tls-info`: `{"tls_version": "TLSv1.2" | "TLSv1.3" | null}`.
    @Sendable
    static func tlsInfo(_ request: OriginRequest, _ response: OriginResponder) async throws {
        let json = JSONText.object([("tls_version", request.tlsVersion.map(JSONText.string) ?? .null)])
        try await response.send(.ok, contentType: "application/json", text: json.rendered)
    }

    /// `/mime?type=T&bytes=N`: N pattern bytes (default 0) labelled with Content-Type T
    /// (default application/octet-stream).
    @Sendable
    static func mime(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let byteCount = request.integerQuery("bytes", default: 0), byteCount >= 0 else {
            try await response.send(.badRequest, text: "bad byte count")
            return
        }
        let contentType = request.query["type"] ?? "application/octet-stream"
        try await response.sendHead(.ok, headers: ["content-type": contentType, "content-length": String(byteCount)])
        try await response.sendPatternBytes(from: 0, count: byteCount)
        try await response.sendEnd()
    }

    @Sendable
    static func notFound(_ request: OriginRequest, _ response: OriginResponder) async throws {
        try await response.send(.notFound, text: "not found")
    }
}
