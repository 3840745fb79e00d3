import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// The engine's cache against the letter of RFC 9111 (and RFC 9110's validators), one point each,
/// through real transfers to the in-process origin's `/cache/scripted/{name}` route.
@Suite("HTTP cache: RFC 9111 point by point", .timeLimit(.minutes(2)))
struct HTTPCacheRFC9111Tests {
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

    /// The second of two fetches of `url`: the first stores what it may.
    static func fetchTwice(_ session: Session, _ url: String) async throws -> (body: String, status: CacheStatus?, response: TransferResponse) {
        _ = try await fetch(session, url)
        return try await fetch(session, url)
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
                let url = origin.scriptedCacheURL("expires-\(index)", headers: ["Expires: \(expires)", "ETag: \"v\""])
                #expect(try await Self.fetch(session, url).status == .miss)
                #expect(try await Self.fetch(session, url).status == .revalidated, "\(expires)")
            }
            let valid = origin.scriptedCacheURL("expires-valid", headers: ["ETag: \"v\""], ["expires_in": "3600"])
            #expect(try await Self.fetchTwice(session, valid).status == .hit)
        }
    }

    @Test("RFC 9111 §5.1, §4.2.3: a served entry carries Age, its stored Age advanced by the time in the cache")
    func ageHeaderOnHits() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let url = origin.scriptedCacheURL("age", headers: ["Cache-Control: max-age=3600", "Age: 100"])
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

    @Test("RFC 9111 §5.1, §4.2.3: a hit carries Age even when the origin sent none; an old Date counts as apparent age")
    func ageAddedByTheCache() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let plain = origin.scriptedCacheURL("age-none", headers: ["Cache-Control: max-age=3600"])
            let first = try await Self.fetch(session, plain)
            #expect(first.status == .miss && first.response.headers["Age"] == nil)
            let hit = try await Self.fetch(session, plain)
            #expect(hit.status == .hit)
            #expect(hit.response.headers["Age"].flatMap(Int.init).map { $0 >= 0 && $0 < 60 } == true)

            let sixtySecondsAgo = HTTPDate.format(Date().addingTimeInterval(-60))
            let dated = origin.scriptedCacheURL("age-dated", headers: ["Cache-Control: max-age=3600", "Date: \(sixtySecondsAgo)"])
            let datedHit = try await Self.fetchTwice(session, dated)
            #expect(datedHit.status == .hit)
            let age = try #require(datedHit.response.headers["Age"].flatMap(Int.init))
            #expect(age >= 60 && age < 3600)
        }
    }

    @Test("RFC 9110 §5.6.7 at every HTTP date the cache reads: a loose Date, Last-Modified or If-Modified-Since counts as absent")
    func looseDatesAreAbsent() {
        let url = URL(string: "https://example.com/")!
        let date = "Tue, 14 Nov 2023 22:13:20 GMT"
        func lifetime(_ headers: HTTPHeaders) -> TimeInterval {
            HTTPCacheRules.freshnessLifetime(of: TransferResponse(url: url, statusCode: 200, headers: headers), receivedAt: Date())
        }
        // §4.2.2: no heuristic lifetime from a Last-Modified that is not an HTTP-date.
        #expect(lifetime(["Date": date, "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]) > 0)
        #expect(lifetime(["Date": date, "Last-Modified": "Sun, 06 Nov 94 08:49:37 GMT"]) == 0)
        #expect(lifetime(["Date": date, "Last-Modified": "Sun, 06 Nov 1994 08:49:37 UTC"]) == 0)

        // §4.2.3: a loose Date gives no apparent age; the time the response arrived stands for it.
        let arrived = Date(timeIntervalSince1970: 1_700_000_000)
        func age(dateHeader: String) -> TimeInterval {
            let entry = CachedResponse(
                response: TransferResponse(url: url, statusCode: 200, headers: ["Date": dateHeader]),
                data: Data(), requestDate: arrived, responseDate: arrived)
            return HTTPCacheRules.currentAge(of: entry, now: arrived)
        }
        #expect(age(dateHeader: HTTPDate.format(arrived.addingTimeInterval(-600))) == 600)
        #expect(age(dateHeader: "Tue, 14-Nov-2023 22:03:20 GMT") == 0)

        // §4.3.2 (RFC 9110 §13.1.3): an If-Modified-Since that is not an HTTP-date is ignored.
        let entry = CachedResponse(
            response: TransferResponse(url: url, statusCode: 200, headers: ["Date": date, "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]),
            data: Data(), requestDate: arrived, responseDate: arrived)
        func notModified(since: String) -> Bool {
            var request = TransferRequest(url: url)
            request.headers["If-Modified-Since"] = since
            return HTTPCacheRules.isNotModified(entry, for: request)
        }
        #expect(notModified(since: "Mon, 07 Nov 1994 08:49:37 GMT"))
        #expect(!notModified(since: "Mon, 07 Nov 94 08:49:37 GMT"))
        #expect(!notModified(since: "Mon, 07 Nov 1994 08:49:37 UTC"))
    }

    @Test("RFC 9111 §5.1: Age is delta-seconds, the first of a list; 7200.0 is invalid and ignored")
    func ageParsing() async throws {
        #expect(HTTPCacheRules.ageValue(of: ["Age": "7200, 0"]) == 7200)
        #expect(HTTPCacheRules.ageValue(of: ["Age": "7200.0"]) == 0)
        #expect(HTTPCacheRules.ageValue(of: ["Age": "-5"]) == 0)
        #expect(HTTPCacheRules.ageValue(of: ["Age": "99999999999999999999"]) == 2_147_483_648)
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let listed = origin.scriptedCacheURL("age-list", headers: ["Cache-Control: max-age=3600", "Age: 7200, 0", "ETag: \"a\""])
            #expect(try await Self.fetchTwice(session, listed).status == .revalidated)
            let decimal = origin.scriptedCacheURL("age-decimal", headers: ["Cache-Control: max-age=3600", "Age: 7200.0"])
            #expect(try await Self.fetchTwice(session, decimal).status == .hit)
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
            let created = origin.scriptedCacheURL("created", status: 201, headers: ["Last-Modified: \(old)"])
            #expect(try await Self.fetch(session, created).status == .miss)
            #expect(try await Self.fetch(session, created).body == "response 2")
            let ok = origin.scriptedCacheURL("ok", headers: ["Last-Modified: \(old)"])
            #expect(try await Self.fetchTwice(session, ok).status == .hit)
        }
    }

    @Test("RFC 9111 §3.5: a private cache (ferry get --cache-dir) keeps a response to a request with Authorization")
    func privateCacheStoresAuthorizedResponses() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let url = origin.scriptedCacheURL("authorized", headers: ["Cache-Control: max-age=3600"])
            let bearer: (inout TransferRequest) -> Void = { $0.headers["Authorization"] = "Bearer mine" }
            #expect(try await Self.fetch(session, url, configure: bearer).status == .miss)
            #expect(try await Self.fetch(session, url, configure: bearer).status == .hit)
        }
    }

    @Test("RFC 9111 §3.1: hop-by-hop headers and those Connection names are not stored")
    func hopByHopNotStored() async throws {
        #expect(HTTPCacheRules.storableHeaders(
            ["Connection": "X-Private, close", "X-Private": "secret", "Keep-Alive": "timeout=5", "TE": "trailers", "X-Kept": "1"])
            == ["X-Kept": "1"])
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let url = origin.scriptedCacheURL("hop", headers: ["Cache-Control: max-age=3600", "Connection: X-Private", "X-Private: secret", "X-Kept: 1"])
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
                let url = origin.scriptedCacheURL("etag-\(index)", headers: ["Cache-Control: no-cache", "ETag: \(tag)"])
                #expect(try await Self.fetchTwice(session, url).status == .revalidated)
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
                let url = origin.scriptedCacheURL("doc-\(method)", headers: ["Cache-Control: max-age=3600"])
                #expect(try await Self.fetchTwice(session, url).status == .hit)
                _ = try await Self.fetch(session, url) { $0.method = method }
                #expect(try await Self.fetch(session, url).status == .miss, "after \(method)")
            }
            let target = origin.scriptedCacheURL("target", headers: ["Cache-Control: max-age=3600"])
            let described = origin.scriptedCacheURL("described", headers: ["Cache-Control: max-age=3600"])
            for url in [target, described] { _ = try await Self.fetch(session, url) }
            let targetURL = try #require(URL(string: target))
            let relative = targetURL.path + "?" + (targetURL.query ?? "")
            let form = origin.scriptedCacheURL("form", status: 201, headers: ["Location: \(relative)", "Content-Location: \(described)"])
            _ = try await Self.fetch(session, form) { $0.method = "POST" }
            #expect(try await Self.fetch(session, target).status == .miss)
            #expect(try await Self.fetch(session, described).status == .miss)

            // An error answer changes nothing.
            let failing = origin.scriptedCacheURL("failing", headers: ["Cache-Control: max-age=3600"], ["later_status": "500"])
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
                let url = origin.scriptedCacheURL("status-\(status)", status: status, headers: [lastModified])
                _ = try await Self.fetch(session, url)
                let hit = try await Self.fetch(session, url)
                #expect(hit.status == .hit && hit.response.statusCode == status && hit.body == "response 1", "\(status)")
            }
            let explicit = origin.scriptedCacheURL("status-503", status: 503, headers: ["Cache-Control: max-age=3600"])
            #expect(try await Self.fetchTwice(session, explicit).status == .hit)
            let plain = origin.scriptedCacheURL("status-500", status: 500, headers: [lastModified])
            _ = try await Self.fetch(session, plain)
            #expect(try await Self.fetch(session, plain).body == "response 2")
        }
    }

    @Test("RFC 9111 §3, §4: a stored redirect is followed from the cache, the origin asked only for its target")
    func cachedRedirectFollowed() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let target = origin.scriptedCacheURL("moved-target")
            let moved = origin.scriptedCacheURL("moved", status: 301, headers: ["Location: \(target)", "Cache-Control: max-age=3600"])
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

    private func asking(_ directives: String) -> (inout TransferRequest) -> Void { { $0.headers["Cache-Control"] = directives } }

    @Test("RFC 9111 §5.2.1.2, §5.2.1.3: max-stale accepts that much staleness (any without a value, none past must-revalidate); min-fresh wants that much freshness left")
    func maxStaleAndMinFresh() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            // Stale by about 99 seconds.
            let stale = origin.scriptedCacheURL("stale", headers: ["Cache-Control: max-age=1", "Age: 100", "ETag: \"s\""])
            _ = try await Self.fetch(session, stale)
            #expect(try await Self.fetch(session, stale, configure: asking("max-stale=3600")).status == .hit)
            #expect(try await Self.fetch(session, stale, configure: asking("max-stale")).status == .hit)
            #expect(try await Self.fetch(session, stale, configure: asking("max-stale=10")).status == .revalidated)
            let strict = origin.scriptedCacheURL("strict", headers: ["Cache-Control: max-age=1, must-revalidate", "Age: 100", "ETag: \"s\""])
            _ = try await Self.fetch(session, strict)
            #expect(try await Self.fetch(session, strict, configure: asking("max-stale")).status == .revalidated)

            let fresh = origin.scriptedCacheURL("fresh", headers: ["Cache-Control: max-age=3600", "ETag: \"f\""])
            _ = try await Self.fetch(session, fresh)
            #expect(try await Self.fetch(session, fresh, configure: asking("min-fresh=60")).status == .hit)
            #expect(try await Self.fetch(session, fresh, configure: asking("min-fresh=7200")).status == .revalidated)
        }
    }

    @Test("RFC 9111 §5.2.1.7: only-if-cached is answered from a usable entry, else with the cache's own 504, never by the origin")
    func onlyIfCached() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let never = origin.scriptedCacheURL("never")
            let timeout = try await Self.fetch(session, never, configure: asking("only-if-cached"))
            #expect(timeout.response.statusCode == 504 && timeout.body.isEmpty)
            #expect(sent(origin, "never").isEmpty)
            let fresh = origin.scriptedCacheURL("cached", headers: ["Cache-Control: max-age=3600"])
            _ = try await Self.fetch(session, fresh)
            #expect(try await Self.fetch(session, fresh, configure: asking("only-if-cached")).status == .hit)
            let stale = origin.scriptedCacheURL("stale-only", headers: ["Cache-Control: max-age=1", "Age: 100"])
            _ = try await Self.fetch(session, stale)
            #expect(try await Self.fetch(session, stale, configure: asking("only-if-cached")).response.statusCode == 504)
            #expect(try await Self.fetch(session, stale, configure: asking("only-if-cached, max-stale")).status == .hit)
            #expect(sent(origin, "stale-only").count == 1)
        }
    }

    @Test("CA-08, RFC 9111 §5.2.1.7: a session with no cache still answers only-if-cached with a 504 and fails an offline policy, without asking the origin")
    func policiesWithoutACache() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session { $0.urlCache = nil }
            let url = origin.scriptedCacheURL("no-cache-here", headers: ["Cache-Control: max-age=3600"])
            let timeout = try await Self.fetch(session, url, configure: asking("only-if-cached"))
            #expect(timeout.response.statusCode == 504 && timeout.body.isEmpty && timeout.status == .miss)
            await #expect(throws: TransferError.self) {
                _ = try await Self.fetch(session, url) { $0.cachePolicy = .returnCacheDataDontLoad }
            }
            #expect(sent(origin, "no-cache-here").isEmpty)
            for policy in [RequestCachePolicy.useProtocolCachePolicy, .returnCacheDataElseLoad, .reloadIgnoringLocalCacheData] {
                let fetched = try await Self.fetch(session, url) { $0.cachePolicy = policy }
                #expect(fetched.response.statusCode == 200 && fetched.status == nil, "\(policy)")
            }
            #expect(sent(origin, "no-cache-here").count == 3)
        }
    }

    @Test("RFC 9111 §4.3.2: the caller's own If-None-Match / If-Modified-Since is answered 304 by a fresh entry, weak comparison")
    func callersConditionalAnsweredFromCache() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let url = origin.scriptedCacheURL("conditional", headers: ["Cache-Control: max-age=3600", "ETag: \"c1\"", "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT"])
            _ = try await Self.fetch(session, url)
            for condition in ["W/\"c1\"", "\"other\", \"c1\"", "*"] {
                let answer = try await Self.fetch(session, url) { $0.headers["If-None-Match"] = condition }
                #expect(answer.response.statusCode == 304 && answer.status == .hit && answer.body.isEmpty, "\(condition)")
                #expect(answer.response.headers["ETag"] == "\"c1\"" && answer.response.headers["Content-Length"] == nil)
            }
            let changed = try await Self.fetch(session, url) { $0.headers["If-None-Match"] = "\"c0\"" }
            #expect(changed.response.statusCode == 200 && changed.status == .hit && changed.body == "response 1")
            let since = try await Self.fetch(session, url) { $0.headers["If-Modified-Since"] = "Mon, 07 Nov 1994 08:49:37 GMT" }
            #expect(since.response.statusCode == 304 && since.status == .hit)
            let before = try await Self.fetch(session, url) { $0.headers["If-Modified-Since"] = "Sat, 05 Nov 1994 08:49:37 GMT" }
            #expect(before.response.statusCode == 200 && before.body == "response 1")
            #expect(sent(origin, "conditional").count == 1)

            // A stale entry does not answer: the caller's request goes to the origin as it is.
            let stale = origin.scriptedCacheURL("conditional-stale", headers: ["Cache-Control: max-age=0", "ETag: \"c1\""])
            _ = try await Self.fetch(session, stale)
            let passed = try await Self.fetch(session, stale) { $0.headers["If-None-Match"] = "\"c1\"" }
            #expect(passed.response.statusCode == 304 && passed.status == .miss)
            #expect(sent(origin, "conditional-stale").last?.header("If-None-Match") == "\"c1\"")
        }
    }

    @Test("RFC 5861 §3: stale-while-revalidate serves the stale entry as stale and refreshes it in the background")
    func staleWhileRevalidate() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let url = origin.scriptedCacheURL("swr", headers: ["Cache-Control: max-age=1, stale-while-revalidate=3600", "Age: 10"])
            _ = try await Self.fetch(session, url)
            let stale = try await Self.fetch(session, url)
            #expect(stale.status == .stale && stale.body == "response 1")
            // The background request reaches the origin and its answer replaces the entry.
            var refreshed = stale
            for _ in 0..<200 where refreshed.body == "response 1" {
                try await Task.sleep(for: .milliseconds(50))
                refreshed = try await Self.fetch(session, url)
            }
            #expect(refreshed.status == .stale && refreshed.body.hasPrefix("response "), "\(refreshed.body)")
            #expect(refreshed.body != "response 1")
            #expect(sent(origin, "swr").allSatisfy { $0.header("Cache-Control") == nil || $0.header("Cache-Control") == "max-age=0" })

            let past = origin.scriptedCacheURL("swr-past", headers: ["Cache-Control: max-age=1, stale-while-revalidate=5", "Age: 100"])
            #expect(try await Self.fetchTwice(session, past).status == .miss)
        }
    }

    @Test("RFC 5861 §4: stale-if-error answers for a 500/502/503/504 or a failed connection, as stale; not past must-revalidate")
    func staleIfError() async throws {
        let cache = try LocalResponseCache(memoryCapacity: 4 << 20)
        let session = try Self.session(cache)
        var gone = ""
        try await Fixture.withOrigin { origin in
            let url = origin.scriptedCacheURL("sie", headers: ["Cache-Control: max-age=1, stale-if-error=3600", "Age: 10"], ["later_status": "503"])
            _ = try await Self.fetch(session, url)
            let answer = try await Self.fetch(session, url)
            #expect(answer.status == .stale && answer.response.statusCode == 200 && answer.body == "response 1")
            #expect(sent(origin, "sie").count == 2, "the origin was asked, and failed")

            let strict = origin.scriptedCacheURL("sie-strict", headers: ["Cache-Control: max-age=1, stale-if-error=3600, must-revalidate", "Age: 10"],
                ["later_status": "503"])
            _ = try await Self.fetch(session, strict)
            #expect(try await Self.fetch(session, strict).response.statusCode == 503)
            gone = origin.scriptedCacheURL("sie-gone", headers: ["Cache-Control: max-age=1, stale-if-error=3600", "Age: 10"])
            _ = try await Self.fetch(session, gone)
        }
        // The origin is gone: the connection is refused.
        let offline = try await Self.fetch(session, gone)
        #expect(offline.status == .stale && offline.body == "response 1")
    }

    @Test("RFC 9111 §3.4, RFC 9110 §14: one byte range is served from a fresh complete entry as a 206; several, or one past the end, go to the origin")
    func rangeFromCompleteEntry() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let url = origin.scriptedCacheURL("ranged", headers: ["Cache-Control: max-age=3600", "ETag: \"r1\""])
            #expect(try await Self.fetch(session, url).body == "response 1")
            func range(_ value: String, ifRange: String? = nil) async throws -> (body: String, status: CacheStatus?, response: TransferResponse) {
                try await Self.fetch(session, url) { request in
                    request.headers["Range"] = value
                    if let ifRange { request.headers["If-Range"] = ifRange }
                }
            }
            for (asked, body, contentRange) in [
                ("bytes=2-5", "spon", "bytes 2-5/10"), ("bytes=-3", "e 1", "bytes 7-9/10"), ("bytes=4-", "onse 1", "bytes 4-9/10"),
                ("bytes=8-99", " 1", "bytes 8-9/10"),
            ] {
                let part = try await range(asked)
                #expect(part.response.statusCode == 206 && part.status == .hit && part.body == body, "\(asked)")
                #expect(part.response.headers["Content-Range"] == contentRange && part.response.headers["Content-Length"] == String(body.utf8.count))
            }
            #expect(try await range("bytes=0-3", ifRange: "\"r1\"").body == "resp")
            let changed = try await range("bytes=0-3", ifRange: "\"r0\"")
            #expect(changed.response.statusCode == 200 && changed.body == "response 1" && changed.status == .hit)
            #expect(try await range("bytes=0-3", ifRange: "W/\"r1\"").response.statusCode == 200, "If-Range compares strongly")
            #expect(sent(origin, "ranged").count == 1)

            _ = try await range("bytes=50-")
            _ = try await range("bytes=0-1,4-5")
            #expect(sent(origin, "ranged").count == 3)
            #expect(sent(origin, "ranged").last?.header("Range") == "bytes=0-1,4-5")
        }
    }

    @Test("RFC 9111 §3.3, §3.4: a 206 is stored as a part; it answers ranges inside it, never a whole GET; a complete response replaces it")
    func storedPartialContent() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            // /bytes/ honours Range and is fresh by the heuristic (an old Last-Modified).
            let url = origin.url("/bytes/1000")
            func range(_ value: String) async throws -> (body: Data, status: CacheStatus?, response: TransferResponse) {
                var request = Fixture.request(url)
                request.headers["Range"] = value
                let (data, response) = try await session.data(for: request)
                return (data, response.cacheStatus, response)
            }
            let pattern = OriginServer.patternBytes(count: 1000)
            let first = try await range("bytes=100-299")
            #expect(first.response.statusCode == 206 && first.status == .miss && first.body == Data(pattern[100...299]))
            let again = try await range("bytes=100-299")
            #expect(again.status == .hit && again.body == Data(pattern[100...299]))
            let inside = try await range("bytes=150-159")
            #expect(inside.status == .hit && inside.response.statusCode == 206 && inside.body == Data(pattern[150...159]))
            #expect(inside.response.headers["Content-Range"] == "bytes 150-159/1000")
            #expect(origin.requests.filter { $0.path == "/bytes/1000" }.count == 1)

            #expect(try await range("bytes=250-349").status == .miss, "not inside the stored part")
            let whole = try await session.data(for: Fixture.request(url))
            #expect(whole.1.statusCode == 200 && whole.1.cacheStatus == .miss && whole.0 == Data(pattern), "a part never answers a GET")
            #expect(origin.requests.filter { $0.path == "/bytes/1000" }.count == 3)
            let fromWhole = try await range("bytes=900-")
            #expect(fromWhole.status == .hit && fromWhole.body == Data(pattern[900...]))
            #expect(origin.requests.filter { $0.path == "/bytes/1000" }.count == 3)
        }
        #expect(HTTPCacheRules.isStorable(
            request: TransferRequest(url: URL(string: "https://example.com/")!, headers: ["Range": "bytes=0-9"]),
            response: TransferResponse(url: URL(string: "https://example.com/")!, statusCode: 206, headers: ["Content-Range": "bytes 0-9/100"]),
            sharedAmongCredentials: false))
    }

    @Test("RFC 9111 §4.1: a URL's variants are found by their URL key; keys gone from the cache are forgotten, the index stays near the cache's size")
    func variantIndex() {
        var index = VariantIndex()
        var live: Set<String> = []
        let url = "GET https://example.com/a"
        for key in [url, url + "\naccept-language: en", url + "\naccept-language: fr", "GET https://example.com/ab"] {
            live.insert(key)
            index.insert(key) { Array(live) }
        }
        #expect(Set(index.keys(of: url) { live.contains($0) }) == [url, url + "\naccept-language: en", url + "\naccept-language: fr"])
        live.remove(url + "\naccept-language: fr")
        #expect(Set(index.keys(of: url) { live.contains($0) }) == [url, url + "\naccept-language: en"])
        // Ten thousand URLs stored and evicted one after another: a rebuild drops what went.
        for n in 0..<10_000 {
            let key = "GET https://example.com/\(n)"
            live = [url, key]
            index.insert(key) { Array(live) }
        }
        var asked: [String] = []
        #expect(index.keys(of: url) { asked.append($0); return live.contains($0) } == [url])
        #expect(asked == [url], "the forgotten variant is not even asked about")
        #expect(index.keys(of: "GET https://example.com/5") { _ in true }.isEmpty, "rebuilt from the live keys")
    }

    @Test("RFC 9111 §3.4: stored parts with the same strong ETag that cover the whole make a complete entry; other validators never combine")
    func partsCombined() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            func range(_ url: String, _ value: String) async throws -> TransferResponse {
                var request = Fixture.request(url)
                request.headers["Range"] = value
                return try await session.data(for: request).1
            }
            let pattern = OriginServer.patternBytes(count: 1000)
            let url = origin.url("/bytes/1000")
            #expect(try await range(url, "bytes=0-399").statusCode == 206)
            #expect(try await range(url, "bytes=600-").statusCode == 206)
            #expect(try await range(url, "bytes=300-699").statusCode == 206)
            let (whole, response) = try await session.data(for: Fixture.request(url))
            #expect(response.cacheStatus == .hit && response.statusCode == 200 && whole == Data(pattern))
            #expect(response.headers["Content-Length"] == "1000" && response.headers["Content-Range"] == nil)
            #expect(origin.requests.filter { $0.path == "/bytes/1000" }.count == 3)

            // A new version between the parts (another ETag), or weak ETags: no combining.
            for options in ["changes=1", "etag=weak"] {
                let other = origin.url("/resumable/1000?\(options)")
                _ = try await range(other, "bytes=0-499")
                _ = try await range(other, "bytes=500-999")
                let plain = try await session.data(for: Fixture.request(other)).1
                #expect(plain.cacheStatus == .miss, "\(options)")
            }
        }
    }

    @Test("RFC 9111 §4.3.4: a 304 refreshes the stored entry only when its ETag names it (weak one weakly); else the response is fetched anew")
    func notModifiedMustNameTheEntry() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Self.session()
            let other = origin.scriptedCacheURL(
                "other-version", headers: ["Cache-Control: no-cache", "ETag: \"a\""], ["not_modified_etag": "\"b\""])
            _ = try await Self.fetch(session, other)
            let refetched = try await Self.fetch(session, other)
            #expect(refetched.status == .miss && refetched.body == "response 3", "\(refetched.body)")
            #expect(sent(origin, "other-version").map { $0.header("If-None-Match") } == [nil, "\"a\"", nil])

            let weak = origin.scriptedCacheURL(
                "weak-version", headers: ["Cache-Control: no-cache", "ETag: \"a\""], ["not_modified_etag": "W/\"a\""])
            #expect(try await Self.fetchTwice(session, weak).status == .revalidated)
        }
    }
}
