import Foundation
import URLLoading

/// One entry of a tenant's HTTP cache as its index (`cache_entries`) holds it; the body is a file.
package struct TenantCacheEntry: Sendable, Equatable {
    package var key: String
    /// Relative to the data directory; a new body always gets a new file.
    package var bodyFile: String
    /// Bytes counted against the tenant's limit.
    package var cost: Int
    package var storedAt: Date
    package var lastUsedAt: Date
    package var head: Head

    /// What the engine needs besides the body to answer from the entry (`cache_entries.head`).
    package struct Head: Sendable, Equatable, Codable {
        package var url: String
        package var statusCode: Int?
        package var headers: HTTPHeaders
        package var httpVersion: String?
        package var expectedContentLength: Int64?
        package var userInfo: [String: String]
        package var requestDate: Date
        package var responseDate: Date
        package var varyingRequestHeaders: [String: String]

        package enum CodingKeys: String, CodingKey {
            case url, headers
            case statusCode = "status_code"
            case httpVersion = "http_version"
            case expectedContentLength = "expected_content_length"
            case userInfo = "user_info"
            case requestDate = "request_date"
            case responseDate = "response_date"
            case varyingRequestHeaders = "varying_request_headers"
        }

        package init(url: String, statusCode: Int? = nil, headers: HTTPHeaders, httpVersion: String? = nil, expectedContentLength: Int64? = nil, userInfo: [String: String], requestDate: Date, responseDate: Date, varyingRequestHeaders: [String: String]) {
            self.url = url
            self.statusCode = statusCode
            self.headers = headers
            self.httpVersion = httpVersion
            self.expectedContentLength = expectedContentLength
            self.userInfo = userInfo
            self.requestDate = requestDate
            self.responseDate = responseDate
            self.varyingRequestHeaders = varyingRequestHeaders
        }
    }

    package init(key: String, bodyFile: String, cost: Int, storedAt: Date, lastUsedAt: Date, head: Head) {
        self.key = key
        self.bodyFile = bodyFile
        self.cost = cost
        self.storedAt = storedAt
        self.lastUsedAt = lastUsedAt
        self.head = head
    }

    /// The entry for a response the engine stores, its body written to `bodyFile`. Without its
    /// Set-Cookie: the index is the tenant's, shared by all its sessions (a cookie one session was
    /// given must not reach another's jar from the cache), and a cookie's value is a credential that
    /// is kept nowhere in plain text (issue 18).
    package init(key: String, bodyFile: String, storing cached: CachedResponse, at now: Date) {
        let response = cached.response
        var headers = response.headers
        headers.removeAll("Set-Cookie")
        self.init(
            key: key, bodyFile: bodyFile, cost: cached.cost, storedAt: now, lastUsedAt: now,
            head: Head(
                url: response.url.absoluteString, statusCode: response.statusCode, headers: headers,
                httpVersion: response.httpVersion, expectedContentLength: response.expectedContentLength, userInfo: cached.userInfo,
                requestDate: cached.requestDate, responseDate: cached.responseDate, varyingRequestHeaders: cached.varyingRequestHeaders))
    }

    /// The engine's cached response, with `body` (the entry's file).
    package func cachedResponse(body: CachedResponse.Body) -> CachedResponse? {
        guard let url = URL(string: head.url) else { return nil }
        let response = TransferResponse(
            url: url, statusCode: head.statusCode, headers: head.headers, httpVersion: head.httpVersion,
            expectedContentLength: head.expectedContentLength)
        return CachedResponse(
            response: response, body: body, userInfo: head.userInfo, storagePolicy: .allowed, requestDate: head.requestDate,
            responseDate: head.responseDate, varyingRequestHeaders: head.varyingRequestHeaders)
    }
}
