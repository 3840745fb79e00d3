import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// The engine's cache against the letter of RFC 9111 (and RFC 9110's validators), one point each,
/// through real transfers to the in-process origin's `/cache/scripted/{name}` route.
@Suite("HTTP cache: RFC 9111 point by point", .timeLimit(.minutes(2)))
struct HTTPCacheRFC9111Tests {
    /// A `/cache/scripted/{name}` URL: the origin answers `status` with `headers` ("Name: Value").
    static func scripted(
        _ origin: OriginServer, _ name: String, status: Int? = nil, headers: [String] = [], _ extra: [String: String] = [:]
    ) -> String {
        var query = extra
        if let status { query["status"] = String(status) }
        if !headers.isEmpty { query["headers"] = headers.joined(separator: "|") }
        let encoded = query.sorted { $0.key < $1.key }.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)"
        }
        return origin.url("/cache/scripted/\(name)") + (encoded.isEmpty ? "" : "?" + encoded.joined(separator: "&"))
    }

    static func session(_ cache: any ResponseCache = try! LocalResponseCache(memoryCapacity: 4 << 20)) throws -> Session {
        try Fixture.session { $0.urlCache = cache }
    }

    /// The body as text, the cache status and the response.
    static func fetch(_ session: Session, _ url: String, configure: (inout TransferRequest) -> Void = { _ in })
        async throws -> (body: String, status: CacheStatus?, response: TransferResponse)
    {
        var request = Fixture.request(url)
        configure(&request)
        let (data, response) = try await session.data(for: request)
        return (String(decoding: data, as: UTF8.self), response.cacheStatus, response)
    }

    private func sent(_ origin: OriginServer, _ name: String) -> [RecordedRequest] {
        origin.requests.filter { $0.path == "/cache/scripted/\(name)" }
    }

    @Test("RFC 9111 §5.3: an Expires that is not an HTTP-date (two-digit year, dashes, UTC, missing parts) is already expired")
    func invalidExpiresIsStale() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            for (index, expires) in [
                "Thu, 01 Dec 99 16:00:00 GMT", "Thu, 01-Dec-2099 16:00:00 GMT", "Thu, 01 Dec 2099 16:00:00 UTC", "Thu, 01 Dec 2099",
            ].enumerated() {
                let url = Self.scripted(origin, "expires-\(index)", headers: ["Expires: \(expires)", "ETag: \"v\""])
                #expect(try await Self.fetch(session, url).status == .miss)
                #expect(try await Self.fetch(session, url).status == .revalidated, "\(expires)")
            }
            let valid = Self.scripted(origin, "expires-valid", headers: ["ETag: \"v\""], ["expires_in": "3600"])
            _ = try await Self.fetch(session, valid)
            #expect(try await Self.fetch(session, valid).status == .hit)
        }
    }

    @Test("RFC 9111 §5.1, §4.2.3: a served entry carries Age, its stored Age advanced by the time in the cache")
    func ageHeaderOnHits() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let url = Self.scripted(origin, "age", headers: ["Cache-Control: max-age=3600", "Age: 100"])
            let first = try await Self.fetch(session, url)
            #expect(first.status == .miss && first.response.headers["Age"] == "100")
            let hit = try await Self.fetch(session, url)
            #expect(hit.status == .hit)
            let age = try #require(hit.response.headers["Age"].flatMap(Int.init))
            #expect(age >= 100 && age < 3600)
        }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let entry = CachedResponse(
            response: TransferResponse(url: URL(string: "https://example.com/")!, statusCode: 200, headers: ["Age": "100"]),
            data: Data(), requestDate: start, responseDate: start)
        #expect(HTTPCacheRules.served(entry, now: start.addingTimeInterval(10)).response.headers["Age"] == "110")
    }

    @Test("RFC 9111 §5.1: Age is delta-seconds, the first of a list; 7200.0 is invalid and ignored")
    func ageParsing() async throws {
        #expect(HTTPCacheRules.ageValue(of: ["Age": "7200, 0"]) == 7200)
        #expect(HTTPCacheRules.ageValue(of: ["Age": "7200.0"]) == 0)
        #expect(HTTPCacheRules.ageValue(of: ["Age": "-5"]) == 0)
        #expect(HTTPCacheRules.ageValue(of: ["Age": "99999999999999999999"]) == 2_147_483_648)
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let listed = Self.scripted(origin, "age-list", headers: ["Cache-Control: max-age=3600", "Age: 7200, 0", "ETag: \"a\""])
            _ = try await Self.fetch(session, listed)
            #expect(try await Self.fetch(session, listed).status == .revalidated)
            let decimal = Self.scripted(origin, "age-decimal", headers: ["Cache-Control: max-age=3600", "Age: 7200.0"])
            _ = try await Self.fetch(session, decimal)
            #expect(try await Self.fetch(session, decimal).status == .hit)
        }
    }

    @Test("RFC 9111 §4.2.2: heuristic freshness only for the heuristically cacheable statuses, only without explicit freshness")
    func heuristicFreshness() async throws {
        let url = URL(string: "https://example.com/")!
        let old = "Sun, 06 Nov 1994 08:49:37 GMT"
        let date = "Tue, 14 Nov 2023 22:13:20 GMT"
        func lifetime(_ status: Int, _ headers: HTTPHeaders) -> TimeInterval {
            HTTPCacheRules.freshnessLifetime(of: TransferResponse(url: url, statusCode: status, headers: headers), receivedAt: Date())
        }
        #expect(lifetime(200, ["Date": date, "Last-Modified": old]) > 0)
        #expect(lifetime(404, ["Date": date, "Last-Modified": old]) > 0)
        #expect(lifetime(201, ["Date": date, "Last-Modified": old]) == 0)
        #expect(lifetime(302, ["Date": date, "Last-Modified": old]) == 0)
        #expect(lifetime(200, ["Date": date, "Last-Modified": old, "Expires": "never"]) == 0)
        #expect(lifetime(200, ["Date": date, "Last-Modified": old, "Cache-Control": "max-age=bogus"]) == 0)
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let created = Self.scripted(origin, "created", status: 201, headers: ["Last-Modified: \(old)"])
            #expect(try await Self.fetch(session, created).status == .miss)
            #expect(try await Self.fetch(session, created).body == "response 2")
            let ok = Self.scripted(origin, "ok", headers: ["Last-Modified: \(old)"])
            _ = try await Self.fetch(session, ok)
            #expect(try await Self.fetch(session, ok).status == .hit)
        }
    }

    @Test("RFC 9111 §3.1: hop-by-hop headers and those Connection names are not stored")
    func hopByHopNotStored() async throws {
        #expect(HTTPCacheRules.storableHeaders(
            ["Connection": "X-Private, close", "X-Private": "secret", "Keep-Alive": "timeout=5", "TE": "trailers", "X-Kept": "1"])
            == ["X-Kept": "1"])
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let url = Self.scripted(origin, "hop", headers: ["Cache-Control: max-age=3600", "Connection: X-Private", "X-Private: secret", "X-Kept: 1"])
            let first = try await Self.fetch(session, url)
            #expect(first.response.headers["X-Private"] == "secret")
            let hit = try await Self.fetch(session, url)
            #expect(hit.status == .hit && hit.response.headers["X-Kept"] == "1")
            #expect(hit.response.headers["X-Private"] == nil)
        }
    }

    @Test("RFC 9111 §4.3.1: the ETag is sent back exactly as the origin sent it, quoted, weak or neither")
    func etagEchoedAsSent() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            for (index, tag) in ["unquoted-tag", "W/\"weak\"", "\"strong\""].enumerated() {
                let url = Self.scripted(origin, "etag-\(index)", headers: ["Cache-Control: no-cache", "ETag: \(tag)"])
                _ = try await Self.fetch(session, url)
                #expect(try await Self.fetch(session, url).status == .revalidated)
                #expect(sent(origin, "etag-\(index)").last?.header("If-None-Match") == tag)
            }
        }
    }

    @Test("RFC 9110 §8.8.3.2: strong comparison needs two strong tags; weak comparison only the opaque tags")
    func entityTagComparison() {
        let strong = EntityTag("\"1\"")
        let weak = EntityTag("W/\"1\"")
        #expect(strong.matchesStrongly(EntityTag(" \"1\" ")))
        #expect(!weak.matchesStrongly(EntityTag("W/\"1\"")) && !weak.matchesStrongly(strong))
        #expect(weak.matchesWeakly(strong) && weak.matchesWeakly(EntityTag("W/\"1\"")))
        #expect(!strong.matchesWeakly(EntityTag("\"2\"")))
        #expect(EntityTag("bare").matchesStrongly(EntityTag("bare")))
        #expect(EntityTag.list("\"a\", W/\"b,c\"") == [EntityTag("\"a\""), EntityTag("W/\"b,c\"")])
        #expect(EntityTag.list(" * ") == nil)
    }

    @Test("RFC 9111 §4.4: a successful POST, PUT, DELETE or unknown method (PURGE) invalidates the URL and its same-origin Location and Content-Location")
    func unsafeMethodsInvalidate() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            // PURGE: a method the cache knows nothing of (the origin's parser takes only registered ones).
            for method in ["POST", "PUT", "DELETE", "PURGE"] {
                let url = Self.scripted(origin, "doc-\(method)", headers: ["Cache-Control: max-age=3600"])
                _ = try await Self.fetch(session, url)
                #expect(try await Self.fetch(session, url).status == .hit)
                _ = try await Self.fetch(session, url) { $0.method = method }
                #expect(try await Self.fetch(session, url).status == .miss, "after \(method)")
            }
            let target = Self.scripted(origin, "target", headers: ["Cache-Control: max-age=3600"])
            let described = Self.scripted(origin, "described", headers: ["Cache-Control: max-age=3600"])
            for url in [target, described] { _ = try await Self.fetch(session, url) }
            let targetURL = try #require(URL(string: target))
            let relative = targetURL.path + "?" + (targetURL.query ?? "")
            let form = Self.scripted(origin, "form", status: 201, headers: ["Location: \(relative)", "Content-Location: \(described)"])
            _ = try await Self.fetch(session, form) { $0.method = "POST" }
            #expect(try await Self.fetch(session, target).status == .miss)
            #expect(try await Self.fetch(session, described).status == .miss)

            // An error answer changes nothing.
            let failing = Self.scripted(origin, "failing", headers: ["Cache-Control: max-age=3600"], ["later_status": "500"])
            _ = try await Self.fetch(session, failing)
            _ = try await Self.fetch(session, failing) { $0.method = "POST" }
            #expect(try await Self.fetch(session, failing).status == .hit)
        }
        let request = TransferRequest(url: URL(string: "https://example.com/a")!, method: "POST")
        let elsewhere = TransferResponse(
            url: request.url, statusCode: 200, headers: ["Location": "https://other.example/b", "Content-Location": "http://example.com/c"])
        #expect(HTTPCacheRules.invalidatedURLs(request: request, response: elsewhere) == [request.url])
    }

    @Test("RFC 9111 §3, §4.2.2: 404, 410 and 501 are stored heuristically, any status with explicit freshness, not a 500 without")
    func nonSuccessStatusesStored() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let lastModified = "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT"
            for status in [404, 410, 501] {
                let url = Self.scripted(origin, "status-\(status)", status: status, headers: [lastModified])
                _ = try await Self.fetch(session, url)
                let hit = try await Self.fetch(session, url)
                #expect(hit.status == .hit && hit.response.statusCode == status && hit.body == "response 1", "\(status)")
            }
            let explicit = Self.scripted(origin, "status-503", status: 503, headers: ["Cache-Control: max-age=3600"])
            _ = try await Self.fetch(session, explicit)
            #expect(try await Self.fetch(session, explicit).status == .hit)
            let plain = Self.scripted(origin, "status-500", status: 500, headers: [lastModified])
            _ = try await Self.fetch(session, plain)
            #expect(try await Self.fetch(session, plain).body == "response 2")
        }
    }

    @Test("RFC 9111 §3, §4: a stored redirect is followed from the cache, the origin asked only for its target")
    func cachedRedirectFollowed() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let target = Self.scripted(origin, "moved-target")
            let moved = Self.scripted(origin, "moved", status: 301, headers: ["Location: \(target)", "Cache-Control: max-age=3600"])
            let first = try await Self.fetch(session, moved)
            #expect(first.body == "response 1" && first.response.url.absoluteString == target)
            let second = try await Self.fetch(session, moved)
            #expect(second.body == "response 2" && second.response.url.absoluteString == target)
            #expect(sent(origin, "moved").count == 1, "the 301 came from the cache")
            #expect(sent(origin, "moved-target").count == 2)
        }
    }

    @Test("RFC 9111 §4.1: each Vary variant is its own entry; header values compared after normalising")
    func varyVariants() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let url = origin.url("/cache/vary")
            func language(_ value: String) -> (inout TransferRequest) -> Void { { $0.headers["Accept-Language"] = value } }
            #expect(try await Self.fetch(session, url, configure: language("en, fr")).body == "response 1 for en, fr")
            #expect(try await Self.fetch(session, url, configure: language("de")).body == "response 2 for de")
            let english = try await Self.fetch(session, url, configure: language("EN ,fr"))
            #expect(english.status == .hit && english.body == "response 1 for en, fr")
            let german = try await Self.fetch(session, url, configure: language("de"))
            #expect(german.status == .hit && german.body == "response 2 for de")
            #expect(origin.requests.filter { $0.path == "/cache/vary" }.count == 2)
        }
    }
}
