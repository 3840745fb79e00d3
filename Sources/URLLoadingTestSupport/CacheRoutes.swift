import Foundation
import NIOHTTP1

/// Responses with caching headers, for the engine's HTTP cache. Each body says how many requests for
/// its URI (path and query) the origin had seen, "response N", so a test tells a cache hit (the old
/// body, no new request), a revalidation (a conditional request answered 304, the old body) and a
/// miss (a new body) apart; the recorded requests show the conditional headers.
///
/// Every route sends `Date`. Query parameters `etag=1` add `ETag: "e<version>"` (`version=V`,
/// default 1) and `age=S` adds `Age: S`. A request whose `If-None-Match` names the current ETag, or
/// whose `If-Modified-Since` is not older than the Last-Modified, gets a 304 without a body.
enum CacheRoutes {
    /// `/cache/max-age/{seconds}`: `Cache-Control: max-age=seconds`; with `must_revalidate=1` also
    /// `must-revalidate`, with `authorization_ok=1` also `public`.
    @Sendable
    static func maxAge(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let seconds = Int(request.pathParameter(after: "/cache/max-age/")), seconds >= 0 else {
            try await response.send(.badRequest, text: "max-age must be a non-negative integer")
            return
        }
        var control = "max-age=\(seconds)"
        if request.query["must_revalidate"] == "1" { control += ", must-revalidate" }
        try await answer(request, response, cacheControl: control)
    }

    /// `/cache/no-store`: `Cache-Control: no-store` (and max-age=3600, which no-store overrides).
    @Sendable
    static func noStore(_ request: OriginRequest, _ response: OriginResponder) async throws {
        try await answer(request, response, cacheControl: "no-store, max-age=3600")
    }

    /// `/cache/no-cache`: `Cache-Control: no-cache` with an ETag (`etag` is implied): stored, and
    /// revalidated on every use.
    @Sendable
    static func noCache(_ request: OriginRequest, _ response: OriginResponder) async throws {
        try await answer(request, response, cacheControl: "no-cache", forceETag: true)
    }

    /// `/cache/last-modified`: no Cache-Control, no Expires, no ETag, only a fixed `Last-Modified`
    /// years before `Date`: fresh for a tenth of that by the heuristic. With `stale=1`, `Date` is 10 s
    /// after Last-Modified (a heuristic lifetime of 1 s, long past): stale at once.
    @Sendable
    static func lastModified(_ request: OriginRequest, _ response: OriginResponder) async throws {
        let date = request.query["stale"] == "1" ? epoch.addingTimeInterval(10) : nil
        try await answer(request, response, cacheControl: nil, sendsLastModified: true, date: date)
    }

    /// `/cache/expires/{seconds}`: `Expires` that many seconds after `Date` (negative: in the past).
    @Sendable
    static func expires(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let seconds = Int(request.pathParameter(after: "/cache/expires/")) else {
            try await response.send(.badRequest, text: "expires must be an integer")
            return
        }
        try await answer(request, response, cacheControl: nil, expiresIn: TimeInterval(seconds))
    }

    /// `/cache/vary`: `max-age=3600`, `Vary: Accept-Language`; the body also names the request's
    /// Accept-Language.
    @Sendable
    static func vary(_ request: OriginRequest, _ response: OriginResponder) async throws {
        try await answer(
            request, response, cacheControl: "max-age=3600", vary: "Accept-Language",
            bodySuffix: " for \(request.header("Accept-Language") ?? "no language")")
    }

    /// `/cache/scripted/{name}`: a response the query describes, for the RFC 9111 cases one route each
    /// would not cover. Any method.
    /// - `status=N` (default 200); `later_status=N`: the status of every request after the first.
    /// - `headers=Name:Value|Name:Value`: response headers as given (a `Date` of now is added unless
    ///   one is given; `expires_in=S` adds an IMF-fixdate `Expires` S seconds from now).
    /// - `echo=Header`: the body also names the request's value of that header.
    /// - `not_modified_etag=T`: every GET with If-None-Match gets a 304 with `ETag: T` (an origin
    ///   whose 304 names another version than the one asked about).
    /// A GET whose `If-None-Match` names the response's `ETag` (weak comparison, RFC 9110 §13.1.2), or
    /// (without If-None-Match) whose `If-Modified-Since` is not before its `Last-Modified`, gets 304.
    @Sendable
    static func scripted(_ request: OriginRequest, _ response: OriginResponder) async throws {
        var headers = HTTPHeaders()
        for field in (request.query["headers"] ?? "").split(separator: "|") {
            guard let colon = field.firstIndex(of: ":") else { continue }
            headers.add(name: String(field[..<colon]), value: field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        if !headers.contains(name: "date") { headers.add(name: "date", value: HTTPDate.format(Date())) }
        if let seconds = request.query["expires_in"].flatMap(TimeInterval.init) {
            headers.add(name: "expires", value: HTTPDate.format(Date().addingTimeInterval(seconds)))
        }
        let first = request.earlierRequestsWithSameURI == 0
        let code = (first ? nil : request.query["later_status"].flatMap(Int.init)) ?? request.query["status"].flatMap(Int.init) ?? 200
        if let tag = request.query["not_modified_etag"], request.header("If-None-Match") != nil {
            headers.replaceOrAdd(name: "etag", value: tag)
            try await response.send(.notModified, headers: headers)
            return
        }
        if request.method == "GET", (200..<300).contains(code), isNotModified(request, headers) {
            try await response.send(.notModified, headers: headers)
            return
        }
        var body = "response \(request.earlierRequestsWithSameURI + 1)"
        if let echoed = request.query["echo"] { body += " for \(request.header(echoed) ?? "none")" }
        try await response.send(HTTPResponseStatus(statusCode: code), text: body, headers: headers)
    }

    private static func isNotModified(_ request: OriginRequest, _ headers: HTTPHeaders) -> Bool {
        func opaque(_ tag: Substring) -> Substring {
            let trimmed = Substring(tag.trimmingCharacters(in: .whitespaces))
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
        }
        if let condition = request.header("If-None-Match") {
            guard let etag = headers.first(name: "etag") else { return false }
            return condition.split(separator: ",").contains { opaque($0) == opaque(Substring(etag)) || $0.trimmingCharacters(in: .whitespaces) == "*" }
        }
        if let condition = request.header("If-Modified-Since"), let since = HTTPDate.parse(condition),
            let lastModified = headers.first(name: "last-modified").flatMap(HTTPDate.parse)
        {
            return lastModified <= since
        }
        return false
    }

    /// A fixed point for Last-Modified, so that validators do not change between requests.
    private static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    private static func answer(
        _ request: OriginRequest, _ response: OriginResponder, cacheControl: String?, forceETag: Bool = false,
        sendsLastModified: Bool = false, date: Date? = nil, expiresIn: TimeInterval? = nil, vary: String? = nil,
        bodySuffix: String = ""
    ) async throws {
        let now = Date()
        var headers = HTTPHeaders()
        headers.add(name: "date", value: HTTPDate.format(date ?? now))
        if let cacheControl { headers.add(name: "cache-control", value: cacheControl) }
        if let age = request.query["age"] { headers.add(name: "age", value: age) }
        if let vary { headers.add(name: "vary", value: vary) }
        if let expiresIn { headers.add(name: "expires", value: HTTPDate.format(now.addingTimeInterval(expiresIn))) }

        var etag: String?
        if forceETag || request.query["etag"] == "1" {
            let tag = "\"e\(request.query["version"] ?? "1")\""
            headers.add(name: "etag", value: tag)
            etag = tag
        }
        if sendsLastModified { headers.add(name: "last-modified", value: HTTPDate.format(epoch)) }

        if let etag, let condition = request.header("If-None-Match"),
            condition.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag })
        {
            try await response.send(.notModified, headers: headers)
            return
        }
        if etag == nil, sendsLastModified, let condition = request.header("If-Modified-Since"),
            let since = HTTPDate.parse(condition), since >= epoch
        {
            try await response.send(.notModified, headers: headers)
            return
        }
        try await response.send(
            .ok, text: "response \(request.earlierRequestsWithSameURI + 1)\(bodySuffix)", headers: headers)
    }
}

extension OriginServer {
    /// A `/cache/scripted/{name}` URL: the origin answers `status` with `headers` ("Name: Value"),
    /// `extra` adding the route's other query parameters (see `CacheRoutes.scripted`).
    public func scriptedCacheURL(
        _ name: String, status: Int? = nil, headers: [String] = [], _ extra: [String: String] = [:]
    ) -> String {
        var query = extra
        if let status { query["status"] = String(status) }
        if !headers.isEmpty { query["headers"] = headers.joined(separator: "|") }
        let encoded = query.sorted { $0.key < $1.key }.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)"
        }
        return url("/cache/scripted/\(name)") + (encoded.isEmpty ? "" : "?" + encoded.joined(separator: "&"))
    }
}
